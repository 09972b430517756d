import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import type { RequestLogEntry } from '../../../scripts/simulator/requestLog';
import type { ExecuteOptions, ExecuteResult } from '../../../scripts/harness';
import type { TestBed } from '../setup';

export const NODE = 'personnelData';

/** A resource locator as the editor stores it. */
export const byId = (value: string) => ({ __rl: true, mode: 'id', value });
export const fromList = (value: string) => ({ __rl: true, mode: 'list', value });

export interface RunOptions {
	items?: INodeExecutionData[];
	continueOnFail?: boolean;
	/** The node's On Error setting (overrides `continueOnFail`). */
	onError?: ExecuteOptions['onError'];
	/**
	 * The node version; default 1, the version these suites' parameters were written for (the read
	 * operations are the same in every version; version 2 changes the employee writes' forms).
	 */
	typeVersion?: number;
}

/** Runs the action node once, with the simulator's request log cleared first. */
export async function run(bed: TestBed, parameters: INodeParameters, options: RunOptions = {}): Promise<ExecuteResult> {
	bed.simulator.sim.clearRequests();
	return await bed.runtime.execute({
		nodeType: NODE,
		typeVersion: options.typeVersion ?? 1,
		parameters,
		items: options.items,
		continueOnFail: options.continueOnFail,
		onError: options.onError,
	});
}

/** Output items of the first output; fails the test with the node's error when it threw. */
export function outputOf(result: ExecuteResult): INodeExecutionData[] {
	if (result.error) throw result.error;
	return result.items?.[0] ?? [];
}

export const jsonOf = (result: ExecuteResult): IDataObject[] => outputOf(result).map((item) => item.json);

/** Requests that reached the API (provisioning left out). */
export function apiRequests(bed: TestBed): RequestLogEntry[] {
	return bed.simulator.sim.requests().filter((entry) => !entry.path.startsWith('/provisioning'));
}

/** Every `key=value` pair of a raw query string, decoded, in order. */
export function queryPairs(rawQuery: string): Array<[string, string]> {
	if (rawQuery === '') return [];
	return rawQuery.split('&').map((pair) => {
		const at = pair.indexOf('=');
		const key = at === -1 ? pair : pair.slice(0, at);
		const value = at === -1 ? '' : pair.slice(at + 1);
		return [decodeURIComponent(key), decodeURIComponent(value)];
	});
}

/** The values of one query parameter. */
export function queryValues(rawQuery: string, name: string): string[] {
	return queryPairs(rawQuery)
		.filter(([key]) => key === name)
		.map(([, value]) => value);
}

export const idsOf = (records: readonly IDataObject[]): string[] => records.map((record) => String(record.id));

export const UNKNOWN_UUID = '00000000-0000-4000-8000-000000000000';

/** Overlaps shorter than this are the two clocks' rounding, not requests answered at once. */
const CLOCK_SLACK_MS = 1;

/**
 * The most requests the simulator was answering at one moment: each entry spans its arrival (the
 * simulator clock, microseconds) to arrival + its duration, latency included.
 */
export function maxInFlight(entries: readonly RequestLogEntry[]): number {
	const edges: Array<[number, number]> = [];
	for (const entry of entries) {
		const start = Date.parse(entry.at) + Number(/\.\d{3}(\d{3})/.exec(entry.at)?.[1] ?? 0) / 1000;
		edges.push([start, 1], [start + entry.durationMs - CLOCK_SLACK_MS, -1]);
	}
	// An end and a start at the same instant do not overlap: ends first.
	edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
	let current = 0;
	let most = 0;
	for (const [, change] of edges) {
		current += change;
		most = Math.max(most, current);
	}
	return most;
}

/**
 * The servers the spec allows for the writes it leaves open: a PATCH of `custom_properties` (the
 * spec says nothing of that object) merges the keys given or replaces the object whole; a PUT of a
 * dated property replaces its history or adds the entries by date (a server that tracks every
 * field by date). The write suites run on both.
 */
export const PATCH_SERVERS = [
	{ name: 'merges custom_properties on PATCH and replaces a history on PUT', variation: { customPropertiesPatch: 'merge' as const, putDatedProperties: 'replace' as const } },
	{ name: 'replaces custom_properties on PATCH and adds history entries by date on PUT', variation: { customPropertiesPatch: 'replace' as const, putDatedProperties: 'mergeByDate' as const } },
];
