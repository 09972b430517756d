import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { PAGE_SIZE_MAX, QUERY } from '../shared/apiChoices';
import type { ListPage } from '../shared/listPage';
import { readListPage } from '../shared/listPage';
import { pagesOf } from '../shared/pagination';
import { compareTimestamps } from '../shared/timestamps';
import type { ApiRequest, Query } from '../shared/transport';
import type { Change, ChangeState } from './changeState';
import { advance, nextWatermark, noveltyCheck, readFrom } from './changeState';
import type { PollRun, PollSetup } from './setup';
import { changeOf, fieldFilter, listRequest, newestFirst, newestOverall, oldestFirst, probeQuery, without } from './setup';
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

/**
 * Every change from `from` on (`gte`, or `gt` when nothing new can sit at `from`), to the last
 * page, before the watermark moves. Also counts what it read at each timestamp, for the next poll.
 */
async function readPages(this: IPollFunctions, setup: PollSetup, state: ChangeState, run: PollRun, from: string | null, op: 'gt' | 'gte') {
	const query: Query = { ...setup.query, ...oldestFirst(setup), ...(from === null ? {} : fieldFilter(setup, op, from)) };
	const isNew = noveltyCheck(state);
	const records: IDataObject[] = [];
	const changes: Change[] = [];
	const seen: Change[] = [];
	for await (const page of pagesOf.call(this, listRequest(setup, query, run), { maxRequests: setup.maxRequests })) {
		run.lease.progress();
		for (const record of page) {
			const change = changeOf(record, setup.field);
			if (!change) continue;
			seen.push(change);
			if (isNew(change)) {
				records.push(record);
				changes.push(change);
			}
		}
		// The pages come oldest first: past `maxChanges` new ones, the rest is for the next poll (see `capped`).
		if (setup.maxChanges !== undefined && records.length > setup.maxChanges) break;
	}
	return { records, changes, seen };
}

/**
 * One poll's reading. Without a look-back window it starts with one request, newest first, from
 * the watermark on (without the condition): when that page holds everything, or shows nothing
 * after the watermark and as many records at it as the trigger counted there, it is the whole
 * answer; otherwise the changes are read page by page (oldest first, the exact reading).
 */
export async function readChanges(this: IPollFunctions, setup: PollSetup, state: ChangeState, run: PollRun): Promise<Reading> {
	const { watermark } = state;
	const store = (changes: Change[], countAtWatermark: number | null, horizon: string | null = null) =>
		advance(state, changes, { lookbackMs: setup.lookbackMs, horizon, countAtWatermark, countView: setup.countView });

	if (watermark === null || setup.lookbackMs > 0) {
		const horizon = setup.conditioned ? await newestOverall.call(this, setup, run) : null;
		const { records, changes, seen } = await readPages.call(this, setup, state, run, readFrom(state, setup.lookbackMs), 'gte');
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
		const { records, changes } = await readPages.call(this, setup, state, run, watermark, 'gt');
		const next = nextWatermark(state, changes, newest) as string;
		// Every record after the watermark was on the probe's page, the newest timestamp's too.
		const count = compareTimestamps(next, newest as string) === 0 ? countOf(located, next) : await countAt.call(this, setup, next, run);
		return { records, next: store(changes, count, newest) };
	}

	const { records, changes, seen } = await readPages.call(this, setup, state, run, watermark, 'gte');
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
	return { records, next: advance(state, changes, { lookbackMs: setup.lookbackMs, countAtWatermark: null, countView: setup.countView }) };
}

/**
 * Watch Fields' baseline: every record of the filters (no condition: a record the condition lets
 * through later is then known), with only the id, the change field and the watched fields.
 */
async function baseline(this: IPollFunctions, setup: PollSetup, watch: WatchSetup, run: PollRun): Promise<WatchState> {
	const query: Query = { ...without(setup.query, QUERY.conditionId), [QUERY.select]: [...new Set(['id', setup.field, ...selectedFor(watch)])] };
	const read = new Baseline(watch);
	for await (const page of pagesOf.call(this, listRequest(setup, query, run), { maxRequests: setup.maxRequests })) {
		run.lease.progress();
		for (const record of page) read.add(record);
	}
	return read.state;
}

/** The state with the watch state the setup asks for: kept, read afresh (another field set), or dropped. */
export async function withWatch(this: IPollFunctions, setup: PollSetup, state: ChangeState, run: PollRun): Promise<ChangeState> {
	if (!setup.watch) return state.watch === null ? state : { ...state, watch: null };
	if (state.watch?.key === setup.watch.key) return state;
	return { ...state, watch: await baseline.call(this, setup, setup.watch, run) };
}
