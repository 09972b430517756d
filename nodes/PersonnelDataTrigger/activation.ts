import type { IDataObject, IPollFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { QUERY } from '../shared/apiChoices';
import { toNodeError } from '../shared/errors';
import { readListPage } from '../shared/listPage';
import { activationState, backfillState } from './feedState';
import type { PollRun, PollSetup } from './setup';
import { listRequest, newestOverall } from './setup';
import type { LegacyPosition, TriggerState } from './triggerState';
import { STATE_VERSION } from './triggerState';
import type { WatchState } from './watchFields';

/**
 * Where a trigger starts. At activation "now" is the server's own newest change timestamp: the
 * feed's first pass remembers what exists up to it and sends nothing (changeFeed.ts:
 * `activationState`); changes after it are sent by the passes that follow. On Activation → Start
 * From a Date starts at that date instead, and the feed sends every change since, oldest first,
 * in bounded polls.
 */
export async function activate(this: IPollFunctions, setup: PollSetup, run: PollRun, revision: number, watch: WatchState | null): Promise<TriggerState> {
	if (setup.conditioned) {
		// The probe below leaves the condition out. One request with it makes a condition the API
		// refuses (another domain, another organization) fail the activation, where n8n shows the
		// error, rather than every poll after it.
		try {
			await readListPage.call(this, listRequest(setup, { ...setup.query, [QUERY.select]: ['id'] }, run), { first: 1 });
		} catch (error) {
			throw conditionRefused(this, error);
		}
	}
	const base = { version: STATE_VERSION, revision, stream: setup.stream, watch } as const;
	if (setup.backfillFrom !== undefined) {
		// Nothing counts as sent: the feed starts at the date (inclusive) and sends what it finds.
		return { ...base, origin: setup.backfillFrom, feed: backfillState(setup.backfillFrom, setup.feed) };
	}
	const newest = await newestOverall.call(this, setup, run);
	return { ...base, origin: null, feed: activationState(newest, setup.feed) };
}

/** A state stored before the change feed: the feed takes over at its watermark (what it had sent counts as sent). */
export function fromLegacy(setup: PollSetup, legacy: LegacyPosition): TriggerState {
	const feed = legacy.origin !== null && legacy.watermark === null ? backfillState(legacy.origin, setup.feed) : activationState(legacy.watermark, setup.feed);
	return { version: STATE_VERSION, revision: legacy.revision, stream: legacy.stream, origin: legacy.origin, feed, watch: legacy.watch };
}

const isObject = (value: unknown): value is IDataObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The API's own reason (its inner errors) in the headline n8n shows when activation fails. */
function conditionRefused(context: IPollFunctions, error: unknown): Error {
	if (!(error instanceof NodeApiError) || error.httpCode === null || !/^4/.test(error.httpCode ?? '')) return toNodeError(context.getNode(), error);
	const inner = (error.errorResponse as JsonObject | undefined)?.errors;
	const entries: unknown[] = Array.isArray(inner) ? inner : [];
	const reasons = entries
		.filter(isObject)
		.map((entry) => [entry.message, entry.reason].filter((part) => typeof part === 'string' && part !== '').join(' — '))
		.filter((text) => text !== '');
	if (reasons.length === 0) return error;
	return new NodeOperationError(context.getNode(), `Condition refused by the Personnel Data API: ${reasons.join('; ')}`, {
		description: error.description ?? undefined,
	});
}
