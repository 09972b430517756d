import type { AttemptReport } from './rateGate';

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
 * congestion rule). It starts at ADAPTIVE_START and grows quickly, by one per clean answer
 * (doubling per round trip). It halves on 429 or 503 and when the average latency rises well above
 * the fastest answer (after a decrease, judged once a round of answers at the smaller limit is in).
 * After a refusal (429, 503) it grows by one per round of successes only: the server said where its
 * limit is. After a rise in latency alone (a busy moment, the node's own CPU)
 * it grows quickly again, doubling per round trip while the answers are clean, up to the limit it
 * had when the latency rose, and by one per round above: it is back at full speed in one round trip
 * instead of one per step. It never exceeds `ceiling` (the user's Concurrency) nor drops below 1.
 * Signals from requests that started before the last decrease are ignored: they were sent under the
 * old limit, and one overload answered by every request in flight is one signal, not twenty.
 *
 * Growing faster than doubling was measured against a server that admits N writes at once and
 * refuses the rest at once (test/transport/writeRamp.test.ts): answers come back together, each
 * starting 1 + growth requests, so tripling sent about twice the refusals (N = 8: 10 instead of 5;
 * N = 20: 26–30 instead of 21) for no gain in time; doubling is kept.
 */
export class AdaptiveLimit {
	private value: number;
	/** Grows quickly below this value; by one per round from it on (TCP's slow-start threshold). */
	private quicklyUpTo = Number.POSITIVE_INFINITY;
	/** A 429 or 503 was seen in this run: growth stays slow above where it halved to. */
	private refused = false;
	private successes = 0;
	private fastestMs = Number.POSITIVE_INFINITY;
	private averageMs: number | undefined;
	/** Clean answers averaged since the last decrease (or the start). */
	private judged = 0;
	private decreasedAt = Number.NEGATIVE_INFINITY;
	/** The highest value reached, for tests and measurements. */
	peak: number;

	/** With `stayBelowRefusal`: after a 429 or 503 it never again reaches the value refused at. */
	private refusedAt = Number.POSITIVE_INFINITY;

	/**
	 * `start`: where it begins (the writes: ADAPTIVE_START; the ranged reads: RANGES_START).
	 * `stayBelowRefusal` (the ranged reads): a server that refused at N in flight is taken at its
	 * word for the rest of the listing, instead of being asked again every few rounds: a refusal
	 * pauses every request of the run (rateGate.ts), which costs a read more than it gains.
	 */
	constructor(
		readonly ceiling: number,
		start = ADAPTIVE_START,
		private readonly stayBelowRefusal = false,
	) {
		this.value = Math.max(1, Math.min(ceiling, start));
		this.peak = this.value;
	}

	current(): number {
		return this.value;
	}

	/**
	 * One attempt's answer. `inFlight`: the caller's requests out when it came; a refusal then says
	 * the server's limit is at most that many (the limit itself may have grown past it meanwhile).
	 */
	report({ status, startedAt, ms }: AttemptReport, inFlight?: number): void {
		if (status === 429 || status === 503) {
			// Each further refusal among the requests that were out together says the server took one
			// fewer of them: the limit stays below what it took, not at half of what was sent.
			if (this.stayBelowRefusal && startedAt < this.decreasedAt && this.refused) {
				this.refusedAt = Math.max(2, this.refusedAt - 1);
				this.value = Math.max(1, Math.min(this.value, this.refusedAt - 1));
				return;
			}
			this.decrease(startedAt, true, inFlight);
			return;
		}
		if (status === undefined || status < 200 || status >= 300 || startedAt < this.decreasedAt) return;
		this.fastestMs = Math.min(this.fastestMs, ms);
		this.averageMs = this.averageMs === undefined ? ms : this.averageMs + LATENCY_WEIGHT * (ms - this.averageMs);
		this.judged++;
		if (this.averageMs > this.fastestMs * LATENCY_FACTOR + LATENCY_SLACK_MS) {
			// A smaller limit is judged by a round of its own answers, not by its first: that one may
			// still have queued behind the answers that led to the decrease (in the server, or in the
			// node's own event loop while it parsed them). Meanwhile a slow answer does not grow it.
			if (this.judged >= this.value) this.decrease(startedAt, false);
			return;
		}
		if (this.value < this.quicklyUpTo) {
			this.grow();
			return;
		}
		this.successes++;
		if (this.successes >= this.value) {
			this.successes = 0;
			this.grow();
		}
	}

	private grow(): void {
		// Quick growth stops at its bound; one per round takes it on from there.
		const bound = this.value < this.quicklyUpTo ? this.quicklyUpTo : Number.POSITIVE_INFINITY;
		this.value = Math.min(this.ceiling, bound, this.refusedAt - 1, this.value + 1);
		this.peak = Math.max(this.peak, this.value);
	}

	private decrease(startedAt: number, refused: boolean, inFlight?: number): void {
		if (startedAt < this.decreasedAt) return;
		this.successes = 0;
		const before = this.value;
		if (refused && this.stayBelowRefusal) this.refusedAt = Math.max(2, Math.min(this.refusedAt, before, inFlight ?? before));
		// Half, and below where it was refused: a server that refused 2 at once is not asked for 2 again.
		this.value = Math.max(1, Math.min(Math.floor(this.value / 2), this.refusedAt - 1));
		// A refusal ends quick growth for the run (the server said where its limit is); a rise in
		// latency alone (no refusal yet) lets it grow quickly back to where it rose.
		this.refused ||= refused;
		this.quicklyUpTo = this.refused ? this.value : before;
		this.decreasedAt = Date.now();
		// The slow answers that led here are history: judge the smaller limit by its own answers.
		this.averageMs = undefined;
		this.judged = 0;
	}
}
