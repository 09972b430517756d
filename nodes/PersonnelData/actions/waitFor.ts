import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import type { ResourceDefinition } from '../../shared/registry';
import { InputError, WaitTimeoutError } from '../../shared/errors';

type WaitFor = NonNullable<ResourceDefinition['waitFor']>;

export function waitForOptions(waitFor: WaitFor): INodeProperties[] {
	return [
		{
			displayName: `Wait for ${waitFor.label}`,
			name: 'waitUntilDone',
			type: 'boolean',
			default: false,
			description: `Whether to poll until ${waitFor.field} is "${waitFor.doneValue}", backing off between polls`,
		},
		{
			displayName: 'Wait Timeout (Seconds)',
			name: 'waitTimeout',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 300,
			description: `How long to wait for ${waitFor.field} "${waitFor.doneValue}" before failing`,
		},
		{
			displayName: 'First Poll Interval (Seconds)',
			name: 'waitInterval',
			type: 'number',
			typeOptions: { minValue: 0.1 },
			default: 2,
			description: 'Pause before the second poll; each later pause is 1.5 times longer, at most 60 seconds',
		},
	];
}

const BACKOFF_FACTOR = 1.5;
const INTERVAL_MAX_MS = 60_000;

function positiveSeconds(value: unknown, fallback: number, label: string): number {
	const seconds = value === undefined ? fallback : Number(value);
	if (!Number.isFinite(seconds) || seconds <= 0) throw new InputError(`Options › ${label}: expected a positive number of seconds`);
	return seconds;
}

export interface WaitSettings {
	timeoutMs: number;
	firstIntervalMs: number;
}

/** The wait options, checked before the first request. */
export function readWaitSettings(options: IDataObject): WaitSettings {
	return {
		timeoutMs: positiveSeconds(options.waitTimeout, 300, 'Wait Timeout (Seconds)') * 1000,
		firstIntervalMs: positiveSeconds(options.waitInterval, 2, 'First Poll Interval (Seconds)') * 1000,
	};
}

/** Polls until the record reaches its final status; fails (naming it) when the time is up. */
export async function waitUntilDone(
	fetchOnce: () => Promise<IDataObject>,
	waitFor: WaitFor,
	{ timeoutMs, firstIntervalMs }: WaitSettings,
	subject: string,
): Promise<IDataObject> {
	let intervalMs = firstIntervalMs;
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const record = await fetchOnce();
		if (record[waitFor.field] === waitFor.doneValue) return record;
		const remaining = deadline - Date.now();
		if (remaining <= 0) {
			throw new WaitTimeoutError(
				`${subject} is still "${String(record[waitFor.field])}" after ${timeoutMs / 1000} s; expected "${waitFor.doneValue}". Raise Wait Timeout or check the target system.`,
			);
		}
		await sleep(Math.min(intervalMs, remaining));
		intervalMs = Math.min(INTERVAL_MAX_MS, intervalMs * BACKOFF_FACTOR);
	}
}
