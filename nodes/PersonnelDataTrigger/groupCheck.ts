import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { toNodeError } from '../shared/errors';
import { compareTimestamps } from '../shared/timestamps';
import type { WalkPlan } from './boundedWalk';
import { BoundedWalk, isCursorRefusal, walkQuery } from './boundedWalk';
import type { Change, ChangeState, GroupCheck } from './changeState';
import { advance, noveltyCheck } from './changeState';
import type { Reading } from './changeWalk';
import type { PollRun, PollSetup } from './setup';
import { changeOf } from './setup';

/**
 * The listing of the records at exactly the watermark that a resumed walk found may be missing
 * (changeWalk.ts: `resumedWalk`): the ones the trigger does not know there are sent, oldest first
 * before anything later. Bounded and resumable like the main walk: it stops within the poll's
 * budget (and at Max Changes per Poll), keeps its own cursor and request count, and the main walk
 * goes on from its own cursor once the listing is done. It runs only for a group small enough to
 * be known by id (`idsComplete`), so its records can be told apart.
 */
export async function continueGroupCheck(this: IPollFunctions, setup: PollSetup, state: ChangeState, run: PollRun, check: GroupCheck): Promise<Reading> {
	const plan: WalkPlan = { purpose: 'changes', op: 'eq', from: check.at };
	const isNew = noveltyCheck(state);
	const listFrom = async (after: string | undefined) => {
		const walk = new BoundedWalk(this, setup, run, plan, walkQuery(setup, setup.query, plan), after, check.requests);
		const records: IDataObject[] = [];
		for await (const page of walk.pages()) {
			for (const record of page.records) {
				const change = changeOf(record, setup.field);
				if (change && compareTimestamps(change.at, check.at) === 0 && isNew(change)) records.push(record);
			}
			if (setup.maxChanges !== undefined && records.length > setup.maxChanges) {
				// The ids of the ones sent are kept (a small group): the page read again skips them.
				walk.stopInPage();
				break;
			}
		}
		return { records: records.slice(0, setup.maxChanges), resume: walk.resume };
	};
	let listed: Awaited<ReturnType<typeof listFrom>>;
	try {
		listed = await listFrom(check.after);
	} catch (error) {
		if (check.after === undefined || !isCursorRefusal(error)) throw toNodeError(this.getNode(), error);
		listed = await listFrom(undefined);
	}
	const changes = listed.records.map((record) => changeOf(record, setup.field) as Change);
	const groupCheck = listed.resume === null ? null : { at: check.at, after: listed.resume.after, requests: listed.resume.requests ?? check.requests };
	if (changes.length > 0) {
		this.logger.info(`Personnel Data Trigger: ${changes.length} records were placed at ${check.at} behind the cursor after an earlier poll had read past them; sent now`);
	}
	const resume = groupCheck === null && state.resume !== null ? { ...state.resume, groupListed: true } : state.resume;
	const next = advance(state, changes, { lookbackMs: setup.lookbackMs, countAtWatermark: null, countView: setup.countView, resume, groupCheck });
	return { records: listed.records, next };
}
