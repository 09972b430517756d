import type { IDataObject, IPollFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { QUERY } from '../shared/apiChoices';
import { toNodeError } from '../shared/errors';
import { readListPage } from '../shared/listPage';
import { compareTimestamps } from '../shared/timestamps';
import type { WalkPlan } from './boundedWalk';
import { BoundedWalk, walkQuery } from './boundedWalk';
import type { Change, ChangeState, Resume } from './changeState';
import { advance, initialState, readFrom } from './changeState';
import type { PollRun, PollSetup } from './setup';
import { changeOf, listRequest, newestOverall, probeQuery } from './setup';

/**
 * Where a trigger starts. At activation "now" is the server's own newest change timestamp, and
 * everything up to it counts as already seen: the records at exactly that timestamp (and, with a
 * look-back window, those inside the window) are listed so that none of them is sent later. A
 * large organization may need several polls for that list (a bulk import shares one timestamp):
 * the listing is a bounded walk that the next polls continue (`continueActivation`) before any
 * change is read. On Activation → Start From a Date starts at that date instead, and the usual
 * reading sends every change since, oldest first, in bounded polls.
 */

/** Only what locates a change: the records an activation lists are never sent. */
const learnedQuery = (setup: PollSetup, plan: WalkPlan) => walkQuery(setup, probeQuery(setup), plan);

/**
 * Reads the existing records of `plan` at or before the activation's watermark, within the poll's
 * budget, into the state: they count as sent. Records changed after the activation are left for
 * the reading that follows.
 */
async function learn(this: IPollFunctions, setup: PollSetup, run: PollRun, state: ChangeState, plan: WalkPlan, resumed?: Resume): Promise<ChangeState> {
	const watermark = state.watermark as string;
	const walk = new BoundedWalk(this, setup, run, plan, learnedQuery(setup, plan), resumed?.after, resumed?.requests);
	const existing: Change[] = [];
	for await (const page of walk.pages()) {
		for (const record of page.records) {
			const change = changeOf(record, setup.field);
			if (change && compareTimestamps(change.at, watermark) <= 0) existing.push(change);
		}
	}
	const atWatermark = walk.complete && resumed === undefined ? existing.filter((change) => compareTimestamps(change.at, watermark) === 0).length : null;
	return advance(state, existing, { lookbackMs: setup.lookbackMs, countAtWatermark: atWatermark, countView: setup.countView, resume: walk.resume });
}

/** At activation: the starting point, and as much of what exists there as this poll can list. */
export async function activate(this: IPollFunctions, setup: PollSetup, run: PollRun, revision: number): Promise<ChangeState> {
	if (setup.conditioned) {
		// The probes below leave the condition out. One request with it makes a condition the API
		// refuses (another domain, another organization) fail the activation, where n8n shows the
		// error, rather than every poll after it.
		try {
			await readListPage.call(this, listRequest(setup, { ...setup.query, [QUERY.select]: ['id'] }, run), { first: 1 });
		} catch (error) {
			throw conditionRefused(this, error);
		}
	}
	const options = { lookbackMs: setup.lookbackMs, countView: setup.countView };
	if (setup.backfillFrom !== undefined) {
		// Nothing counts as sent: the reading starts at the date (inclusive) and sends what it finds.
		return initialState(revision, setup.stream, setup.backfillFrom, [], { ...options, countAtWatermark: null, origin: setup.backfillFrom });
	}
	const newestAt = await newestOverall.call(this, setup, run);
	if (newestAt === null) return initialState(revision, setup.stream, null, [], { ...options, countAtWatermark: 0 });

	const start = initialState(revision, setup.stream, newestAt, [], { ...options, countAtWatermark: null });
	const plan: WalkPlan = setup.lookbackMs > 0 ? { purpose: 'skip', op: 'gte', from: readFrom(start, setup.lookbackMs) } : { purpose: 'skip', op: 'eq', from: newestAt };
	// `start` already counts as one stored revision; the listing's state replaces it.
	return await learn.call(this, setup, run, { ...start, revision }, plan);
}

/** An activation whose listing a previous poll had to stop: go on with it (nothing is sent). */
export async function continueActivation(this: IPollFunctions, setup: PollSetup, run: PollRun, state: ChangeState, resume: Resume): Promise<ChangeState> {
	return await learn.call(this, setup, run, state, resume, resume);
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
