import type { AttemptReport } from '../../shared/transport/rateGate';

/** Where the writes' adaptive limit starts: a systematic failure (every write refused) costs at most this many writes. */
export const ADAPTIVE_START = 4;

/**
 * A request is "slow" when it takes more than this factor of the fastest one seen in the run, plus
 * LATENCY_SLACK_MS: jitter on a distant server and the node's own CPU time on loopback stay below it,
 * a server queueing our requests goes above it.
 */
const LATENCY_FACTOR = 2;
const LATENCY_SLACK_MS = 100;
/** Weight of the newest latency in the running average: one slow answer alone does not count as congestion. */
const LATENCY_WEIGHT = 0.2;

/**
 * How many requests the node keeps in flight: additive increase, multiplicative decrease (TCP's
 * congestion rule). It starts at ADAPTIVE_START, grows by one per success until the first sign of
 * load (doubling per round trip), then by one per round of successes; it halves on 429 or 503 and
 * when the average latency rises well above the fastest answer. It never exceeds `ceiling` (the
 * user's Concurrency) nor drops below 1. Signals from requests that started before the last
 * decrease are ignored: they were sent under the old limit, and one overload answered by every
 * request in flight is one signal, not twenty.
 */
export class AdaptiveLimit {
	private value: number;
	private growing = true;
	private successes = 0;
	private fastestMs = Number.POSITIVE_INFINITY;
	private averageMs: number | undefined;
	private decreasedAt = Number.NEGATIVE_INFINITY;
	/** The highest value reached, for tests and measurements. */
	peak: number;

	constructor(readonly ceiling: number) {
		this.value = Math.max(1, Math.min(ceiling, ADAPTIVE_START));
		this.peak = this.value;
	}

	current(): number {
		return this.value;
	}

	report({ status, startedAt, ms }: AttemptReport): void {
		if (status === 429 || status === 503) {
			this.decrease(startedAt);
			return;
		}
		if (status === undefined || status < 200 || status >= 300 || startedAt < this.decreasedAt) return;
		this.fastestMs = Math.min(this.fastestMs, ms);
		this.averageMs = this.averageMs === undefined ? ms : this.averageMs + LATENCY_WEIGHT * (ms - this.averageMs);
		if (this.averageMs > this.fastestMs * LATENCY_FACTOR + LATENCY_SLACK_MS) {
			this.decrease(startedAt);
			return;
		}
		this.successes++;
		if (this.growing || this.successes >= this.value) {
			this.successes = 0;
			this.value = Math.min(this.ceiling, this.value + 1);
			this.peak = Math.max(this.peak, this.value);
		}
	}

	private decrease(startedAt: number): void {
		if (startedAt < this.decreasedAt) return;
		this.growing = false;
		this.successes = 0;
		this.value = Math.max(1, Math.floor(this.value / 2));
		this.decreasedAt = Date.now();
		// The slow answers that led here are history: judge the smaller limit by its own answers.
		this.averageMs = undefined;
	}
}
