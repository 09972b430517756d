import type { INodeProperties } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { checkWholeNumber } from './validation';

/**
 * Ranges pay where the node mostly waits: while the first pages are read with one cursor, the share
 * of the time the node's process was idle (waiting for the network and the server) is measured; at
 * this share or more the rest is read in ranges side by side. Below it the node's own work (parsing
 * and checking pages, and on loopback the connections' own work) is what takes the time, and
 * parallel walks would only add the probe and the boundary pages and compete for the CPU: the same
 * cursor goes on alone. A share, not a time per page: a slow machine lowers it as much as it raises
 * the node's work, a fast network lowers it as much as it shortens the wait. Two thirds: waiting at
 * least twice the node's own work. On loopback (the simulator in the same process, 10,000 records)
 * about half the time is idle, and ranges there took 1.3 times one cursor's time; 20 ms away they
 * took half of it.
 */
export const RANGES_WAIT_TO_WORK = 2;
export const RANGES_WORTH_WAITING_SHARE = RANGES_WAIT_TO_WORK / (RANGES_WAIT_TO_WORK + 1);

/**
 * The share in force. Tests of the ranges themselves set 0 (ranges even on loopback) or above 1
 * (never), and restore it: whether a machine under load counts as busy depends on timing.
 */
export const rangeTiming = { worthWaitingShare: RANGES_WORTH_WAITING_SHARE };

/** How often the meter looks at the clock (ms), and how late a tick may be before it counts as busy. */
const TICK_MS = 1;
const TICK_SLACK_MS = 0.5;

/**
 * Measures how much of the time the process was idle: a tick every TICK_MS that comes late came late
 * because the process was busy (parsing a page, the server in the same process, anything else).
 */
export class WaitingMeter {
	private busyMs = 0;
	private running = true;
	private readonly startedAt = performance.now();

	constructor() {
		void this.tick();
	}

	private async tick(): Promise<void> {
		while (this.running) {
			const before = performance.now();
			await sleep(TICK_MS);
			this.busyMs += Math.max(0, performance.now() - before - TICK_MS - TICK_SLACK_MS);
		}
	}

	/** Stops the ticks; the share of the time since the start that was spent waiting (0–1). */
	stop(): number {
		this.running = false;
		const elapsed = performance.now() - this.startedAt;
		return elapsed <= 0 ? 0 : Math.max(0, 1 - this.busyMs / elapsed);
	}
}

/** Where the ranges' in-flight limit starts: a server that takes one request at a time refuses one at most. */
export const RANGES_START = 2;
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
