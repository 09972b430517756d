import type { INodeProperties } from 'n8n-workflow';

import { ADAPTIVE_START } from './transport/adaptiveLimit';
import { checkWholeNumber } from './validation';

/**
 * Ranges pay where the node waits: while the first pages are read with one cursor, the share of
 * the time the process's event loop was idle (waiting for the network and the server) is measured;
 * at this share or more the rest is read in ranges side by side. Below it the node's own work
 * (parsing and checking pages, a server in the same process) is what takes the time, and parallel
 * walks would only add the probe and the boundary pages and compete for the CPU: the same cursor
 * goes on alone. A share, not a time per page: a slow machine lowers it as much as it raises the
 * node's work, a fast network lowers it as much as it shortens the wait. Measured with the
 * simulator in the test process (3,000 employees): none on loopback, 0.51–0.59 at 20 ms; with
 * ranges on loopback the read took 1.3 times one cursor's time, 20 ms away half of it.
 */
export const RANGES_WORTH_WAITING_PERCENT = 33;
export const RANGES_WORTH_WAITING_SHARE = RANGES_WORTH_WAITING_PERCENT / 100;

/**
 * The share in force. Tests of the ranges themselves set 0 (ranges even on loopback) or above 1
 * (never), and restore it: whether a machine under load counts as busy depends on timing.
 */
export const rangeTiming = { worthWaitingShare: RANGES_WORTH_WAITING_SHARE };

/**
 * Measures how much of the time the process's event loop was idle (waiting for I/O: the network and
 * the server) rather than running code (parsing pages, a server in the same process, anything
 * else): Node's own accounting of the loop (`eventLoopUtilization`), so time the machine gave to
 * other processes while the loop waited counts as waiting, not as the node's work.
 */
/** Node's `performance.eventLoopUtilization` (perf_hooks), typed here: the DOM's Performance type lacks it. */
interface LoopUse {
	idle: number;
	active: number;
	utilization: number;
}
const loop = performance as unknown as { eventLoopUtilization(since?: LoopUse): LoopUse };

export class WaitingMeter {
	private readonly start = loop.eventLoopUtilization();
	private share: number | undefined;

	/** The share of the time since the start that was spent waiting (0–1); the first call's answer is kept. */
	stop(): number {
		this.share ??= 1 - loop.eventLoopUtilization(this.start).utilization;
		return this.share;
	}
}

/**
 * Where the ranges' in-flight limit starts: where the writes' does. A server that takes fewer at
 * once refuses the rest once; they go again as soon as a request ends (retryPolicy.ts), and the
 * limit stays below where it was refused (adaptiveLimit.ts).
 */
export const RANGES_START = ADAPTIVE_START;
export const MAX_IN_FLIGHT_DEFAULT = 32;
export const MAX_IN_FLIGHT_CEILING = 128;

/** Options → Max Requests in Flight of Get Many: the ceiling the ranged Return All adapts under. */
export const maxInFlightOption: INodeProperties = {
	displayName: 'Max Requests in Flight',
	name: 'maxInFlight',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: MAX_IN_FLIGHT_CEILING },
	default: MAX_IN_FLIGHT_DEFAULT,
	description: `Return All only: at most how many pages are requested at the same time when the listing is read in ranges. The node starts with ${RANGES_START} and adapts: more while the API answers as quickly, fewer when it answers 429 (too many requests) or 503 or slows down. 1 reads one page after another.`,
};

/** Options → Max Requests in Flight as given (an expression may give text): a whole number, or a named error. */
export function readMaxInFlight(value: unknown): number {
	return value === undefined || value === '' ? MAX_IN_FLIGHT_DEFAULT : checkWholeNumber(value, 'Options › Max Requests in Flight', 1, MAX_IN_FLIGHT_CEILING);
}

/** At most `limit()` holders at once; the limit may change while they hold (an adaptive limit). */
export class Slots {
	private busy = 0;
	private waiting: Array<() => void> = [];

	constructor(private readonly limit: () => number) {}

	async take(): Promise<void> {
		while (this.busy >= Math.max(1, this.limit())) await new Promise<void>((resolve) => this.waiting.push(resolve));
		this.busy++;
	}

	/** How many hold a slot now. */
	holding(): number {
		return this.busy;
	}

	give(): void {
		this.busy--;
		for (const resolve of this.waiting.splice(0)) resolve();
	}
}
