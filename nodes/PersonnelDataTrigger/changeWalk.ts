import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { toNodeError } from '../shared/errors';
import type { ListPage } from '../shared/listPage';
import { readListPage } from '../shared/listPage';
import { compareTimestamps } from '../shared/timestamps';
import type { ApiRequest } from '../shared/transport';
import type { WalkPlan } from './boundedWalk';
import { BoundedWalk, isCursorRefusal, walkQuery } from './boundedWalk';
import type { Change, ChangeState, Resume } from './changeState';
import { advance, nextWatermark, noveltyCheck } from './changeState';
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
	/** The walk stopped before the last page (time budget, Max Changes per Poll). */
	stopped: boolean;
}

/**
 * Every change from `from` on (`gte`, or `gt` when nothing new can sit at `from`), oldest first,
 * within the poll's budget: a walk started here, or one an earlier poll stopped in (`after`).
 * Also counts what it read at each timestamp, for the next poll.
 */
export async function readPages(this: IPollFunctions, setup: PollSetup, state: ChangeState, run: PollRun, plan: WalkPlan, after?: string): Promise<PagesRead> {
	const walk = new BoundedWalk(this, setup, run, plan, walkQuery(setup, setup.query, plan), after);
	const isNew = noveltyCheck(state);
	const records: IDataObject[] = [];
	const changes: Change[] = [];
	const seen: Change[] = [];
	for await (const page of walk.pages()) {
		for (const record of page.records) {
			const change = changeOf(record, setup.field);
			if (!change) continue;
			// A resumed walk shows again the rest of a page the last poll stopped in, sent before the watermark.
			if (walk.resumed && state.watermark !== null && compareTimestamps(change.at, state.watermark) < 0) continue;
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
	return { records, changes, seen, resume: walk.resume, stopped: !walk.complete };
}

/** The state after a walk that stopped early: exactly what it sent, and where the next poll goes on. */
export async function stoppedAt(this: IPollFunctions, setup: PollSetup, state: ChangeState, run: PollRun, read: PagesRead): Promise<Reading> {
	let resume = read.resume;
	const watermark = nextWatermark(state, read.changes);
	if (resume !== null && setup.conditioned && watermark !== null) resume = { ...resume, countAtCut: await countIfAnswered.call(this, setup, watermark, run) };
	const next = advance(state, read.changes, { lookbackMs: setup.lookbackMs, countAtWatermark: null, countView: setup.countView, resume });
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

/**
 * Records the server listed at `at` after an earlier poll's walk went past them (a clock that
 * gives one timestamp to many records, or seconds only): a cursor goes on after its place, so
 * these would never come. Read when the server's count at `at` is more than the ids known there.
 */
async function behindCursor(this: IPollFunctions, setup: PollSetup, run: PollRun, at: string, known: Set<string>): Promise<IDataObject[]> {
	const plan: WalkPlan = { purpose: 'changes', op: 'eq', from: at };
	const walk = new BoundedWalk(this, setup, run, plan, walkQuery(setup, setup.query, plan));
	const found: IDataObject[] = [];
	for await (const page of walk.pages()) {
		for (const record of page.records) {
			const change = changeOf(record, setup.field);
			if (change && compareTimestamps(change.at, at) === 0 && !known.has(change.id)) found.push(record);
		}
	}
	if (!walk.complete) {
		throw new NodeOperationError(this.getNode(), `Records were added at ${at} after an earlier poll had read past that time, and this poll could not list them within its time budget; the next poll tries again`);
	}
	return found;
}

/** A walk an earlier poll stopped in, read on; `count`: the records at the new watermark, where known. */
interface Resumed {
	read: PagesRead;
	count: number | null;
}

/** A walk an earlier poll stopped in, when the setup still reads the same; otherwise undefined. */
export async function resumedWalk(this: IPollFunctions, setup: PollSetup, state: ChangeState, run: PollRun): Promise<Resumed | undefined> {
	const { resume, watermark } = state;
	if (resume?.purpose !== 'changes' || resume.view !== setup.queryView) return undefined;
	// The server's count at the watermark (no condition) tells whether records came there behind the cursor.
	const countBefore = watermark !== null ? await countAt.call(this, setup, watermark, run) : null;
	let read: PagesRead;
	try {
		read = await readPages.call(this, setup, state, run, resume, resume.after);
	} catch (error) {
		if (!isCursorRefusal(error)) throw toNodeError(this.getNode(), error);
		this.logger.info('Personnel Data Trigger: the API no longer accepts the cursor the last poll stopped at; reading again from the last change sent');
		return undefined;
	}
	if (countBefore === null || watermark === null) return { read, count: null };
	const at = (change: Change) => compareTimestamps(change.at, watermark);
	if (read.stopped && !read.seen.some((change) => at(change) > 0)) return { read, count: null }; // still inside the group
	// Sent there earlier and seen later in this walk: changed again, no longer at the watermark.
	const left = new Set(read.seen.filter((change) => at(change) > 0).map((change) => change.id));
	const known = new Set([...state.idsAtWatermark.filter((id) => !left.has(id)), ...read.seen.filter((change) => at(change) === 0).map((change) => change.id)]);
	let behind: IDataObject[] = [];
	if (setup.conditioned) {
		// The condition hides records from the ids; the count without it must not have grown since the cut.
		const cut = resume.countAtCut;
		if (cut === undefined || cut === null || countBefore > cut) behind = await behindCursor.call(this, setup, run, watermark, known);
	} else if (read.stopped || known.size < countBefore) {
		// A walk that got to the end saw every record that left; one that stopped may not have: list the group to be sure.
		behind = await behindCursor.call(this, setup, run, watermark, known);
	}
	const changes = behind.map((record) => changeOf(record, setup.field) as Change);
	const merged = { ...read, records: [...behind, ...read.records], changes: [...changes, ...read.changes], seen: [...changes, ...read.seen] };
	const next = nextWatermark(state, merged.changes);
	// The group at the old watermark is known whole now; a later one was read whole in this walk.
	const count = next === watermark ? known.size + behind.length : countOf(merged.seen, next);
	return { read: merged, count: read.stopped || setup.conditioned ? null : count };
}
