import { createHash } from 'node:crypto';
import type { IPollFunctions } from 'n8n-workflow';

import { QUERY } from '../shared/apiChoices';
import { toNodeError } from '../shared/errors';
import { idKey } from '../shared/ids';
import { compareTimestamps } from '../shared/timestamps';
import type { Query } from '../shared/transport';
import type { WalkPlan } from './boundedWalk';
import { BoundedWalk, isCursorRefusal, walkQuery } from './boundedWalk';
import type { TriggerState } from './triggerState';
import type { PollRun, PollSetup } from './setup';
import { changeOf, without } from './setup';
import type { WatchSetup, WatchState } from './watchFields';
import { Baseline, carriedFrom, selectedFor } from './watchFields';

/**
 * Watch Fields' baseline: every record of the filters (no condition: a record the condition lets
 * through later is then known), with only the id, the change field and the watched fields. A
 * large one takes several polls (`WatchState.after`); changes are read once it is complete. A
 * record changed after the newest change the feed has read is not compared with its own new values: the
 * reading that follows sends it once, every watched field listed, its earlier values unknown.
 */
async function baseline(this: IPollFunctions, setup: PollSetup, watch: WatchSetup, state: TriggerState, run: PollRun): Promise<WatchState> {
	const going = state.watch?.key === watch.key ? state.watch : null;
	// The newest change the feed has read: a record changed after it comes to the reading as a change.
	const newest = state.feed.clock?.at ?? null;
	const query: Query = { ...without(setup.query, QUERY.conditionId), [QUERY.select]: [...new Set(['id', setup.field, ...selectedFor(watch)])] };
	const plan: WalkPlan = { op: 'gte', from: null };
	// An edit of Watch Fields: the values the state held before it, until the new baseline is whole.
	const read = new Baseline(watch, going?.records, carriedFrom(going ?? state.watch));
	const walkFrom = async (after: string | undefined, spent: number) => {
		const walk = new BoundedWalk(this, setup, run, walkQuery(setup, query, plan), after, spent);
		for await (const page of walk.pages()) {
			for (const record of page.records) {
				const change = changeOf(record, setup.field);
				if (change && newest !== null && compareTimestamps(change.at, newest) > 0) read.changedMeanwhile(record);
				else read.add(record);
			}
		}
		return { after: walk.stoppedAfter, requests: walk.requests };
	};
	let walked: { after: string | undefined; requests: number };
	try {
		walked = await walkFrom(going?.after, going?.requests ?? 0);
	} catch (error) {
		if (going?.after === undefined || !isCursorRefusal(error)) throw toNodeError(this.getNode(), error);
		walked = await walkFrom(undefined, going.requests ?? 0);
	}
	const { after, requests } = walked;
	if (after !== undefined) return { ...read.state, after, requests };
	const whole: WatchState = { ...read.state, readAt: Date.now() };
	delete whole.carried;
	return whole;
}

/** How often Watch Fields lists its records again, to forget the ones deleted or no longer matching. */
export const WATCH_SWEEP_MS = 24 * 60 * 60_000;

const idDigest = (id: string) => createHash('sha256').update(idKey(id)).digest('base64url').slice(0, 11);

/**
 * Keeps Watch Fields' state to the records that still exist and match the filters: once a day it
 * lists them again (in any poll with budget left, going on over as many polls
 * as it needs) and then forgets every record the listing did not show. It never adds a record nor
 * changes kept values, so no change is compared with values it did not send.
 */
export async function sweepWatch(this: IPollFunctions, setup: PollSetup, watch: WatchState, run: PollRun, now = Date.now()): Promise<WatchState> {
	if (watch.after !== undefined) return watch;
	if (watch.sweep === undefined && now - (watch.readAt ?? now) < WATCH_SWEEP_MS) return watch.readAt === undefined ? { ...watch, readAt: now } : watch;
	const sweep = watch.sweep ?? { requests: 0, seen: '' };
	const query: Query = { ...without(setup.query, QUERY.conditionId), [QUERY.select]: ['id', setup.field] };
	const seen: string[] = [sweep.seen];
	const walkFrom = async (after: string | undefined) => {
		const walk = new BoundedWalk(this, setup, run, walkQuery(setup, query, { op: 'gte', from: null }), after, sweep.requests);
		for await (const page of walk.pages()) {
			for (const record of page.records) if (record.id !== undefined && record.id !== null) seen.push(idDigest(String(record.id)));
		}
		return walk;
	};
	let walk: BoundedWalk;
	try {
		walk = await walkFrom(sweep.after);
	} catch (error) {
		if (sweep.after === undefined || !isCursorRefusal(error)) throw toNodeError(this.getNode(), error);
		walk = await walkFrom(undefined);
	}
	const listed = seen.join('');
	const after = walk.stoppedAfter;
	if (after !== undefined) return { ...watch, sweep: { after, requests: walk.requests, seen: listed } };
	const known = new Set<string>();
	for (let index = 0; index + 11 <= listed.length; index += 11) known.add(listed.slice(index, index + 11));
	const records = Object.fromEntries(Object.entries(watch.records).filter(([id]) => known.has(idDigest(id))));
	const swept: WatchState = { ...watch, records, readAt: now };
	delete swept.sweep;
	return swept;
}

/** The state with the watch state the setup asks for: kept, read (on) afresh, or dropped. */
export async function withWatch(this: IPollFunctions, setup: PollSetup, state: TriggerState, run: PollRun): Promise<TriggerState> {
	if (!setup.watch) return state.watch === null ? state : { ...state, watch: null };
	if (state.watch?.key === setup.watch.key && state.watch.after === undefined) return state;
	return { ...state, watch: await baseline.call(this, setup, setup.watch, state, run) };
}
