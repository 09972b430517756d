import type { ChangeState, HandOver } from './changeState';
import type { PollRun, PollSetup } from './setup';

/**
 * The hand-over on n8n's default scheduler. There n8n takes a poll's items by starting two saves
 * without awaiting them together: the workflow's static data (the trigger's new position) and the
 * new execution. n8n stopped between the two keeps the position without the execution, and that
 * poll's changes would be lost (seen on n8n 2.8.4 with SIGTERM about 27 ms after a poll's answers).
 *
 * So a poll that hands changes over there also stores where the trigger stood before it, and when.
 * The next poll in the same n8n process knows the hand-over went through (the process lived on:
 * n8n had started the execution) and drops that mark. A poll in a new process that started within
 * `HAND_OVER_WINDOW_MS` of the hand-over cannot know: it reads from the earlier position again and
 * sends that poll's changes once more, each marked `_event.possiblyRepeated: true`, so a workflow
 * can skip the ones it already has; changes after them come unmarked. An older mark is dropped
 * (the process that set it lived on long past the hand-over). On the durable scheduler n8n commits the position with the execution (durable
 * cursors) or saves it after the execution starts; no mark is kept there. Not with a Look-Back
 * Window or Watch Fields, whose state a poll changes beyond the position (docs/trigger.md).
 */

/**
 * A new process (this package loaded) this soon after a hand-over may follow an n8n stopped inside
 * it: the time n8n takes to stop and start again, with room. Counted from when this process loaded
 * the package (n8n loads it to activate its triggers at start).
 */
export const HAND_OVER_WINDOW_MS = 120_000;
const PROCESS_STARTED_AT = Date.now();

/** Whether this poll keeps the mark when it hands changes over. */
export function marksHandOver(setup: PollSetup, run: PollRun): boolean {
	return !run.clock.scheduled && setup.lookbackMs === 0 && setup.watch === undefined;
}

/** The position `state` stands at, marked as handed over now. */
export function positionOf(state: ChangeState, now = Date.now()): HandOver {
	const { watermark, idsAtWatermark, knownAtWatermark, countAtWatermark, resume, groupCheck } = state;
	return { watermark, idsAtWatermark, knownAtWatermark, countAtWatermark, resume, groupCheck, at: now };
}

export interface Resolved {
	/** The state to read from: the stored one without its mark, or the position before the hand-over. */
	state: ChangeState;
	/** Changes at or before this timestamp may have been handed over already (new process); null: none. */
	repeatedUpTo: string | null;
}

/** The state a poll reads from, given a stored mark and whether this process stored that state. */
export function resolveHandOver(stored: ChangeState, storedHere: boolean, processStartedAt = PROCESS_STARTED_AT): Resolved {
	const { handOver } = stored;
	if (handOver === null) return { state: stored, repeatedUpTo: null };
	if (storedHere || processStartedAt - handOver.at > HAND_OVER_WINDOW_MS) return { state: { ...stored, handOver: null }, repeatedUpTo: null };
	const { watermark, idsAtWatermark, knownAtWatermark, countAtWatermark, resume, groupCheck } = handOver;
	const earlier = { watermark, idsAtWatermark, knownAtWatermark, countAtWatermark, resume, groupCheck, handOver: null };
	return { state: { ...stored, ...earlier }, repeatedUpTo: stored.watermark };
}
