import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { toNodeError } from '../shared/errors';
import type { ListPage } from '../shared/listPage';
import { readListPage } from '../shared/listPage';
import { compareTimestamps } from '../shared/timestamps';
import type { ApiRequest } from '../shared/transport';
import type { WalkPlan } from './boundedWalk';
import { BoundedWalk, isCursorRefusal, walkQuery } from './boundedWalk';
import type { Change, ChangeState, GroupCheck, Resume } from './changeState';
import { advance, IDS_KEPT_MAX, idsComplete, nextWatermark, noveltyCheck } from './changeState';
import type { PollRun, PollSetup } from './setup';
import { changeOf, fieldFilter, listRequest, probeQuery } from './setup';

/**
 * The page walks of one poll's reading: over the changes from a point on, oldest first, within
 * the poll's budget; the state when a walk stops early; and a walk an earlier poll stopped in,
 * read on from the server's cursor, with a check for records the server placed behind it.
 */

export interface Reading {
	records: IDataObject[];
	/** The state to store; null: nothing changed (the stored one stays as it is). */
	next: ChangeState | null;
	/** Where the walk stopped, when it did (the next poll goes on from there). */
	resume?: Resume | null;
	/** The state the reading went on from (a poll may take several steps); the stored one when absent. */
	base?: ChangeState;
}

/** One page of `request`, `first` records at most; the lease sees the progress. */
export async function onePage(this: IPollFunctions, request: ApiRequest, first: number, run: PollRun): Promise<ListPage> {
	const page = await readListPage.call(this, request, { first });
	run.lease.progress();
	return page;
}

/** How many records the server lists at exactly `at` (the filters, no condition); null: it does not say. */
export async function countAt(this: IPollFunctions, setup: PollSetup, at: string, run: PollRun): Promise<number | null> {
	const page = await onePage.call(this, listRequest(setup, { ...probeQuery(setup), ...fieldFilter(setup, 'eq', at) }, run), 1, run);
	return page.totalCount ?? null;
}

export const countOf = (changes: readonly Change[], at: string | null) =>
	at === null ? 0 : changes.filter((change) => compareTimestamps(change.at, at) === 0).length;

/** What a walk over the changes read: the new ones, every change it saw, and where it stopped. */
export interface PagesRead {
	records: IDataObject[];
	changes: Change[];
	seen: Change[];
	/** Where the next poll goes on; null: the walk got to the last page. */
	resume: Resume | null;
	/** The walk stopped before the last page (time budget, Max Changes per Poll, a group to check). */
	stopped: boolean;
}

/**
 * Decides, once, when a resumed walk gets past the timestamp it stopped in (or to its end),
 * whether records may be missing there; true stops the walk at that point (see `resumedWalk`).
 */
type PassCheck = (read: Pick<PagesRead, 'changes' | 'seen'>) => boolean;

/**
 * Every change from `from` on (`gte`, or `gt` when nothing new can sit at `from`), oldest first,
 * within the poll's budget: a walk started here, or one an earlier poll stopped in (`resumed`).
 * `passing` is asked at the first change later than the watermark, or at the end.
 */
export async function readPages(this: IPollFunctions, setup: PollSetup, state: ChangeState, run: PollRun, plan: WalkPlan, resumed?: Resume, passing?: PassCheck): Promise<PagesRead> {
	const walk = new BoundedWalk(this, setup, run, plan, walkQuery(setup, setup.query, plan), resumed?.after, resumed?.requests);
	const isNew = noveltyCheck(state);
	const records: IDataObject[] = [];
	const changes: Change[] = [];
	const seen: Change[] = [];
	let asked = passing === undefined || state.watermark === null;
	const later = (change: Change) => compareTimestamps(change.at, state.watermark as string) > 0;
	pages: for await (const page of walk.pages()) {
		for (const record of page.records) {
			const change = changeOf(record, setup.field);
			if (!change) continue;
			// A resumed walk shows again the rest of a page the last poll stopped in, sent before the watermark.
			if (walk.resumed && state.watermark !== null && compareTimestamps(change.at, state.watermark) < 0) continue;
			if (!asked && later(change)) {
				asked = true;
				if ((passing as PassCheck)({ changes, seen })) {
					// This page is read again once the group is checked: what it held before here is sent now.
					walk.stopInPage();
					break pages;
				}
			}
			seen.push(change);
			if (isNew(change)) {
				records.push(record);
				changes.push(change);
			}
		}
		// The pages come oldest first: past `maxChanges` new ones, the rest is for the next poll (see `capped`).
		if (setup.maxChanges !== undefined && records.length > setup.maxChanges) {
			walk.stopInPage();
			break;
		}
	}
	const stopped = !walk.complete;
	// A walk that got to its end without passing the watermark: the group is whole now, ask there.
	if (!asked && !stopped) (passing as PassCheck)({ changes, seen });
	return { records, changes, seen, resume: walk.resume, stopped };
}

/** The state after a walk that stopped early: exactly what it sent, and where the next poll goes on. */
export async function stoppedAt(this: IPollFunctions, setup: PollSetup, state: ChangeState, run: PollRun, read: PagesRead, groupCheck: GroupCheck | null = null): Promise<Reading> {
	let resume = read.resume;
	const watermark = nextWatermark(state, read.changes);
	if (resume !== null && setup.conditioned && watermark !== null) resume = { ...resume, countAtCut: await countIfAnswered.call(this, setup, watermark, run) };
	const next = advance(state, read.changes, { lookbackMs: setup.lookbackMs, countAtWatermark: null, countView: setup.countView, resume, groupCheck });
	return { records: read.records, next, resume };
}

/** `countAt`, or null when the request fails: a count only lets a later poll check more. */
async function countIfAnswered(this: IPollFunctions, setup: PollSetup, at: string, run: PollRun): Promise<number | null> {
	try {
		return await countAt.call(this, setup, at, run);
	} catch {
		return null;
	}
}

/** A walk an earlier poll stopped in, read on; `count`: the records at the new watermark, where known. */
interface Resumed {
	read: PagesRead;
	count: number | null;
	/** Records may be missing at the watermark: the group is listed before the walk goes on. */
	groupCheck: GroupCheck | null;
}

/**
 * A walk an earlier poll stopped in, read on from the server's cursor, when the setup still reads
 * the same; otherwise undefined. A cursor goes on after its place: records the server placed at
 * the watermark behind it since (a clock that gives one timestamp to many records) would never
 * come. So when the walk gets past the watermark, the records there are compared like with like:
 * the server's count at exactly that timestamp against the ones the trigger knows there (sent
 * before, less those seen to have left it, plus the ones this walk found). Only a count higher
 * than that proves records missing; then the walk stops there and the group is listed
 * (`groupCheck.ts`) before it goes on. Without a count, a group small enough to know by id is
 * listed; a large one cannot be told apart by id, and is reported instead (docs/trigger.md).
 */
export async function resumedWalk(this: IPollFunctions, setup: PollSetup, state: ChangeState, run: PollRun): Promise<Resumed | undefined> {
	const { resume, watermark } = state;
	if (resume?.purpose !== 'changes' || resume.view !== setup.queryView) return undefined;
	// The server's count at the watermark (no condition) tells whether records came there behind the cursor.
	const countBefore = watermark !== null ? await countAt.call(this, setup, watermark, run) : null;
	const at = (change: Change) => compareTimestamps(change.at, watermark as string);
	const ids = new Set(state.idsAtWatermark);
	let groupCheck: GroupCheck | null = null;
	const passing: PassCheck = (read) => {
		const left = read.seen.filter((change) => at(change) > 0 && ids.has(change.id)).length;
		const found = read.changes.filter((change) => at(change) === 0).length;
		const expected = state.knownAtWatermark - left + found;
		// A small group is known by id: a count that does not add up (records added, or sent ones
		// changed again) lists it. A large one can only be checked for records proven missing.
		const small = idsComplete(state) && expected <= IDS_KEPT_MAX;
		let differs: boolean;
		if (countBefore === null) differs = small;
		// The condition hides records from the walk; the count without it is compared with the one at the cut.
		else if (setup.conditioned) differs = resume.countAtCut === undefined || resume.countAtCut === null || countBefore !== resume.countAtCut;
		else differs = small ? countBefore !== expected : countBefore > expected;
		if (!differs) return false;
		if (!small) {
			this.logger.warn(
				`Personnel Data Trigger: the server lists ${countBefore} records at ${watermark} where this trigger read ${expected}; the group is larger than the ${IDS_KEPT_MAX} ids it keeps, so records added behind its cursor cannot be told apart and are not sent (docs/trigger.md: Liveness)`,
			);
			return false;
		}
		groupCheck = { at: watermark as string, requests: 0 };
		return true;
	};
	let read: PagesRead;
	try {
		// Once the group has been listed since this cursor was stored, it is not listed again.
		read = await readPages.call(this, setup, state, run, resume, resume, watermark === null || resume.groupListed ? undefined : passing);
	} catch (error) {
		if (!isCursorRefusal(error)) throw toNodeError(this.getNode(), error);
		this.logger.info('Personnel Data Trigger: the API no longer accepts the cursor the last poll stopped at; reading again from the last change sent');
		return undefined;
	}
	if (watermark === null || read.stopped || setup.conditioned || countBefore === null || groupCheck !== null) return { read, count: null, groupCheck };
	const next = nextWatermark(state, read.changes);
	// The walk got to the end: the group at the new watermark was read whole here, or is the old one.
	const count = next === watermark ? state.knownAtWatermark + countOf(read.changes, next) - read.seen.filter((change) => at(change) > 0 && ids.has(change.id)).length : countOf(read.seen, next);
	return { read, count, groupCheck };
}
