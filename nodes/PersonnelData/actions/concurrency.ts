import type { INodeProperties } from 'n8n-workflow';

export const CONCURRENCY_MAX = 10;

/**
 * The writes' Concurrency (node version 2): a ceiling the node adapts under (adaptiveLimit.ts).
 * A first 1,000-row import makes about 600 writes; 150 ms away, 32 in flight take about 3.6 s in
 * real n8n, 1.7 times what n8n's HTTP Request nodes take sending all their 2,000 requests at once;
 * 64 in flight take half as many round trips (bench/results/latency.md). The adaptive limit still
 * starts at 4 and backs off before a server that struggles (429, 503, slower answers); the
 * maximum leaves room above the default for a user whose server takes more.
 */
export const WRITE_CONCURRENCY_DEFAULT = 64;
export const WRITE_CONCURRENCY_MAX = 128;

export const concurrencyOption: INodeProperties = {
	displayName: 'Concurrency',
	name: 'concurrency',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: CONCURRENCY_MAX },
	default: 1,
	description:
		'How many items are requested at the same time. When the API answers 429 (too many requests), every request of this node waits.',
};

/** The writes' Concurrency: a ceiling, adapted under; what it keeps (one record's writes in order). */
export const writeConcurrencyOption: INodeProperties = {
	...concurrencyOption,
	typeOptions: { minValue: 1, maxValue: WRITE_CONCURRENCY_MAX },
	default: WRITE_CONCURRENCY_DEFAULT,
	description:
		'At most how many items are written at the same time. The node starts with 4 and adapts: more while the API answers quickly, fewer when it answers 429 (too many requests) or 503 or slows down. Items for one record (the same ID, or the same value matched on) are still written one after another, in input order. 1 writes one item at a time.',
};

/** A limit on the tasks in flight that may change while they run (the writes' adaptive limit). */
export interface InFlightLimit {
	current(): number;
}

/**
 * Runs `task` for every index with at most `limit` in flight and returns results in index order.
 * Results are settled, so one failure does not hide the others (Continue On Fail needs them all).
 * Indexes start in order. Once `stopped(index)` says so for the next index (a failure under On
 * Error → Stop, or a cancelled execution), no further task starts; the ones in flight finish, and
 * the indexes never started stay `undefined`.
 *
 * Indexes for which `keyOf` gives the same key run one after another in index order (two writes
 * to one record), others overlap. An index whose key is still busy waits for it, holding its slot
 * (a slot is never given to a later index, so the order of starts stays the index order), then
 * asks `stopped(index)` again: what happened while it waited may mean it must not start.
 *
 * A limit that changes is read before every start: a lower one lets the tasks in flight finish and
 * starts the next once fewer run; a higher one starts more as soon as a task ends.
 */
export async function mapConcurrently<T>(
	count: number,
	limit: number | InFlightLimit,
	task: (index: number) => Promise<T>,
	stopped: (index: number) => boolean = () => false,
	keyOf: (index: number) => string | undefined = () => undefined,
): Promise<Array<PromiseSettledResult<T> | undefined>> {
	const results: Array<PromiseSettledResult<T> | undefined> = new Array(count);
	const limitNow = typeof limit === 'number' ? () => limit : () => limit.current();
	// The last index started or waiting per key: settles (never rejects) when that index is done.
	const lastOfKey = new Map<string, Promise<void>>();
	const settle = async (index: number, after: Promise<void> | undefined) => {
		if (after) {
			await after;
			if (stopped(index)) return;
		}
		try {
			results[index] = { status: 'fulfilled', value: await task(index) };
		} catch (reason) {
			results[index] = { status: 'rejected', reason };
		}
	};
	const running = new Set<Promise<void>>();
	for (let index = 0; index < count; index++) {
		// Wait for a free slot; any task ending may free one (or raise the limit).
		while (running.size >= Math.max(1, limitNow())) await Promise.race(running);
		if (stopped(index)) break;
		const key = keyOf(index);
		const done = settle(index, key === undefined ? undefined : lastOfKey.get(key));
		if (key !== undefined) lastOfKey.set(key, done);
		const slot = done.then(() => {
			running.delete(slot);
			if (key !== undefined && lastOfKey.get(key) === done) lastOfKey.delete(key);
		});
		running.add(slot);
	}
	await Promise.all(running);
	return results;
}
