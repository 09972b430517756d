/**
 * What a lane of durableScheduler.e2e.test.ts expects and what n8n delivered: every change as
 * `id@updated_at`, counted from the executions n8n stored (each finished one read once), per
 * workflow; missing, repeated and unexpected ones, with the phase each missing one was made in;
 * n8n's poll log (abandoned polls, back-offs). Writes a JSON report per lane to .e2e-tmp/.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

import { ExecutionReader, TMP_DIR, triggerOutput, type N8nServer } from '../../scripts/n8n/driver';

export const FLOWS = ['burst', 'capped', 'watch', 'backfill'] as const;
export type Flow = (typeof FLOWS)[number];
export const NODE = 'Changes';

export interface FlowResult {
	expected: number;
	/** Expected changes delivered (at least once). */
	delivered: number;
	missing: number;
	/** Extra copies of changes delivered more than once, not marked as possibly repeated. */
	duplicates: number;
	/** Extra copies marked `_event.possiblyRepeated` (n8n stopped soon after a hand-over). */
	markedRepeats: number;
	/** Items that are no expected change (e.g. a phone number change under Watch Fields). */
	unexpected: number;
	/** Tolerated changes delivered once, earlier values unknown (see `tolerate`). */
	tolerated: number;
	missingByPhase: Record<string, number>;
	/** The messages of executions that did not succeed (at most five). */
	errors: string[];
	/** Executions read, by status. */
	executions: Record<string, number>;
	/** Items delivered per execution, in the order n8n numbered them. */
	itemsPerExecution: number[];
	samples: { missing: string[]; duplicates: string[]; unexpected: string[] };
}

export interface LaneResult {
	key: string;
	lane: string;
	durationS: number;
	flows: Record<Flow, FlowResult>;
	/** Expected changes delivered at each mark ("restart": just before n8n stopped), seconds since start. */
	marks: Array<{ mark: string; atS: number; delivered: Record<Flow, string> }>;
	/** n8n's scheduler log: polls abandoned at the timeout, back-offs recorded. */
	abandonedPolls: number;
	backoffs: number;
	/** Requests the simulator answered after activation. */
	requests: number;
	problems: string[];
	pollLog: string[];
	userFolder: string;
	reportFile: string;
}

const POLL_LOG = /abandoned|backing off|Poll returned|Poll failed|Personnel Data Trigger|skipping this occurrence|Workflow deactivated during poll/i;

export class Ledger {
	readonly problems: string[] = [];
	readonly logs: string[] = [];
	requests = 0;
	private readonly expected = new Map<Flow, Map<string, string>>();
	private readonly tolerated = new Map<Flow, Set<string>>();
	/** `_event.type` of each delivered change, by pair. */
	private readonly types = new Map<string, string>();
	private readonly delivered = new Map<Flow, string[]>();
	/** How often each change came marked `_event.possiblyRepeated` (sent again after n8n stopped at a hand-over), by flow and pair. */
	private readonly marked = new Map<string, number>();
	private readonly perExecution = new Map<Flow, Array<[number, number]>>();
	private readonly readers: Map<Flow, ExecutionReader>;
	private readonly marks: LaneResult['marks'] = [];

	constructor(
		private readonly spec: { key: string; label: string },
		workflowIds: Record<Flow, string>,
		private readonly started: number,
	) {
		this.readers = new Map(
			FLOWS.map((flow) => {
				this.expected.set(flow, new Map());
				this.tolerated.set(flow, new Set());
				this.delivered.set(flow, []);
				this.perExecution.set(flow, []);
				const reader = new ExecutionReader(workflowIds[flow], (execution) => {
					const pairs = triggerOutput(execution.data, NODE).items.map((row) => {
						const pair = `${String(row.id)}@${String(row.updated_at)}`;
						const event = row._event as { type?: unknown; possiblyRepeated?: unknown } | undefined;
						this.types.set(`${flow}:${pair}`, String(event?.type));
						if (event?.possiblyRepeated === true) this.marked.set(`${flow}:${pair}`, (this.marked.get(`${flow}:${pair}`) ?? 0) + 1);
						return pair;
					});
					this.delivered.get(flow)?.push(...pairs);
					this.perExecution.get(flow)?.push([Number(execution.id), pairs.length]);
				});
				return [flow, reader] as const;
			}),
		);
	}

	/** Changes `flow` must deliver, made in `phase`. */
	expect(flow: Flow, phase: string, pairs: readonly string[]): void {
		const map = this.expected.get(flow) as Map<string, string>;
		for (const pair of pairs) map.set(pair, phase);
	}

	/**
	 * Changes `flow` may deliver once (as an update of every watched field, `_event.type` 'updated'),
	 * but need not: under Watch Fields, a change made while the baseline is still being read, to a
	 * record the baseline has not reached yet, leaves the trigger no earlier value to compare with.
	 */
	tolerate(flow: Flow, pairs: readonly string[]): void {
		const set = this.tolerated.get(flow) as Set<string>;
		for (const pair of pairs) set.add(pair);
	}

	async update(server: N8nServer): Promise<void> {
		for (const reader of this.readers.values()) await reader.update(server);
	}

	private deliveredCount(flow: Flow): number {
		const expected = this.expected.get(flow) as Map<string, string>;
		return new Set((this.delivered.get(flow) as string[]).filter((pair) => expected.has(pair))).size;
	}

	complete(): boolean {
		return FLOWS.every((flow) => this.deliveredCount(flow) >= (this.expected.get(flow) as Map<string, string>).size);
	}

	itemCount(): number {
		return FLOWS.reduce((sum, flow) => sum + (this.delivered.get(flow) as string[]).length, 0);
	}

	mark(mark: string): void {
		const delivered = Object.fromEntries(
			FLOWS.map((flow) => [flow, `${this.deliveredCount(flow)}/${(this.expected.get(flow) as Map<string, string>).size}`]),
		) as Record<Flow, string>;
		this.marks.push({ mark, atS: Math.round((Date.now() - this.started) / 1000), delivered });
	}

	private flowResult(flow: Flow): FlowResult {
		const expected = this.expected.get(flow) as Map<string, string>;
		const delivered = this.delivered.get(flow) as string[];
		const times = new Map<string, number>();
		for (const pair of delivered) times.set(pair, (times.get(pair) ?? 0) + 1);
		const missing = [...expected.keys()].filter((pair) => !times.has(pair));
		// A change sent again marked possiblyRepeated is announced as such: not a silent duplicate.
		const markedOf = (pair: string) => this.marked.get(`${flow}:${pair}`) ?? 0;
		const repeated = [...times].map(([pair, n]) => [pair, n - Math.min(markedOf(pair), n - 1)] as const).filter(([, n]) => n > 1);
		const markedRepeats = [...times].reduce((sum, [pair, n]) => sum + Math.min(markedOf(pair), n - 1), 0);
		const tolerated = this.tolerated.get(flow) as Set<string>;
		const earlierUnknown = (pair: string) => tolerated.has(pair) && this.types.get(`${flow}:${pair}`) === 'updated';
		const unexpected = [...times.keys()].filter((pair) => !expected.has(pair) && !earlierUnknown(pair));
		const missingByPhase: Record<string, number> = {};
		for (const pair of missing) {
			const phase = expected.get(pair) as string;
			missingByPhase[phase] = (missingByPhase[phase] ?? 0) + 1;
		}
		const reader = this.readers.get(flow) as ExecutionReader;
		return {
			expected: expected.size,
			delivered: expected.size - missing.length,
			missing: missing.length,
			duplicates: repeated.reduce((sum, [, n]) => sum + n - 1, 0),
			markedRepeats,
			unexpected: unexpected.length,
			tolerated: [...times.keys()].filter(earlierUnknown).length,
			missingByPhase,
			executions: reader.statuses(),
			errors: reader.errors.slice(0, 5),
			itemsPerExecution: [...(this.perExecution.get(flow) as Array<[number, number]>)].sort((a, b) => a[0] - b[0]).map(([, n]) => n),
			samples: { missing: missing.slice(0, 5), duplicates: repeated.slice(0, 5).map(([pair]) => pair), unexpected: unexpected.slice(0, 5) },
		};
	}

	/** The lane's result; also written to .e2e-tmp/durable-scheduler/<key>-<lane>.json. */
	result(userFolder: string): LaneResult {
		const logs = this.logs.join('\n');
		const slug = `${this.spec.key}-${this.spec.label}`.replace(/[^a-z0-9.]+/gi, '-').toLowerCase();
		const reportFile = path.join(TMP_DIR, 'durable-scheduler', `${slug}.json`);
		const result: LaneResult = {
			key: this.spec.key,
			lane: this.spec.label,
			durationS: Math.round((Date.now() - this.started) / 1000),
			flows: Object.fromEntries(FLOWS.map((flow) => [flow, this.flowResult(flow)])) as Record<Flow, FlowResult>,
			marks: this.marks,
			abandonedPolls: (logs.match(/Poll exceeded its timeout and was abandoned/g) ?? []).length,
			backoffs: (logs.match(/Poll failed; backing off/g) ?? []).length,
			requests: this.requests,
			problems: this.problems,
			pollLog: logs.split('\n').filter((line) => POLL_LOG.test(line)).slice(-300).map((line) => line.slice(0, 400)),
			userFolder,
			reportFile,
		};
		mkdirSync(path.dirname(reportFile), { recursive: true });
		writeFileSync(reportFile, JSON.stringify(result, null, 2));
		return result;
	}
}

/** One line per workflow: delivered/expected, missing by phase, repeats, unexpected, executions. */
export function summaryLines(result: LaneResult): string[] {
	const lines = [`${result.key} · ${result.lane}: ${result.durationS} s, ${result.requests} requests, ${result.abandonedPolls} polls abandoned, ${result.backoffs} back-offs`];
	for (const flow of FLOWS) {
		const r = result.flows[flow];
		const missing = Object.entries(r.missingByPhase).map(([phase, n]) => `${n} ${phase}`).join(', ');
		lines.push(
			`  ${flow}: ${r.delivered} of ${r.expected} delivered${missing ? ` (missing: ${missing})` : ''}, ${r.duplicates} repeated, ${r.markedRepeats} sent again marked, ${r.unexpected} unexpected, ${r.tolerated} with earlier values unknown, executions ${JSON.stringify(r.executions)} items ${r.itemsPerExecution.join(',')}`,
		);
		for (const error of r.errors) lines.push(`    failed execution ${error}`);
	}
	lines.push(`  marks: ${result.marks.map((m) => `${m.mark}@${m.atS}s ${JSON.stringify(m.delivered)}`).join(' · ')}`);
	return lines;
}
