import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { toNodeError } from '../shared/errors';
import { simplifyRecords } from '../shared/listQuery/simplify';
import { collectRecords } from '../shared/pagination';
import type { ChangeState } from './changeState';
import { readState } from './changeState';
import { labelOf } from './events';
import { isActivationPoll, leaseKey, PollLease } from './pollLease';
import { pollIntervalMs } from './pollSchedule';
import { capped, readChanges, withWatch } from './reading';
import { refusedByServer } from './serverSupport';
import type { PollRun, PollSetup } from './setup';
import { activate, listRequest, newestFirst, readSetup } from './setup';
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
}

function withEvent(setup: PollSetup, { record, note }: Emitted): IDataObject {
	const type = labelOf(setup.event, record, setup.resource, note?.firstSeen);
	const event: IDataObject = { type, resource: setup.resource.value, changedAt: record[setup.field] };
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
	const stored = run.lease.newest(readState(staticData.changes));
	const store = (next: ChangeState): boolean => {
		// A poll overtaken as hung stores and emits nothing: the one that took over does.
		if (!run.lease.held) return false;
		staticData.changes = next;
		run.lease.commit(next);
		return true;
	};
	const startAfresh = setup.startFromNow && activationPoll && USER_ACTIVATIONS.has(this.getActivationMode());
	if (!stored || stored.stream !== setup.stream || startAfresh) {
		const started = await activate.call(this, setup, run, stored?.revision ?? 0);
		store(await withWatch.call(this, setup, started, run));
		return null;
	}
	const state = await withWatch.call(this, setup, stored, run);
	const reading = capped(setup, state, await readChanges.call(this, setup, state, run));
	let next = reading.next;
	let emitted: Emitted[] = reading.records.map((record) => ({ record }));
	if (setup.watch && state.watch) {
		const compared = compareWatched(setup.watch, state.watch, reading.records);
		emitted = compared.emitted;
		if (next !== null) next = { ...next, watch: compared.state };
	}
	// A watch state read afresh (or dropped) is stored even when nothing changed.
	if (next === null && state !== stored) next = { ...state, revision: state.revision + 1 };
	if (next !== null && !store(next)) return null;
	return run.lease.held ? emitted : null;
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
		return emit(await pollWithLease.call(this, setup, { lease, waitUntil: Date.now() + intervalMs }, activationPoll));
	} catch (error) {
		throw explained(this, error, intervalMs, setup);
	} finally {
		lease.release();
	}
}
