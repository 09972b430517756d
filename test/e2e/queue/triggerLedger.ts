/**
 * Bookkeeping of the trigger suites in queue mode: the changes made on the simulator, the changes
 * the trigger emitted (read from n8n's executions table, whatever became of the executions) and
 * the polls the simulator saw.
 */
import { parseTimestampMicros } from '../../../scripts/simulator/clock';
import type { RequestLogEntry } from '../../../scripts/simulator/requestLog';
import type { SimRecord } from '../../../scripts/simulator/types';
import { requireFromN8n, type NodeItem, type RunExecutionData } from '../../../scripts/n8n/driver';
import type { QueueCluster } from '../queue';

/** One change: a record at one `updated_at` (the trigger's unit of "exactly once"). */
export const changeKey = (id: unknown, updatedAt: unknown): string => `${String(id)}@${parseTimestampMicros(String(updatedAt))}`;

export interface EmittedExecution {
	id: string;
	status: string;
	mode: string;
	/** The process that ran it ($env of the Worker node), when the execution got that far. */
	worker?: string;
	/** Changes the trigger handed to this execution. */
	changes: string[];
	/** Those of them marked `_event.possiblyRepeated` (sent again after n8n stopped soon after a hand-over). */
	marked: string[];
	/** Items that are not records (e.g. the empty item of an execution recording a failed poll). */
	otherItems: number;
	/** The workflow-level error, if any. */
	error?: string;
}

interface ExecutionRow {
	id: number;
	status: string;
	mode: string;
	retryOf: string | null;
	data: string | null;
}

/** The changes each execution of the workflow received, read from the database. */
export async function emittedExecutions(cluster: QueueCluster, workflowId: string, triggerName: string): Promise<EmittedExecution[]> {
	const flatted = requireFromN8n<{ parse(s: string): unknown }>(cluster.main.folder.install, 'flatted');
	const rows = await cluster.query<ExecutionRow>(
		`SELECT e.id, e.status, e.mode, e."retryOf" AS "retryOf", d.data FROM execution_entity e ` +
			`LEFT JOIN execution_data d ON d."executionId" = e.id WHERE e."workflowId" = '${workflowId}' ORDER BY e.id`,
	);
	return rows.map((row) => {
		const data = row.data ? (flatted.parse(row.data) as RunExecutionData & { executionData?: { nodeExecutionStack?: Array<{ node: { name: string }; data: { main: NodeItem[][] } }> } }) : undefined;
		const run = data?.resultData?.runData?.[triggerName]?.[0]?.data?.main?.[0];
		// An execution that never ran its first node still holds the trigger's items to run.
		const queued = data?.executionData?.nodeExecutionStack?.find((entry) => entry.node.name === triggerName)?.data.main[0];
		const items = run ?? queued ?? [];
		const worker = data?.resultData?.runData?.Worker?.[0]?.data?.main?.[0]?.[0]?.json.worker;
		const records = items.filter((item) => item.json.id !== undefined && typeof item.json.updated_at === 'string');
		return {
			id: String(row.id),
			status: row.status,
			mode: row.retryOf ? 'retry' : row.mode,
			worker: worker === undefined ? undefined : String(worker),
			changes: records.map((item) => changeKey(item.json.id, item.json.updated_at)),
			marked: records
				.filter((item) => (item.json._event as { possiblyRepeated?: unknown } | undefined)?.possiblyRepeated === true)
				.map((item) => changeKey(item.json.id, item.json.updated_at)),
			otherItems: items.length - records.length,
			error: data?.resultData?.error?.message,
		};
	});
}

export interface Tally {
	expected: number;
	emitted: number;
	/** Expected changes no execution received. */
	lost: string[];
	/** Changes received by more than one (non-retry) execution, with how often; copies marked possibly repeated left out. */
	repeated: Record<string, number>;
	/** Copies of changes sent again marked `_event.possiblyRepeated`. */
	markedRepeats: number;
	/** Emitted changes that were never made (must stay empty). */
	unexpected: string[];
}

/** Compares the changes made with those the trigger emitted (retries of an execution left out). */
export function tally(expected: ReadonlySet<string>, executions: readonly EmittedExecution[]): Tally {
	const seen = new Map<string, number>();
	const marked = new Map<string, number>();
	for (const execution of executions) {
		if (execution.mode === 'retry') continue;
		for (const change of execution.changes) seen.set(change, (seen.get(change) ?? 0) + 1);
		for (const change of execution.marked) marked.set(change, (marked.get(change) ?? 0) + 1);
	}
	// A copy announced as possibly repeated is not a silent duplicate.
	const unmarked = [...seen].map(([change, n]) => [change, n - Math.min(marked.get(change) ?? 0, n - 1)] as const);
	return {
		expected: expected.size,
		emitted: [...seen.values()].reduce((a, b) => a + b, 0),
		lost: [...expected].filter((change) => !seen.has(change)),
		repeated: Object.fromEntries(unmarked.filter(([, n]) => n > 1)),
		markedRepeats: [...seen].reduce((sum, [change, n]) => sum + Math.min(marked.get(change) ?? 0, n - 1), 0),
		unexpected: [...seen.keys()].filter((change) => !expected.has(change)),
	};
}

/** Keys of records as changed on the simulator. */
export const changesOf = (records: readonly SimRecord[]): string[] => records.map((r) => changeKey(r.id, r.updated_at));

/**
 * Polls that reached the API, from the simulator's request log: the first page of a poll asks
 * for `updated_at` at or after the watermark without a page cursor; requests closer than 1.5 s
 * are retries of the same poll.
 */
export function pollTimes(requests: readonly RequestLogEntry[], listPath: string): number[] {
	const firstPages = requests
		.filter((r) => r.method === 'GET' && r.path === listPath)
		.filter((r) => {
			const query = decodeURIComponent(r.rawQuery);
			return query.includes('[updated_at][op]=gte') && !query.includes('[after]');
		})
		.map((r) => parseTimestampMicros(r.at) / 1000);
	const polls: number[] = [];
	for (const at of firstPages) if (!polls.length || at - polls[polls.length - 1] > 1500) polls.push(at);
	return polls;
}
