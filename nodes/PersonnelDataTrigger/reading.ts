import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { PAGE_SIZE_MAX, QUERY } from '../shared/apiChoices';
import { toNodeError } from '../shared/errors';
import type { ListPage } from '../shared/listPage';
import { readListPage } from '../shared/listPage';
import { compareTimestamps } from '../shared/timestamps';
import type { ApiRequest, Query } from '../shared/transport';
import type { WalkPlan } from './boundedWalk';
import { BoundedWalk, isCursorRefusal, walkQuery } from './boundedWalk';
import type { Change, ChangeState, Resume } from './changeState';
import { advance, nextWatermark, noveltyCheck, readFrom } from './changeState';
import type { PollRun, PollSetup } from './setup';
import { changeOf, fieldFilter, listRequest, newestFirst, newestOverall, probeQuery, without } from './setup';
import type { WatchSetup, WatchState } from './watchFields';
import { Baseline, selectedFor } from './watchFields';

/**
 * One poll's reading: which changes are new since the stored state, in as few requests as the
 * server's answers allow, and the state after them. Also reads the Watch Fields baseline.
 */

export interface Reading {
	records: IDataObject[];
	/** The state to store; null: nothing changed (the stored one stays as it is). */
	next: ChangeState | null;
	/** Where the walk stopped, when it did (the next poll goes on from there). */
	resume?: Resume | null;
}

/** One page of `request`, `first` records at most; the lease sees the progress. */
async function onePage(this: IPollFunctions, request: ApiRequest, first: number, run: PollRun): Promise<ListPage> {
	const page = await readListPage.call(this, request, { first });
	run.lease.progress();
	return page;
}

/** How many records the server lists at exactly `at` (the filters, no condition); null: it does not say. */
async function countAt(this: IPollFunctions, setup: PollSetup, at: string, run: PollRun): Promise<number | null> {
	const page = await onePage.call(this, listRequest(setup, { ...probeQuery(setup), ...fieldFilter(setup, 'eq', at) }, run), 1, run);
	return page.totalCount ?? null;
}

/** Records whose change is new, in the order given, with their changes. */
function newOnes(setup: PollSetup, state: ChangeState, records: readonly IDataObject[]) {
	const isNew = noveltyCheck(state);
	const kept: IDataObject[] = [];
	const changes: Change[] = [];
	for (const record of records) {
		const change = changeOf(record, setup.field);
		if (change && isNew(change)) {
			kept.push(record);
			changes.push(change);
		}
	}
	return { records: kept, changes };
}

const countOf = (changes: readonly Change[], at: string | null) =>
	at === null ? 0 : changes.filter((change) => compareTimestamps(change.at, at) === 0).length;

/** What a walk over the changes read: the new ones, every change it saw, and where it stopped. */
interface PagesRead {
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
async function readPages(this: IPollFunctions, setup: PollSetup, state: ChangeState, run: PollRun, plan: WalkPlan, after?: string): Promise<PagesRead> {
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
function stoppedAt(setup: PollSetup, state: ChangeState, read: PagesRead): Reading {
	const next = advance(state, read.changes, { lookbackMs: setup.lookbackMs, countAtWatermark: null, countView: setup.countView, resume: read.resume });
	return { records: read.records, next, resume: read.resume };
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
async function resumedWalk(this: IPollFunctions, setup: PollSetup, state: ChangeState, run: PollRun): Promise<Resumed | undefined> {
	const { resume, watermark } = state;
	if (resume?.purpose !== 'changes' || resume.view !== setup.queryView) return undefined;
	// Without a condition the server's count at the watermark tells whether records came there behind the cursor.
	const countBefore = watermark !== null && !setup.conditioned ? await countAt.call(this, setup, watermark, run) : null;
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
	// A walk that got to the end saw every record that left; one that stopped may not have: list the group to be sure.
	let behind: IDataObject[] = [];
	if (read.stopped || known.size < countBefore) behind = await behindCursor.call(this, setup, run, watermark, known);
	const changes = behind.map((record) => changeOf(record, setup.field) as Change);
	const merged = { ...read, records: [...behind, ...read.records], changes: [...changes, ...read.changes], seen: [...changes, ...read.seen] };
	const next = nextWatermark(state, merged.changes);
	// The group at the old watermark is known whole now; a later one was read whole in this walk.
	const count = next === watermark ? known.size + behind.length : countOf(merged.seen, next);
	return { read: merged, count: read.stopped ? null : count };
}

/**
 * One poll's reading. Without a look-back window it starts with one request, newest first, from
 * the watermark on (without the condition): when that page holds everything, or shows nothing
 * after the watermark and as many records at it as the trigger counted there, it is the whole
 * answer; otherwise the changes are read page by page (oldest first, the exact reading).
 */
export async function readChanges(this: IPollFunctions, setup: PollSetup, stored: ChangeState, run: PollRun): Promise<Reading> {
	const resumed = await resumedWalk.call(this, setup, stored, run);
	const state: ChangeState = stored.resume === null ? stored : { ...stored, resume: null };
	if (resumed?.read.stopped) return stoppedAt(setup, state, resumed.read);
	if (resumed) {
		const next = advance(state, resumed.read.changes, { lookbackMs: setup.lookbackMs, countAtWatermark: resumed.count, countView: setup.countView });
		return { records: resumed.read.records, next };
	}
	const { watermark } = state;
	const store = (changes: Change[], countAtWatermark: number | null, horizon: string | null = null) =>
		advance(state, changes, { lookbackMs: setup.lookbackMs, horizon, countAtWatermark, countView: setup.countView });

	if (watermark === null || setup.lookbackMs > 0) {
		const horizon = setup.conditioned ? await newestOverall.call(this, setup, run) : null;
		const read = await readPages.call(this, setup, state, run, { purpose: 'changes', op: 'gte', from: readFrom(state, setup.lookbackMs) });
		if (read.stopped) return stoppedAt(setup, state, read);
		const { records, changes, seen } = read;
		const next = nextWatermark(state, changes, horizon);
		// With a window every poll reads it all: no count is needed.
		let count: number | null = null;
		if (next === null) count = 0;
		else if (setup.lookbackMs === 0) count = setup.conditioned ? await countAt.call(this, setup, next, run) : countOf(seen, next);
		return { records, next: store(changes, count, horizon) };
	}

	const base = setup.conditioned ? probeQuery(setup) : setup.query;
	const probe = await onePage.call(this, listRequest(setup, { ...base, ...newestFirst(setup), ...fieldFilter(setup, 'gte', watermark) }, run), PAGE_SIZE_MAX, run);
	const entries = probe.records.map((record) => ({ record, change: changeOf(record, setup.field) }));
	const readable = entries.every((entry) => entry.change !== undefined && compareTimestamps(entry.change.at, watermark) >= 0);
	const located = readable ? entries.map((entry) => entry.change as Change) : [];
	const newest = located[0]?.at ?? null;
	const sameView = state.countView === setup.countView;

	if (readable && !setup.conditioned && !probe.hasNextPage) {
		// The page is every record from the watermark on: the exact reading in one request.
		const { records, changes } = newOnes(setup, state, [...probe.records].reverse());
		const next = nextWatermark(state, changes);
		const unchanged = changes.length === 0 && sameView && countOf(located, watermark) === state.countAtWatermark;
		return { records, next: unchanged ? null : store(changes, countOf(located, next)) };
	}

	const isAfter = (change: Change) => compareTimestamps(change.at, watermark) > 0;
	const after = located.filter(isAfter);
	const atWatermark = located.filter((change) => !isAfter(change));
	// Everything after the watermark is on this page (it reaches the watermark, or is the last).
	const seesAllAfter = readable && (!probe.hasNextPage || atWatermark.length > 0);
	const known = new Set(state.idsAtWatermark);
	// Records sent at the watermark that have changed since: they left it for a later timestamp.
	const leftWatermark = after.filter((change) => known.has(change.id)).length;
	const nothingNewAtWatermark =
		seesAllAfter &&
		sameView &&
		probe.totalCount !== undefined &&
		state.countAtWatermark !== null &&
		probe.totalCount - after.length === state.countAtWatermark - leftWatermark &&
		// Without a condition the page's ids at the watermark must all be known ones too.
		(setup.conditioned || atWatermark.every((change) => known.has(change.id)));

	if (nothingNewAtWatermark && after.length === 0) return { records: [], next: null };
	if (nothingNewAtWatermark && !setup.conditioned) {
		const newer = entries.filter((entry) => isAfter(entry.change as Change)).map((entry) => entry.record);
		const { records, changes } = newOnes(setup, state, newer.reverse());
		const next = nextWatermark(state, changes);
		return { records, next: store(changes, countOf(located, next)) };
	}
	if (nothingNewAtWatermark) {
		const read = await readPages.call(this, setup, state, run, { purpose: 'changes', op: 'gt', from: watermark });
		if (read.stopped) return stoppedAt(setup, state, read);
		const { records, changes } = read;
		const next = nextWatermark(state, changes, newest) as string;
		// Every record after the watermark was on the probe's page, the newest timestamp's too.
		const count = compareTimestamps(next, newest as string) === 0 ? countOf(located, next) : await countAt.call(this, setup, next, run);
		return { records, next: store(changes, count, newest) };
	}

	const read = await readPages.call(this, setup, state, run, { purpose: 'changes', op: 'gte', from: watermark });
	if (read.stopped) return stoppedAt(setup, state, read);
	const { records, changes, seen } = read;
	const next = nextWatermark(state, changes, setup.conditioned ? newest : null) as string;
	let count: number | null;
	if (!setup.conditioned) count = countOf(seen, next);
	else if (readable && compareTimestamps(next, newest ?? next) === 0 && (!probe.hasNextPage || located[located.length - 1].at !== next)) count = countOf(located, next);
	else count = await countAt.call(this, setup, next, run);
	return { records, next: store(changes, count, setup.conditioned ? newest : null) };
}

/**
 * Options → Max Changes per Poll: the first `maxChanges` of a reading (it is oldest first), and
 * the state that has sent exactly those. The watermark moves to the last one sent and its ids at
 * that time join the ones already there, so a cut inside a group sharing one timestamp resumes
 * with the rest of the group. The count there is left unknown: the next poll reads exactly.
 */
export function capped(setup: PollSetup, state: ChangeState, reading: Reading): Reading {
	if (setup.maxChanges === undefined || reading.records.length <= setup.maxChanges) return reading;
	const records = reading.records.slice(0, setup.maxChanges);
	const changes = records.map((record) => changeOf(record, setup.field) as Change);
	return { records, next: advance(state, changes, { lookbackMs: setup.lookbackMs, countAtWatermark: null, countView: setup.countView, resume: reading.resume }) };
}

/**
 * Watch Fields' baseline: every record of the filters (no condition: a record the condition lets
 * through later is then known), with only the id, the change field and the watched fields. A
 * large one takes several polls (`WatchState.after`); changes are read once it is complete. A
 * record changed after the trigger's watermark is left out: the reading that follows sends it
 * (as first seen, its earlier values unknown) rather than compare it with its own new values.
 */
async function baseline(this: IPollFunctions, setup: PollSetup, watch: WatchSetup, state: ChangeState, run: PollRun): Promise<WatchState> {
	const going = state.watch?.key === watch.key ? state.watch : null;
	const query: Query = { ...without(setup.query, QUERY.conditionId), [QUERY.select]: [...new Set(['id', setup.field, ...selectedFor(watch)])] };
	const plan: WalkPlan = { purpose: 'skip', op: 'gte', from: null };
	const read = new Baseline(watch, going?.records);
	const walkFrom = async (after: string | undefined) => {
		const walk = new BoundedWalk(this, setup, run, plan, walkQuery(setup, query, plan), after);
		for await (const page of walk.pages()) {
			for (const record of page.records) {
				const change = changeOf(record, setup.field);
				if (change && (state.watermark === null || compareTimestamps(change.at, state.watermark) > 0)) continue;
				read.add(record);
			}
		}
		return walk.stoppedAfter;
	};
	let after: string | undefined;
	try {
		after = await walkFrom(going?.after);
	} catch (error) {
		if (going?.after === undefined || !isCursorRefusal(error)) throw toNodeError(this.getNode(), error);
		after = await walkFrom(undefined);
	}
	return { ...read.state, ...(after === undefined ? {} : { after }) };
}

/** The state with the watch state the setup asks for: kept, read (on) afresh, or dropped. */
export async function withWatch(this: IPollFunctions, setup: PollSetup, state: ChangeState, run: PollRun): Promise<ChangeState> {
	if (!setup.watch) return state.watch === null ? state : { ...state, watch: null };
	if (state.watch?.key === setup.watch.key && state.watch.after === undefined) return state;
	return { ...state, watch: await baseline.call(this, setup, setup.watch, state, run) };
}
