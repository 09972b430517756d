import type { IPollFunctions } from 'n8n-workflow';

import { QUERY } from '../shared/apiChoices';
import { toNodeError } from '../shared/errors';
import { compareTimestamps } from '../shared/timestamps';
import type { Query } from '../shared/transport';
import type { WalkPlan } from './boundedWalk';
import { BoundedWalk, isCursorRefusal, walkQuery } from './boundedWalk';
import type { TriggerState } from './triggerState';
import type { PollRun, PollSetup } from './setup';
import { changeOf, without } from './setup';
import type { WatchSetup, WatchState } from './watchFields';
import { Baseline, selectedFor } from './watchFields';

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
	const read = new Baseline(watch, going?.records);
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
	return { ...read.state, ...(after === undefined ? {} : { after, requests }) };
}

/** The state with the watch state the setup asks for: kept, read (on) afresh, or dropped. */
export async function withWatch(this: IPollFunctions, setup: PollSetup, state: TriggerState, run: PollRun): Promise<TriggerState> {
	if (!setup.watch) return state.watch === null ? state : { ...state, watch: null };
	if (state.watch?.key === setup.watch.key && state.watch.after === undefined) return state;
	return { ...state, watch: await baseline.call(this, setup, setup.watch, state, run) };
}
