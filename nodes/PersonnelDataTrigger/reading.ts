import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { PAGE_SIZE_MAX } from '../shared/apiChoices';
import { compareTimestamps } from '../shared/timestamps';
import type { Change, ChangeState } from './changeState';
import { advance, idsComplete, nextWatermark, noveltyCheck, readFrom } from './changeState';
import { continueGroupCheck } from './groupCheck';
import { readBudgetSpent } from './pollBudget';
import type { Reading } from './changeWalk';
import { countAt, countOf, onePage, readPages, resumedWalk, stoppedAt } from './changeWalk';
import type { PollRun, PollSetup } from './setup';
import { changeOf, fieldFilter, listRequest, newestFirst, newestOverall, probeQuery } from './setup';

export type { Reading } from './changeWalk';

/**
 * One poll's reading: which changes are new since the stored state, in as few requests as the
 * server's answers allow, and the state after them (page walks: changeWalk.ts).
 */

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

/**
 * One poll's reading. Without a look-back window it starts with one request, newest first, from
 * the watermark on (without the condition): when that page holds everything, or shows nothing
 * after the watermark and as many records at it as the trigger counted there, it is the whole
 * answer; otherwise the changes are read page by page (oldest first, the exact reading).
 */
export async function readChanges(this: IPollFunctions, setup: PollSetup, stored: ChangeState, run: PollRun): Promise<Reading> {
	let state = stored;
	let moved: ChangeState | null = null;
	// A step that sends nothing but leaves work pending (a group to list, a walk to go on with) is
	// followed by the next one in the same poll while the budget lasts.
	for (let step = 1; ; step++) {
		const reading = await readStep.call(this, setup, state, run);
		const pending = reading.next !== null && (reading.next.groupCheck !== null || reading.next.resume !== null);
		if (reading.records.length > 0 || !pending || step >= MAX_STEPS || readBudgetSpent(run.clock)) {
			return { ...reading, next: reading.next ?? moved, base: state };
		}
		moved = reading.next;
		state = reading.next as ChangeState;
	}
}

/** Steps of one poll's reading that send nothing (a group listed, then the walk read on). */
const MAX_STEPS = 3;

async function readStep(this: IPollFunctions, setup: PollSetup, stored: ChangeState, run: PollRun): Promise<Reading> {
	const check = stored.groupCheck;
	if (check !== null && check.at === stored.watermark) {
		// Records found missing at the watermark come first, oldest first; then the walk goes on.
		return await continueGroupCheck.call(this, setup, stored, run, check);
	}
	const resumed = await resumedWalk.call(this, setup, stored, run);
	const state: ChangeState = stored.resume === null && check === null ? stored : { ...stored, resume: null, groupCheck: null };
	if (resumed?.read.stopped) return await stoppedAt.call(this, setup, state, run, resumed.read, resumed.groupCheck);
	if (resumed) {
		const next = advance(state, resumed.read.changes, { lookbackMs: setup.lookbackMs, countAtWatermark: resumed.count, countView: setup.countView, groupCheck: resumed.groupCheck });
		return { records: resumed.read.records, next };
	}
	if (!idsComplete(state) && setup.lookbackMs === 0 && state.watermark !== null) return await pastLargeGroup.call(this, setup, state, run);
	const { watermark } = state;
	const store = (changes: Change[], countAtWatermark: number | null, horizon: string | null = null) =>
		advance(state, changes, { lookbackMs: setup.lookbackMs, horizon, countAtWatermark, countView: setup.countView });

	if (watermark === null || setup.lookbackMs > 0) {
		const horizon = setup.conditioned ? await newestOverall.call(this, setup, run) : null;
		const read = await readPages.call(this, setup, state, run, { purpose: 'changes', op: 'gte', from: readFrom(state, setup.lookbackMs) });
		if (read.stopped) return await stoppedAt.call(this, setup, state, run, read);
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
		if (read.stopped) return await stoppedAt.call(this, setup, state, run, read);
		const { records, changes } = read;
		const next = nextWatermark(state, changes, newest) as string;
		// Every record after the watermark was on the probe's page, the newest timestamp's too.
		const count = compareTimestamps(next, newest as string) === 0 ? countOf(located, next) : await countAt.call(this, setup, next, run);
		return { records, next: store(changes, count, newest) };
	}

	const read = await readPages.call(this, setup, state, run, { purpose: 'changes', op: 'gte', from: watermark });
	if (read.stopped) return await stoppedAt.call(this, setup, state, run, read);
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
export function capped(setup: PollSetup, stored: ChangeState, reading: Reading): Reading {
	const state = reading.base ?? stored;
	if (setup.maxChanges === undefined || reading.records.length <= setup.maxChanges) return reading;
	const records = reading.records.slice(0, setup.maxChanges);
	const changes = records.map((record) => changeOf(record, setup.field) as Change);
	const next = advance(state, changes, { lookbackMs: setup.lookbackMs, countAtWatermark: null, countView: setup.countView, resume: reading.resume });
	// A count taken at the reading's last timestamp says nothing about the one the cap stopped at.
	const resume = next.resume && next.watermark !== reading.next?.watermark ? { ...next.resume, countAtCut: null } : next.resume;
	return { records, next: { ...next, resume, groupCheck: reading.next?.groupCheck ?? null } };
}

/**
 * The reading after a group at the watermark too large to keep by id (a bulk import at one
 * timestamp, `IDS_KEPT_MAX`): the group is known by its count, so the reading goes on after it
 * (`gt`) and never reads it again. A count there higher than the records known is reported: they
 * cannot be told apart from the ones sent (docs/trigger.md: Liveness).
 */
async function pastLargeGroup(this: IPollFunctions, setup: PollSetup, state: ChangeState, run: PollRun): Promise<Reading> {
	const watermark = state.watermark as string;
	const sameView = state.countView === setup.countView;
	// One request when nothing came: the newest record, and the count from the watermark on.
	const probe = await onePage.call(this, listRequest(setup, { ...probeQuery(setup), ...newestFirst(setup), ...fieldFilter(setup, 'gte', watermark) }, run), 1, run);
	const newest = probe.records.length === 0 ? undefined : changeOf(probe.records[0], setup.field);
	const nothingAfter = probe.records.length === 0 || (newest !== undefined && compareTimestamps(newest.at, watermark) <= 0);
	const countNow = nothingAfter ? (probe.totalCount ?? (probe.records.length === 0 ? 0 : null)) : await countAt.call(this, setup, watermark, run);
	const report = countNow !== null && sameView && !setup.conditioned && countNow > state.knownAtWatermark;
	if (report) {
		this.logger.warn(
			`Personnel Data Trigger: the server lists ${countNow} records at ${watermark}, more than the ${state.knownAtWatermark} this trigger read there; the group is larger than the ids it keeps, so the added ones cannot be told apart and are not sent (docs/trigger.md: Liveness)`,
		);
	}
	const known = report ? { ...state, knownAtWatermark: countNow } : state;
	if (nothingAfter && !report && countNow !== null && countNow === state.countAtWatermark && sameView) return { records: [], next: null };
	const read = await readPages.call(this, setup, known, run, { purpose: 'changes', op: 'gt', from: watermark });
	if (read.stopped) return await stoppedAt.call(this, setup, known, run, read);
	const next = nextWatermark(known, read.changes) as string;
	const count = setup.conditioned ? null : next === watermark ? countNow : countOf(read.seen, next);
	return { records: read.records, next: advance(known, read.changes, { lookbackMs: 0, countAtWatermark: count, countView: setup.countView }) };
}
