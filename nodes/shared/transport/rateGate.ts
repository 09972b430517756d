import { sleepWithAbort } from 'n8n-workflow';

/**
 * Shared by every request of one node run, so that a 429 seen by one concurrent request
 * pauses the others too instead of each discovering the limit by itself.
 */
export class RateGate {
	private resumeAt = 0;

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
