import type { FeedState } from './feedState';

/**
 * On Restart: Send the Last Poll Again (`atLeastOnce`). A poll that sends keeps how to undo
 * itself (`FeedState.unconfirmed`) until a later poll of the same process confirms it. A poll
 * that cannot confirm it (a new process cannot know whether n8n took the last poll) undoes it: it
 * reads that poll again and sends its versions again, marked as possibly repeated. They stay in
 * the memory: one the pass does not meet again (a filter edited meanwhile) is never sent later
 * unmarked. Where that poll's memory reached its bound, the versions it dropped were sent by
 * earlier polls and the memory can no longer tell them from new ones: met again, every version
 * before that time is marked too (`repeatBefore`).
 */
export function undoneUnlessConfirmed(
	stored: FeedState,
	atLeastOnce: boolean,
	confirmed: boolean,
): { state: FeedState; repeatKeys: Set<string>; repeatBefore: string | undefined } {
	const repeatKeys = new Set(stored.repeat);
	if (stored.unconfirmed === null || confirmed || !atLeastOnce) return { state: stored, repeatKeys, repeatBefore: stored.repeatBefore };
	for (const [key] of stored.unconfirmed.entries) repeatKeys.add(key);
	const state = { ...stored, settled: stored.unconfirmed.settled, pass: stored.unconfirmed.pass, unconfirmed: null };
	return { state, repeatKeys, repeatBefore: stored.unconfirmed.forgottenBefore };
}
