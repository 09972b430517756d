import type { INodeProperties } from 'n8n-workflow';

export const CONCURRENCY_MAX = 10;

export const concurrencyOption: INodeProperties = {
	displayName: 'Concurrency',
	name: 'concurrency',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: CONCURRENCY_MAX },
	default: 1,
	description:
		'How many items are requested at the same time. When the API answers 429 (too many requests), every request of this node waits.',
};

/** The writes' Concurrency: the same setting, with what it keeps (one record's writes in order). */
export const writeConcurrencyOption: INodeProperties = {
	...concurrencyOption,
	description:
		'How many items are written at the same time. Items for one employee (the same ID, or the same value of the column matched on) are still written one after another, in input order. When the API answers 429 (too many requests), every request of this node waits.',
};

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
 */
export async function mapConcurrently<T>(
	count: number,
	limit: number,
	task: (index: number) => Promise<T>,
	stopped: (index: number) => boolean = () => false,
	keyOf: (index: number) => string | undefined = () => undefined,
): Promise<Array<PromiseSettledResult<T> | undefined>> {
	const results: Array<PromiseSettledResult<T> | undefined> = new Array(count);
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
	let next = 0;
	const worker = async () => {
		while (next < count && !stopped(next)) {
			const index = next++;
			const key = keyOf(index);
			const done = settle(index, key === undefined ? undefined : lastOfKey.get(key));
			if (key !== undefined) lastOfKey.set(key, done);
			await done;
			if (key !== undefined && lastOfKey.get(key) === done) lastOfKey.delete(key);
		}
	};
	await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, count)) }, worker));
	return results;
}
