/** Shared helpers of the Personnel Data Trigger tests (run over HTTP against the simulator). */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import type { EmittedType } from '../../../nodes/PersonnelDataTrigger/events';
import type { PollResult } from '../../../scripts/harness';
import type { QueuedFault } from '../../../scripts/simulator/faults';
import type { Simulator } from '../../../scripts/simulator/simulator';
import type { SimRecord } from '../../../scripts/simulator/types';
import type { TestBed } from '../setup';
import { useCredential } from '../setup';

export const NODE_NAME = 'Personnel Data Trigger';
export const NODE_TYPE = 'personnelDataTrigger';

export interface EmittedEvent {
	type: EmittedType;
	resource: string;
	changedAt: string;
}

/** One emitted item: the record plus `_event`. */
export type EmittedRecord = IDataObject & { id: string; _event: EmittedEvent };

export interface TriggerPoll extends PollResult {
	records: EmittedRecord[];
}

/** One poll of the trigger; `records` is the emitted items' JSON (empty when nothing was emitted). */
export async function poll(bed: TestBed, parameters: INodeParameters, mode: 'trigger' | 'manual' = 'trigger'): Promise<TriggerPoll> {
	const result = await bed.runtime.poll({ nodeType: NODE_TYPE, parameters, mode });
	const items: INodeExecutionData[] = result.items?.[0] ?? [];
	if (result.items !== undefined && result.items !== null) {
		// n8n runs no execution for an empty output: "nothing new" must be null, never [[]].
		expect(items.length).toBeGreaterThan(0);
	}
	return { ...result, records: items.map((item) => item.json as EmittedRecord) };
}

/** Polls and fails the test with the node's message when the poll threw. */
export async function pollOk(bed: TestBed, parameters: INodeParameters, mode: 'trigger' | 'manual' = 'trigger'): Promise<TriggerPoll> {
	const result = await poll(bed, parameters, mode);
	if (result.error) throw new Error(`poll failed unexpectedly: ${result.error.message}`);
	return result;
}

export const pairOf = (id: string, at: string): string => `${id}@${at}`;

/** `(id, changedAt)` of each emitted record, checking `_event` against the record itself. */
export function emittedPairs(records: readonly EmittedRecord[], field = 'updated_at'): string[] {
	return records.map((record) => {
		expect(record._event.changedAt).toBe(record[field]);
		return pairOf(record.id, record._event.changedAt);
	});
}

export function changePairs(records: readonly SimRecord[], field = 'updated_at'): string[] {
	return records.map((record) => pairOf(record.id, String(record[field])));
}

/** Elements that occur more than once. */
export function duplicates(values: readonly string[]): string[] {
	const seen = new Set<string>();
	const twice = new Set<string>();
	for (const value of values) (seen.has(value) ? twice : seen).add(value);
	return [...twice];
}

/** The static data the trigger keeps, as n8n would persist it. */
export function stateOf(bed: TestBed): IDataObject {
	return bed.runtime.staticData(NODE_NAME);
}

export function stateBytes(bed: TestBed): number {
	return Buffer.byteLength(JSON.stringify(stateOf(bed)), 'utf8');
}

/**
 * Fails the `nth` request (1-based, counted from now) whose path starts with `pathPrefix`, and the
 * `count - 1` matching requests after it. The simulator's queue fails the *next* requests; this
 * arms it only when the earlier pages have been served, so that a later page of a poll fails.
 * Returns a function that removes the hook.
 */
export function failNthRequest(sim: Simulator, pathPrefix: string, nth: number, fault: Omit<QueuedFault, 'pathPrefix'>): () => void {
	const faults = sim.faults;
	const decide = faults.decide.bind(faults);
	let seen = 0;
	faults.decide = (method: string, path: string, rawQuery?: string) => {
		if (faults.appliesTo(path) && path.startsWith(pathPrefix) && ++seen === nth) faults.enqueue({ ...fault, pathPrefix });
		return decide(method, path, rawQuery);
	};
	return () => {
		faults.decide = decide;
	};
}

/** List requests (not provisioning) the simulator received since `fromSeq`. */
export function listRequestsSince(sim: Simulator, fromSeq: number) {
	return sim.requests().filter((entry) => entry.seq > fromSeq && !entry.path.startsWith('/provisioning'));
}

export function lastSeq(sim: Simulator): number {
	const entries = sim.requests(1);
	return entries.length === 0 ? 0 : entries[0].seq;
}

/** Points the bed's credential at another server (a proxy in front of the simulator). */
export function useServer(bed: TestBed, baseUrl: string): void {
	useCredential(bed);
	const stored = bed.runtime.storedCredentials('personnelDataApi') ?? {};
	bed.runtime.setCredentials('personnelDataApi', { ...stored, baseUrl });
}

/** A list answer as a proxy may reshape it. */
export interface ListBody {
	data?: unknown;
	pagination?: Record<string, unknown>;
	total_count?: unknown;
}

/**
 * A server in front of the simulator that passes every request on and `reshape`s each JSON answer
 * (for servers that place or give `total_count` differently). Requests still reach the simulator,
 * so its stats and request log count them.
 */
export async function reshapingProxy(target: string, reshape: (body: ListBody) => void): Promise<{ baseUrl: string; close: () => Promise<void> }> {
	const server = createServer((req, res) => {
		void (async () => {
			const chunks: Buffer[] = [];
			for await (const chunk of req) chunks.push(chunk as Buffer);
			const headers = new Headers();
			for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string' && name !== 'host') headers.set(name, value);
			const answer = await fetch(`${target}${req.url ?? ''}`, {
				method: req.method,
				headers,
				body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
			});
			let text = await answer.text();
			try {
				const body = JSON.parse(text) as ListBody;
				reshape(body);
				text = JSON.stringify(body);
			} catch {
				// not JSON: passed on as it is
			}
			res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
			res.end(text);
		})().catch(() => res.destroy());
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}`,
		close: () =>
			new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			}),
	};
}

/** Leaves `total_count` out of every answer (the spec promises it only without a condition; a server may not give it at all). */
export const withoutTotalCount = (target: string) =>
	reshapingProxy(target, (body) => {
		if (body.pagination) delete body.pagination.total_count;
	});

/** Moves `total_count` from `pagination` to the top of the body: `{data, pagination, total_count}`. */
export const totalCountAtTopLevel = (target: string) =>
	reshapingProxy(target, (body) => {
		if (body.pagination?.total_count === undefined) return;
		body.total_count = body.pagination.total_count;
		delete body.pagination.total_count;
	});

export interface TriggerSession {
	poll(): Promise<TriggerPoll>;
}

/**
 * Activates the trigger as n8n does (one context for the activation and its scheduled polls,
 * static data saved after the activation poll and when a poll emits) and runs the activation
 * poll. `activation`: `activate` (turned on), `update` (republished), `init` (n8n started).
 */
export async function activateTrigger(
	bed: TestBed,
	parameters: INodeParameters,
	options: { activation?: 'activate' | 'update' | 'init'; nodeName?: string } = {},
): Promise<{ session: TriggerSession; first: TriggerPoll }> {
	const running = bed.runtime.activatePolling({ nodeType: NODE_TYPE, parameters, activation: options.activation, nodeName: options.nodeName });
	const session: TriggerSession = {
		poll: async () => {
			const result = await running.poll();
			const items: INodeExecutionData[] = result.items?.[0] ?? [];
			if (result.items !== undefined && result.items !== null) expect(items.length).toBeGreaterThan(0);
			return { ...result, records: items.map((item) => item.json as EmittedRecord) };
		},
	};
	return { session, first: await session.poll() };
}
