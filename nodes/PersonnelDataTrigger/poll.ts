import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { toNodeError } from '../shared/errors';
import { simplifyRecords } from '../shared/listQuery/simplify';
import { collectRecords } from '../shared/pagination';
import { activate, fromLegacy } from './activation';
import { labelOf } from './events';
import { eventKeyOf, readFeed } from './feedReading';
import { pollClock, readBudgetSpent, stillInTime } from './pollBudget';
import { isActivationPoll, leaseKey, PollLease } from './pollLease';
import { pollIntervalMs } from './pollSchedule';
import { refusedByServer } from './serverSupport';
import type { TriggerState } from './triggerState';
import { readState } from './triggerState';
import { sweepWatch, withWatch } from './watchBaseline';
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
	/** The change's event key (changeFeed.ts `eventKey`): the same for the same change, in any poll. */
	key?: string;
	/** Sent again after a restart, with Options → On Restart: Send the Last Poll Again. */
	possiblyRepeated?: boolean;
	/** The feed's memory reached its bound in this poll: changes before this time counted as settled early. */
	settledEarly?: string;
	/** Not the first version sent at its timestamp (feedState.ts `Delivery`). */
	laterInItsTime?: boolean;
}

function withEvent(setup: PollSetup, { record, note, key, possiblyRepeated, settledEarly, laterInItsTime }: Emitted): IDataObject {
	const type = labelOf(setup.event, record, setup.resource, { firstSeen: note?.firstSeen, laterInItsTime });
	const event: IDataObject = { type, resource: setup.resource.value, changedAt: record[setup.field] };
	if (key !== undefined) event.key = key;
	if (possiblyRepeated) event.possiblyRepeated = true;
	if (settledEarly !== undefined) event.settledEarly = settledEarly;
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
	const read = readState(staticData.changes);
	const fromN8n = read !== undefined && 'legacy' in read ? fromLegacy(setup, read) : read;
	if (run.lease.awaitsSave(fromN8n)) {
		this.logger.debug('Personnel Data Trigger: n8n has not stored the state of the previous poll yet; this poll reads nothing');
		return null;
	}
	const stored = run.lease.newest(fromN8n);
	const store = (next: TriggerState, emitting: boolean): boolean => {
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
	let state: TriggerState;
	if (!stored || stored.stream !== setup.stream || startAfresh || otherOrigin) {
		state = await activate.call(this, setup, run, stored?.revision ?? 0, stored?.watch ?? null);
	} else {
		state = stored;
	}
	state = await withWatch.call(this, setup, state, run);
	const bump = (next: TriggerState): TriggerState => ({ ...next, revision: (stored?.revision ?? 0) + 1 });
	if (state.watch?.after !== undefined) {
		// The baseline is not complete yet: changes are compared with it once it is.
		store(bump(state), false);
		return null;
	}
	// Whether n8n took the poll that stored this state: this process stored it (it lived on), or n8n
	// commits the state with the execution (the durable scheduler).
	const confirmed = run.lease.storedHere(state) || run.clock.scheduled;
	const reading = await readFeed.call(this, setup, state.feed, run, confirmed);
	for (const warning of reading.warnings) this.logger.warn(`Personnel Data Trigger: ${warning} (docs/trigger.md)`);
	const marks = reading.settledEarly === null ? {} : { settledEarly: reading.settledEarly };
	let emitted: Emitted[] = reading.deliveries.map(({ record, key, possiblyRepeated, laterInItsTime }) => ({
		record: record.record,
		key,
		...(possiblyRepeated ? { possiblyRepeated } : {}),
		...(laterInItsTime ? { laterInItsTime } : {}),
		...marks,
	}));
	let next: TriggerState = bump({ ...state, feed: reading.feed });
	if (setup.watch && state.watch) {
		const compared = compareWatched(setup.watch, state.watch, emitted.map((entry) => entry.record));
		const byRecord = new Map(emitted.map((entry) => [entry.record, entry]));
		emitted = compared.emitted.map(({ record, note }) => ({ ...(byRecord.get(record) as Emitted), note }));
		next = { ...next, watch: compared.state };
		// Now and then the records are listed again, to forget the deleted ones: in any poll with
		// budget left, also one that sends, so that the state stays bounded however often polls send.
		if (!readBudgetSpent(run.clock)) next = { ...next, watch: await sweepWatch.call(this, setup, compared.state, run) };
	}
	if (!store(next, emitted.length > 0)) return null;
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

	if (this.getMode() === 'manual') return emit((await sample.call(this, setup)).map((record) => ({ record, key: eventKeyOf(this, setup, record) })));

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
