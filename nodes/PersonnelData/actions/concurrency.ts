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

/**
 * Runs `task` for every index with at most `limit` in flight and returns results in index order.
 * Results are settled, so one failure does not hide the others (Continue On Fail needs them all).
 * Once `stopped()` says so (a failure under On Error → Stop, or a cancelled execution), no further
 * task starts; the ones in flight finish, and the indexes never started stay `undefined`.
 */
export async function mapConcurrently<T>(
	count: number,
	limit: number,
	task: (index: number) => Promise<T>,
	stopped: () => boolean = () => false,
): Promise<Array<PromiseSettledResult<T> | undefined>> {
	const results: Array<PromiseSettledResult<T> | undefined> = new Array(count);
	let next = 0;
	const worker = async () => {
		while (next < count && !stopped()) {
			const index = next++;
			try {
				results[index] = { status: 'fulfilled', value: await task(index) };
			} catch (reason) {
				results[index] = { status: 'rejected', reason };
			}
		}
	};
	await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, count)) }, worker));
	return results;
}
