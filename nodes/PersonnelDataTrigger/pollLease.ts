/** A stored state, as far as the lease compares them. */
interface Revised {
	revision: number;
}

/**
 * What this n8n process knows about the polls of each trigger (workflow id + node name, the key
 * n8n's static data uses too): whether one is running, and the state the last one stored.
 *
 * Why in-process: n8n runs polling triggers only on the main instance (in queue mode too; with
 * several mains, on the leader), and nothing in n8n stops a slow poll from overlapping the next
 * one. Static data cannot serve as a lock: n8n saves it only after the activation poll and when a
 * poll emits, and another process reads it only when it activates the workflow.
 *
 * Why the stored state is kept here as well: a workflow turned off and on (or republished) while
 * a poll is still running gets a fresh copy of its static data from the database; the running
 * poll's result lands in the old copy. On n8n's durable scheduler without durable cursors, n8n
 * saves the state of a poll only when it emits. The next poll takes whichever copy has the higher
 * revision. poll.ts (`carriedInProcess`) decides which states are kept here: never one that would
 * carry the trigger past changes n8n did not take (an abandoned poll, dropped items).
 */
interface Slot {
	holder: object | null;
	/** When the holder last made progress (acquired, or a request answered). */
	progressAt: number;
	committed: Revised | undefined;
	/** The state a poll emitted that n8n saves itself (see `awaitsSave`), and when. */
	emitted: { revision: number; at: number } | undefined;
	/** The revision of the last state a poll of this process stored (handOver.ts). */
	storedRevision: number | undefined;
}

/**
 * How long a poll waits for n8n to save the state the previous poll emitted. n8n's durable
 * scheduler without durable cursors saves it in the background while the execution starts (seen
 * landing 3.4 s late under load); a poll that read the older state would send the same changes
 * again. Past this, the emitted items are taken to be dropped (a workflow deactivated during the
 * poll) and the changes are read again. A poll every minute never waits.
 */
export const SAVE_WAIT_MS = 10_000;

/**
 * A running poll that has made no progress for this long is taken to be hung: the next poll takes
 * the lease over, and the old one, should it ever finish, stores and emits nothing. A request
 * cannot take this long (the transport bounds each attempt and every wait), so only a poll that
 * will never finish is overtaken.
 */
export const LEASE_STALE_MS = 15 * 60_000;

const slots = new Map<string, Slot>();

export function leaseKey(workflowId: string | undefined, nodeName: string): string {
	return `${workflowId ?? ''}\u0000${nodeName}`;
}

export class PollLease {
	private constructor(
		private readonly slot: Slot,
		private readonly token: object,
	) {}

	/** The lease, or undefined while another poll of the same trigger is running. */
	static acquire(key: string, now = Date.now()): PollLease | undefined {
		let slot = slots.get(key);
		if (!slot) {
			slot = { holder: null, progressAt: now, committed: undefined, emitted: undefined, storedRevision: undefined };
			slots.set(key, slot);
		}
		if (slot.holder !== null && now - slot.progressAt < LEASE_STALE_MS) return undefined;
		const token = {};
		slot.holder = token;
		slot.progressAt = now;
		return new PollLease(slot, token);
	}

	/** False once a newer poll has taken the lease over: this one must store and emit nothing. */
	get held(): boolean {
		return this.slot.holder === this.token;
	}

	progress(now = Date.now()): void {
		if (this.held) this.slot.progressAt = now;
	}

	/** The newer of the stored state and the last one stored by a poll in this process. */
	newest<State extends Revised>(stored: State | undefined): State | undefined {
		// A trigger's slot only ever holds the states its own polls stored.
		const committed = this.slot.committed as State | undefined;
		if (!committed) return stored;
		if (!stored) return committed;
		return committed.revision > stored.revision ? committed : stored;
	}

	commit(state: Revised): void {
		if (this.held) {
			this.slot.committed = state;
			this.slot.storedRevision = state.revision;
		}
	}

	/** A poll emitted `state`, which n8n stores with (or after) the execution it starts. */
	expectSave(state: Revised, now = Date.now()): void {
		if (this.held) {
			this.slot.emitted = { revision: state.revision, at: now };
			this.slot.storedRevision = state.revision;
		}
	}

	/** Whether a poll of this process stored `state` (or a later one): the process lived on since. */
	storedHere(state: Revised): boolean {
		return this.slot.storedRevision !== undefined && this.slot.storedRevision >= state.revision;
	}

	/**
	 * True while the stored state is older than the one the previous poll emitted and n8n may still
	 * be saving it: this poll must not read (it would repeat those changes), nor move anything.
	 */
	awaitsSave(stored: Revised | undefined, now = Date.now()): boolean {
		const emitted = this.slot.emitted;
		if (emitted === undefined) return false;
		if ((stored?.revision ?? -1) >= emitted.revision || now - emitted.at > SAVE_WAIT_MS) {
			this.slot.emitted = undefined;
			return false;
		}
		return true;
	}

	release(): void {
		if (this.held) this.slot.holder = null;
	}
}

/** What a new n8n process starts with: nothing known of any trigger (the tests' restarts use it). */
export function forgetProcess(): void {
	slots.clear();
}

const seenContexts = new WeakSet<object>();

/**
 * n8n builds one poll context when it activates a workflow and uses it for that activation's
 * every scheduled poll (ActiveWorkflows.activatePolling): a context not seen before is an
 * activation's first poll. The durable scheduler builds a context for every poll: there
 * `PollClock.scheduled` says that a poll is not an activation.
 */
export function isActivationPoll(context: object): boolean {
	if (seenContexts.has(context)) return false;
	seenContexts.add(context);
	return true;
}
