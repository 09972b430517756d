import type { Rng } from './rng';

/** Probabilities (0–1) of random faults, plus latency. All default to off. */
export interface FaultConfig {
	rate429: number;
	/** `Retry-After` seconds sent with 429; 0 is allowed. */
	retryAfterSeconds: number;
	rate500: number;
	/** One of 502, 503 or 504, chosen at random. */
	rate5xx: number;
	/** The socket is destroyed without any response. */
	rateDrop: number;
	latencyMs: number;
	/** Up to this many ms more per request, uniformly at random (a real network's jitter). */
	jitterMs: number;
	/**
	 * A rate limit by requests being answered at once (0: none): a request that arrives while this
	 * many are in progress gets 429 with `retryAfterSeconds`, what a server protecting itself does.
	 */
	maxInFlight: number;
	/** Whether faults also hit `/provisioning/...` (default true). */
	applyToProvisioning: boolean;
}

/** "Fail the next `count` requests whose path starts with `pathPrefix` with `status`." */
export interface QueuedFault {
	pathPrefix: string;
	/**
	 * An HTTP status, 'drop' to destroy the socket, or 'html200' for a 200 with an HTML page (what a
	 * misconfigured proxy answers with its login page).
	 */
	status: number | 'drop' | 'html200';
	count: number;
	method?: string;
	/** Only requests whose raw query contains this text (e.g. `pagination%5Bafter%5D`: not the first page). */
	queryIncludes?: string;
	retryAfterSeconds?: number;
	/** Replaces the configured latency for these replies (0: answer at once while others wait). */
	latencyMs?: number;
}

export type FaultDecision =
	| { kind: 'none' }
	| { kind: 'drop' }
	| { kind: 'html200' }
	| { kind: 'status'; status: number; retryAfterSeconds?: number; latencyMs?: number };

export const DEFAULT_FAULTS: FaultConfig = {
	rate429: 0,
	retryAfterSeconds: 1,
	rate500: 0,
	rate5xx: 0,
	rateDrop: 0,
	latencyMs: 0,
	jitterMs: 0,
	maxInFlight: 0,
	applyToProvisioning: true,
};

export class FaultInjector {
	config: FaultConfig = { ...DEFAULT_FAULTS };
	queue: QueuedFault[] = [];

	constructor(private readonly rng: Rng) {}

	configure(patch: Partial<FaultConfig>): FaultConfig {
		this.config = { ...this.config, ...patch };
		return this.config;
	}

	enqueue(fault: QueuedFault): void {
		this.queue.push({ ...fault });
	}

	clear(): void {
		this.config = { ...DEFAULT_FAULTS };
		this.queue = [];
	}

	appliesTo(path: string): boolean {
		if (path.startsWith('/__sim')) return false;
		return this.config.applyToProvisioning || !path.startsWith('/provisioning');
	}

	/** The queue is deterministic and wins over the random rates. */
	decide(method: string, path: string, rawQuery = ''): FaultDecision {
		if (!this.appliesTo(path)) return { kind: 'none' };
		const queued = this.queue.find(
			(f) =>
				path.startsWith(f.pathPrefix) &&
				(!f.method || f.method.toUpperCase() === method) &&
				(f.queryIncludes === undefined || rawQuery.includes(f.queryIncludes)),
		);
		if (queued) {
			queued.count--;
			if (queued.count <= 0) this.queue = this.queue.filter((f) => f !== queued);
			if (queued.status === 'drop') return { kind: 'drop' };
			if (queued.status === 'html200') return { kind: 'html200' };
			return {
				kind: 'status',
				status: queued.status,
				retryAfterSeconds: queued.retryAfterSeconds ?? this.config.retryAfterSeconds,
				latencyMs: queued.latencyMs,
			};
		}
		return this.random();
	}

	private random(): FaultDecision {
		const c = this.config;
		if (c.rateDrop > 0 && this.rng.chance(c.rateDrop)) return { kind: 'drop' };
		if (c.rate429 > 0 && this.rng.chance(c.rate429)) return { kind: 'status', status: 429, retryAfterSeconds: c.retryAfterSeconds };
		if (c.rate500 > 0 && this.rng.chance(c.rate500)) return { kind: 'status', status: 500 };
		if (c.rate5xx > 0 && this.rng.chance(c.rate5xx)) return { kind: 'status', status: this.rng.pick([502, 503, 504]) };
		return { kind: 'none' };
	}
}
