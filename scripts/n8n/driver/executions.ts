/**
 * Every execution of a workflow, not only the first page: n8n lists 20 by default and at most 100
 * a request. n8n 2.41 pages with `cursor` (the answer's `nextCursor`); 2.8 with `lastId` (older
 * than that id). Finished executions are read once and kept (they do not change any more).
 */
import type { ExecutionDetails, ExecutionSummary, N8nServer } from './server';

const PAGE = 100;

interface ListAnswer {
	results: ExecutionSummary[];
	nextCursor?: string | null;
}

/** All executions of `workflowId`, newest first, across pages. */
export async function allExecutions(server: N8nServer, workflowId: string): Promise<ExecutionSummary[]> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId }));
	const all: ExecutionSummary[] = [];
	const seen = new Set<string>();
	let cursor: string | undefined;
	let lastId: string | undefined;
	for (let page = 0; page < 1000; page++) {
		const paging = cursor !== undefined ? `&cursor=${encodeURIComponent(cursor)}` : lastId !== undefined ? `&lastId=${lastId}` : '';
		const answer = await server.rest<ListAnswer | ExecutionSummary[]>('GET', `/rest/executions?filter=${filter}&limit=${PAGE}${paging}`);
		const list = Array.isArray(answer) ? { results: answer } : answer;
		const fresh = list.results.filter((e) => !seen.has(String(e.id)));
		for (const e of fresh) seen.add(String(e.id));
		all.push(...fresh);
		if (fresh.length === 0) break;
		if (typeof list.nextCursor === 'string' && list.nextCursor !== '') {
			cursor = list.nextCursor;
		} else if (list.nextCursor === undefined && list.results.length >= PAGE) {
			lastId = String(Math.min(...list.results.map((e) => Number(e.id))));
		} else {
			break;
		}
	}
	return all;
}

const FINISHED = new Set(['success', 'error', 'crashed', 'canceled']);

/** Whether n8n is done with the execution (its data will not change any more). */
export function isFinished(execution: ExecutionSummary): boolean {
	return FINISHED.has(execution.status);
}

/**
 * Reads each finished execution of a workflow once: `read` sees it the first time it is finished,
 * later calls only look at new ones (n8n restarted in between: pass the new server).
 */
export class ExecutionReader {
	/** Status of each execution read, by id. */
	private readonly done = new Map<string, string>();
	/** The error message of each execution that failed or was cancelled (what n8n shows on it). */
	readonly errors: string[] = [];
	/**
	 * Executions n8n was running when it stopped, kept as "crashed": their items are stored with
	 * them (cli.ts triggerOutput), shown in n8n's executions list; not a failure of the node.
	 */
	readonly crashed: string[] = [];

	constructor(
		private readonly workflowId: string,
		private readonly read: (execution: ExecutionDetails) => void,
	) {}

	/** Reads the executions finished since the last call (on `server`, which may be a restarted one). */
	async update(server: N8nServer): Promise<{ running: string[] }> {
		const running: string[] = [];
		for (const summary of await allExecutions(server, this.workflowId)) {
			const id = String(summary.id);
			if (this.done.has(id)) continue;
			if (!isFinished(summary)) {
				running.push(id);
				continue;
			}
			const details = await server.getExecution(id);
			this.done.set(id, details.status);
			if (details.status === 'crashed') this.crashed.push(id);
			else if (details.status !== 'success') this.errors.push(`${id} ${details.status}: ${details.data?.resultData?.error?.message ?? '(no message)'}`);
			this.read(details);
		}
		return { running };
	}

	/** How many executions were read so far, by status. */
	statuses(): Record<string, number> {
		const counts: Record<string, number> = {};
		for (const status of this.done.values()) counts[status] = (counts[status] ?? 0) + 1;
		return counts;
	}
}
