import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { toNodeError } from '../shared/errors';
import { compareTimestamps } from '../shared/timestamps';
import { simplifyRecords } from '../shared/listQuery/simplify';
import { collectRecords } from '../shared/pagination';
import type { ChangeState } from './changeState';
import { readState } from './changeState';
import { labelOf } from './events';
import { continueActivation, activate } from './activation';
import { pollClock, stillInTime } from './pollBudget';
import { isActivationPoll, leaseKey, PollLease } from './pollLease';
import { pollIntervalMs } from './pollSchedule';
import { capped, readChanges } from './reading';
import { marksHandOver, positionOf, resolveHandOver } from './handOver';
import { refusedByServer } from './serverSupport';
import { withWatch } from './watchBaseline';
import type { PollRun, PollSetup } from './setup';
import { listRequest, newestFirst, readSetup } from './setup';
import type { WatchNote } from './watchFields';
import { compareWatched } from './watchFields';

/**
 * One poll of the trigger: under the lease (one poll of a trigger at a time), activate or read
 * the changes, store the state, and emit each change as an item with its `_event`.
 */

/** Fetch Test Event: enough records to map fields from. */
const TEST_EVENT_COUNT = 3;

/** Activations the user makes (turning on, publishing an edit); not n8n starting or a new leader. */
const USER_ACTIVATIONS = new Set(['activate', 'update', 'create']);

/** A record to emit, with what Watch Fields found in it. */
interface Emitted {
	record: IDataObject;
	note?: WatchNote;
	/** Sent once more after n8n stopped at a hand-over (handOver.ts). */
	possiblyRepeated?: boolean;
}

function withEvent(setup: PollSetup, { record, note, possiblyRepeated }: Emitted): IDataObject {
	const type = labelOf(setup.event, record, setup.resource, note?.firstSeen);
	const event: IDataObject = { type, resource: setup.resource.value, changedAt: record[setup.field] };
	if (possiblyRepeated) event.possiblyRepeated = true;
	if (note) {
		event.changedFields = note.changedFields;
		if (setup.watch?.withValues) event.previous = note.previous ?? {};
		if (note.historyChanges) event.historyChanges = note.historyChanges;
	}
	return { ...record, _event: event };
}

/** "Fetch Test Event": the most recent few, so fields can be mapped; state is left alone. */
async function sample(this: IPollFunctions, setup: PollSetup): Promise<IDataObject[]> {
	return await collectRecords.call(this, listRequest(setup, { ...setup.query, ...newestFirst(setup) }), { limit: TEST_EVENT_COUNT, maxRequests: setup.maxRequests });
}

/** A rate limit the poll could not wait out: say that nothing is lost. A server that refuses the event's field: say so. */
function explained(context: IPollFunctions, error: unknown, intervalMs: number, setup: PollSetup): Error {
	if (error instanceof NodeApiError && error.httpCode === '429') {
		return new NodeOperationError(
			context.getNode(),
			`The Personnel Data API is rate limiting (429) for longer than this poll may wait (until the next poll, ${Math.round(intervalMs / 1000)} s); nothing was emitted and the next poll continues from the same point`,
			{ description: error.description ?? undefined },
		);
	}
	return refusedByServer(context, error, setup) ?? toNodeError(context.getNode(), error);
}

async function pollWithLease(this: IPollFunctions, setup: PollSetup, run: PollRun, activationPoll: boolean): Promise<Emitted[] | null> {
	const staticData = this.getWorkflowStaticData('node');
	const fromN8n = readState(staticData.changes);
	if (run.lease.awaitsSave(fromN8n)) {
		this.logger.debug('Personnel Data Trigger: n8n has not stored the state of the previous poll yet; this poll reads nothing');
		return null;
	}
	const stored = run.lease.newest(fromN8n);
	const store = (next: ChangeState, emitting: boolean): boolean => {
		// A poll overtaken as hung stores and emits nothing: the one that took over does.
		if (!run.lease.held) return false;
		if (!stillInTime(run.clock)) {
			// n8n's durable scheduler has abandoned this poll at its timeout: it takes nothing from it.
			this.logger.warn('Personnel Data Trigger: this poll ended after its time budget; it stores and sends nothing, the next poll reads the same changes');
			return false;
		}
		staticData.changes = next;
		if (carriedInProcess(run, emitting)) run.lease.commit(next);
		else run.lease.expectSave(next);
		return true;
	};
	const userActivation = activationPoll && !run.clock.scheduled && USER_ACTIVATIONS.has(this.getActivationMode());
	const startAfresh = setup.startFromNow && userActivation;
	const otherOrigin = setup.backfillFrom !== undefined && stored?.origin !== setup.backfillFrom;
	if (!stored || stored.stream !== setup.stream || startAfresh || otherOrigin) {
		const started = await activate.call(this, setup, run, stored?.revision ?? 0);
		store(await withWatch.call(this, setup, started, run), false);
		return null;
	}
	const { state: handedOver, repeatedUpTo } = resolveHandOver(stored, run.lease.storedHere(stored));
	if (repeatedUpTo !== null) {
		this.logger.info('Personnel Data Trigger: n8n stopped soon after the last poll handed changes over; they are sent again, marked possiblyRepeated');
	}
	const state = await withWatch.call(this, setup, handedOver, run);
	const bump = (next: ChangeState): ChangeState => ({ ...next, revision: stored.revision + 1 });
	if (state.watch?.after !== undefined) {
		// The baseline is not complete yet: changes are compared with it once it is.
		store(bump(state), false);
		return null;
	}
	if (state.resume?.purpose === 'skip') {
		store(await continueActivation.call(this, setup, run, state, state.resume), false);
		return null;
	}
	const reading = capped(setup, state, await readChanges.call(this, setup, state, run));
	let next = reading.next;
	const repeated = (record: IDataObject) => repeatedUpTo !== null && compareTimestamps(String(record[setup.field]), repeatedUpTo) <= 0;
	let emitted: Emitted[] = reading.records.map((record) => ({ record, ...(repeated(record) ? { possiblyRepeated: true } : {}) }));
	if (setup.watch && state.watch) {
		const compared = compareWatched(setup.watch, state.watch, reading.records);
		emitted = compared.emitted;
		if (next !== null) next = { ...next, watch: compared.state };
	}
	// A watch state read afresh (or dropped), or a hand-over mark confirmed, is stored even when nothing changed.
	if (next === null && state !== stored) next = bump(state);
	if (next !== null && emitted.length > 0 && marksHandOver(setup, run)) next = { ...next, handOver: positionOf(state) };
	if (next !== null && !store(next, emitted.length > 0)) return null;
	if (next === null && !stillInTime(run.clock)) return null;
	return run.lease.held ? emitted : null;
}

/**
 * Whether this process carries a poll's state to its next poll, should n8n not give it back
 * (pollLease.ts). Only where that cannot carry the trigger past changes n8n did not take: a poll
 * that sends nothing (an activation, a baseline, changes Watch Fields holds back), or any poll on
 * n8n without a poll budget (2.8: no scheduler abandons a poll, and every poll's items run).
 * n8n 2.41 may abandon a poll or drop its items (a superseded activation): its state then comes
 * only from what n8n saved, and the next poll waits a while for that save (`PollLease.awaitsSave`).
 */
function carriedInProcess(run: PollRun, emitting: boolean): boolean {
	return !emitting || run.clock.n8nBudgetMs === undefined;
}

export async function pollChanges(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	let setup: PollSetup;
	try {
		setup = readSetup(this);
	} catch (error) {
		throw toNodeError(this.getNode(), error);
	}
	const emit = (records: Emitted[] | null) =>
		records === null || records.length === 0
			? null
			: [this.helpers.returnJsonArray(simplifyRecords(records.map((r) => withEvent(setup, r)), setup.simplify, setup.asOfDate))];

	if (this.getMode() === 'manual') return emit((await sample.call(this, setup)).map((record) => ({ record })));

	const lease = PollLease.acquire(leaseKey(this.getWorkflow().id, this.getNode().name));
	if (!lease) {
		// The running poll will emit what there is; emitting it here too would send it twice.
		this.logger.debug('Personnel Data Trigger: the previous poll of this trigger is still running; this one is skipped');
		return null;
	}
	// After the lease: an activation whose first poll was skipped counts its next one as the first.
	const activationPoll = isActivationPoll(this);
	const intervalMs = pollIntervalMs(this.getNodeParameter('pollTimes', {}));
	try {
		const clock = pollClock(this, setup.timeBudgetSeconds);
		return emit(await pollWithLease.call(this, setup, { lease, waitUntil: Date.now() + intervalMs, clock }, activationPoll));
	} catch (error) {
		throw explained(this, error, intervalMs, setup);
	} finally {
		lease.release();
	}
}
