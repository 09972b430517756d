import { sleepWithAbort } from 'n8n-workflow';

/** One attempt's answer, for whoever adapts the number of requests in flight (the writes' limit). */
export interface AttemptReport {
	/** The HTTP status; undefined when no answer came (a network error, a timeout). */
	status?: number;
	/** Date.now() when the attempt began. */
	startedAt: number;
	ms: number;
}

/** A write refused because an earlier item of the run failed under On Error → Stop: it was never sent. */
export class NotSentAfterFailure extends Error {}

/**
 * Shared by every request of one node run, so that a 429 seen by one concurrent request
 * pauses the others too instead of each discovering the limit by itself.
 */
export class RateGate {
	private resumeAt = 0;
	private readonly observers: Array<(report: AttemptReport) => void> = [];

	/** Under On Error → Stop: the item that failed first; writes of later items are no longer sent. */
	private failedItem = Number.POSITIVE_INFINITY;

	stopWritesAfter(itemIndex: number): void {
		this.failedItem = Math.min(this.failedItem, itemIndex);
	}

	/**
	 * An item started before an earlier one failed may reach its write only later (after a lookup
	 * they shared): checked just before every write is sent, so nothing is written after the failure is known.
	 */
	mayWrite(itemIndex: number | undefined): boolean {
		return itemIndex === undefined || itemIndex <= this.failedItem;
	}

	/** `observer` hears of every attempt of this node run from now on. */
	observe(observer: (report: AttemptReport) => void): void {
		this.observers.push(observer);
	}

	/** `observer` hears of no attempt from now on (a listing that ended). */
	unobserve(observer: (report: AttemptReport) => void): void {
		const index = this.observers.indexOf(observer);
		if (index >= 0) this.observers.splice(index, 1);
	}

	report(report: AttemptReport): void {
		for (const observer of this.observers) observer(report);
	}

	pauseFor(ms: number): void {
		this.resumeAt = Math.max(this.resumeAt, Date.now() + ms);
	}

	/** Rejects when `cancel` aborts (the execution was stopped), also when there is no pause. */
	async ready(cancel?: AbortSignal): Promise<void> {
		const wait = this.resumeAt - Date.now();
		if (wait > 0 || cancel?.aborted) await sleepWithAbort(Math.max(0, wait), cancel);
	}
}

const gates = new WeakMap<object, RateGate>();

export function gateFor(context: object): RateGate {
	let gate = gates.get(context);
	if (!gate) {
		gate = new RateGate();
		gates.set(context, gate);
	}
	return gate;
}
