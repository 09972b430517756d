import { createHash } from 'node:crypto';
import type { IDataObject, INodeExecutionData, IPollFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { PAGE_SIZE_MAX, QUERY } from '../shared/apiChoices';
import { readListQuery } from '../shared/listQuery/parse';
import { InputError, toNodeError } from '../shared/errors';
import { checkWholeNumber } from '../shared/validation';
import { asOfDay, simplifyRecords } from '../shared/listQuery/simplify';
import { collectRecords, pagesOf, readMaxRequests } from '../shared/pagination';
import type { ResourceDefinition } from '../shared/registry';
import { resourceByValue } from '../shared/registry';
import { compareTimestamps } from '../shared/timestamps';
import type { ApiRequest, Query } from '../shared/transport';
import { apiRequest } from '../shared/transport';
import type { Change, ChangeState } from './changeState';
import { advance, initialState, nextWatermark, noveltyCheck, readFrom, readState, streamOf } from './changeState';
import { LOOKBACK_MAX_MINUTES, MAX_CHANGES_CEILING } from './description';
import type { TriggerEvent } from './events';
import { eventOf } from './events';
import { isActivationPoll, leaseKey, PollLease } from './pollLease';
import { pollIntervalMs } from './pollSchedule';
import type { WatchNote, WatchSetup, WatchState } from './watchFields';
import { Baseline, compareWatched, readWatchSetup, selectedFor } from './watchFields';

const TEST_EVENT_COUNT = 3;

/** Activations the user makes (turning on, publishing an edit); not n8n starting or a new leader. */
const USER_ACTIVATIONS = new Set(['activate', 'update', 'create']);

interface PollSetup {
	resource: ResourceDefinition;
	event: TriggerEvent;
	field: string;
	query: Query;
	lookbackMs: number;
	simplify: boolean;
	/** The checked day of Dated Values As Of (YYYY-MM-DD). */
	asOfDate: string;
	/** Options → Max Requests: the budget of each page walk. */
	maxRequests: number;
	conditioned: boolean;
	stream: string;
	/** Digest of the filters (no condition, no field selection): the view a count was taken in. */
	countView: string;
	startFromNow: boolean;
	/** Options → Max Changes per Poll; undefined: no cap. */
	maxChanges: number | undefined;
	/** Options → Watch Fields; undefined: every change is sent. */
	watch: WatchSetup | undefined;
}

/** What every request of one poll shares. */
interface PollRun {
	lease: PollLease;
	/** When the next poll starts: no retry pause may last past it. */
	waitUntil?: number;
}

function without(query: Query, ...keys: string[]): Query {
	const copy = { ...query };
	for (const key of keys) delete copy[key];
	return copy;
}

function readSetup(context: IPollFunctions): PollSetup {
	const read = (name: string, fallback: unknown) => context.getNodeParameter(name, fallback as never) as unknown;
	const resource = resourceByValue(read('resource', 'employee') as string);
	const { event, field } = eventOf(resource, String(read('event', 'createdOrUpdated')));
	const query = readListQuery(resource, read);
	if (query[QUERY.filter(field, 'op')] !== undefined) {
		throw new InputError(`Filters: ${field} is set by the trigger itself; remove that filter`);
	}
	const options = read('options', {}) as IDataObject;
	const lookbackMinutes = Number(options.lookbackMinutes ?? 0);
	if (!Number.isFinite(lookbackMinutes) || lookbackMinutes < 0 || lookbackMinutes > LOOKBACK_MAX_MINUTES) {
		throw new InputError(
			`Options › Look-Back Window (Minutes): expected a number from 0 to ${LOOKBACK_MAX_MINUTES} (7 days), got ${JSON.stringify(options.lookbackMinutes)}`,
		);
	}
	const onActivation = options.onActivation ?? 'resume';
	if (onActivation !== 'resume' && onActivation !== 'startFromNow') {
		throw new InputError('Options › On Activation: expected "resume" or "startFromNow"');
	}
	const cap = options.maxChangesPerPoll ?? '';
	const maxChanges = cap === '' ? 0 : checkWholeNumber(cap, 'Options › Max Changes per Poll', 0, MAX_CHANGES_CEILING);
	const watch = readWatchSetup(options.watchFields, options.includePreviousValues === true);
	const select = query[QUERY.select] as string[] | undefined;
	if (select) query[QUERY.select] = [...new Set([...select, ...Object.values(resource.changeFields ?? {}), ...(watch ? selectedFor(watch) : [])])];
	const filters = JSON.stringify(without(query, QUERY.select, QUERY.conditionId));
	return {
		resource,
		event,
		field,
		query,
		lookbackMs: lookbackMinutes * 60_000,
		simplify: read('simplify', false) === true,
		asOfDate: asOfDay(options.asOfDate),
		maxRequests: readMaxRequests(options.maxRequests),
		conditioned: query[QUERY.conditionId] !== undefined,
		stream: streamOf(resource.value, field),
		countView: createHash('sha256').update(filters).digest('hex').slice(0, 16),
		startFromNow: onActivation === 'startFromNow',
		maxChanges: maxChanges === 0 ? undefined : maxChanges,
		watch,
	};
}

function changeOf(record: IDataObject, field: string): Change | undefined {
	const at = record[field];
	return typeof at === 'string' && record.id !== undefined ? { id: String(record.id), at } : undefined;
}

/** A record to emit, with what Watch Fields found in it. */
interface Emitted {
	record: IDataObject;
	note?: WatchNote;
}

function withEvent(setup: PollSetup, { record, note }: Emitted): IDataObject {
	const type = note?.firstSeen ? 'created' : setup.event.typeOf(record, setup.resource);
	const event: IDataObject = { type, resource: setup.resource.value, changedAt: record[setup.field] };
	if (note) {
		event.changedFields = note.changedFields;
		if (setup.watch?.withValues) event.previous = note.previous ?? {};
		if (note.historyChanges) event.historyChanges = note.historyChanges;
	}
	return { ...record, _event: event };
}

function listRequest(setup: PollSetup, query: Query, run?: PollRun): ApiRequest {
	return { method: 'GET', path: setup.resource.paths.list as string, query, waitUntil: run?.waitUntil };
}

/** The fields that locate a change only, and no condition: every record of the filters counts. */
function probeQuery(setup: PollSetup): Query {
	return { ...without(setup.query, QUERY.conditionId), [QUERY.select]: ['id', setup.field] };
}

const newestFirst = (setup: PollSetup): Query => ({ [QUERY.orderField]: setup.field, [QUERY.orderDirection]: 'desc' });
const oldestFirst = (setup: PollSetup): Query => ({ [QUERY.orderField]: setup.field, [QUERY.orderDirection]: 'asc' });
const fieldFilter = (setup: PollSetup, op: 'eq' | 'gt' | 'gte', value: string): Query => ({
	[QUERY.filter(setup.field, 'op')]: op,
	[QUERY.filter(setup.field, 'value')]: value,
});

interface FirstPage {
	records: IDataObject[];
	hasNextPage: boolean;
	/** The server's `total_count` when it gave a believable one (never with a condition). */
	totalCount: number | undefined;
}

const isObject = (value: unknown): value is IDataObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** One list request, its page and what the server says about the rest; the answer is checked. */
async function firstPage(this: IPollFunctions, request: ApiRequest, first: number): Promise<FirstPage> {
	const body: unknown = await apiRequest.call(this, { ...request, query: { ...request.query, [QUERY.first]: first }, expect: 'list' });
	const data = isObject(body) ? body.data : undefined;
	const pagination = isObject(body) ? body.pagination : undefined;
	if (!Array.isArray(data) || !data.every(isObject) || !isObject(pagination) || typeof pagination.has_next_page !== 'boolean') {
		throw new NodeOperationError(this.getNode(), `The API's answer to GET ${request.path} is not a page of records (data and pagination.has_next_page expected)`);
	}
	const records = data.slice(0, first);
	const hasNextPage = pagination.has_next_page;
	const total = pagination.total_count;
	const believable =
		typeof total === 'number' && Number.isInteger(total) && total >= records.length && (hasNextPage ? total > records.length : total === records.length);
	return { records, hasNextPage, totalCount: believable ? total : undefined };
}

/** How many records the server lists at exactly `at` (the filters, no condition); null: it does not say. */
async function countAt(this: IPollFunctions, setup: PollSetup, at: string, run: PollRun): Promise<number | null> {
	const page = await firstPage.call(this, listRequest(setup, { ...probeQuery(setup), ...fieldFilter(setup, 'eq', at) }, run), 1);
	run.lease.progress();
	return page.totalCount ?? null;
}

/** At activation: where "now" is, by the server's own newest timestamp, and what sits at it. */
async function activate(this: IPollFunctions, setup: PollSetup, run: PollRun, revision: number): Promise<ChangeState> {
	if (setup.conditioned) {
		// The probes below leave the condition out. One request with it makes a condition the API
		// refuses (another domain, another organization) fail the activation, where n8n shows the
		// error, rather than every poll after it.
		try {
			await firstPage.call(this, listRequest(setup, { ...setup.query, [QUERY.select]: ['id'] }, run), 1);
		} catch (error) {
			throw conditionRefused(this, error);
		}
	}
	const probe = probeQuery(setup);
	const [newest] = await collectRecords.call(this, listRequest(setup, { ...probe, ...newestFirst(setup) }, run), { limit: 1, maxRequests: setup.maxRequests });
	const newestAt = newest ? changeOf(newest, setup.field)?.at ?? null : null;
	const options = { lookbackMs: setup.lookbackMs, countView: setup.countView };
	if (newestAt === null) return initialState(revision, setup.stream, null, [], { ...options, countAtWatermark: 0 });

	const start = setup.lookbackMs > 0 ? fieldFilter(setup, 'gte', readFrom(initialState(revision, setup.stream, newestAt, [], { ...options, countAtWatermark: null }), setup.lookbackMs) as string) : fieldFilter(setup, 'eq', newestAt);
	const existing = (await collectRecords.call(this, listRequest(setup, { ...probe, ...newestFirst(setup), ...start }, run), { maxRequests: setup.maxRequests }))
		.map((record) => changeOf(record, setup.field))
		.filter((change): change is Change => change !== undefined);
	const atNewest = existing.filter((change) => compareTimestamps(change.at, newestAt) === 0).length;
	return initialState(revision, setup.stream, newestAt, existing, { ...options, countAtWatermark: atNewest });
}

/** The API's own reason (its inner errors) in the headline n8n shows when activation fails. */
function conditionRefused(context: IPollFunctions, error: unknown): Error {
	if (!(error instanceof NodeApiError) || error.httpCode === null || !/^4/.test(error.httpCode ?? '')) return toNodeError(context.getNode(), error);
	const inner = (error.errorResponse as JsonObject | undefined)?.errors;
	const entries: unknown[] = Array.isArray(inner) ? inner : [];
	const reasons = entries
		.filter(isObject)
		.map((entry) => [entry.message, entry.reason].filter((part) => typeof part === 'string' && part !== '').join(' — '))
		.filter((text) => text !== '');
	if (reasons.length === 0) return error;
	return new NodeOperationError(context.getNode(), `Condition refused by the Personnel Data API: ${reasons.join('; ')}`, {
		description: error.description ?? undefined,
	});
}

/** "Fetch Test Event": the most recent few, so fields can be mapped; state is left alone. */
async function sample(this: IPollFunctions, setup: PollSetup): Promise<IDataObject[]> {
	return await collectRecords.call(this, listRequest(setup, { ...setup.query, ...newestFirst(setup) }), { limit: TEST_EVENT_COUNT, maxRequests: setup.maxRequests });
}

interface Reading {
	records: IDataObject[];
	/** The state to store; null: nothing changed (the stored one stays as it is). */
	next: ChangeState | null;
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
async function readChanges(this: IPollFunctions, setup: PollSetup, state: ChangeState, run: PollRun): Promise<Reading> {
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
	const probe = await firstPage.call(this, listRequest(setup, { ...base, ...newestFirst(setup), ...fieldFilter(setup, 'gte', watermark) }, run), PAGE_SIZE_MAX);
	run.lease.progress();
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
function capped(setup: PollSetup, state: ChangeState, reading: Reading): Reading {
	if (setup.maxChanges === undefined || reading.records.length <= setup.maxChanges) return reading;
	const records = reading.records.slice(0, setup.maxChanges);
	const changes = records.map((record) => changeOf(record, setup.field) as Change);
	return { records, next: advance(state, changes, { lookbackMs: setup.lookbackMs, countAtWatermark: null, countView: setup.countView }) };
}

/** The newest change timestamp among the filtered records, whatever the condition. */
async function newestOverall(this: IPollFunctions, setup: PollSetup, run: PollRun): Promise<string | null> {
	const [newest] = await collectRecords.call(this, listRequest(setup, { ...probeQuery(setup), ...newestFirst(setup) }, run), { limit: 1, maxRequests: setup.maxRequests });
	run.lease.progress();
	return newest ? changeOf(newest, setup.field)?.at ?? null : null;
}

/** A rate limit the poll could not wait out: say that nothing is lost. */
function explained(context: IPollFunctions, error: unknown, intervalMs: number): Error {
	if (error instanceof NodeApiError && error.httpCode === '429') {
		return new NodeOperationError(
			context.getNode(),
			`The Personnel Data API is rate limiting (429) for longer than this poll may wait (until the next poll, ${Math.round(intervalMs / 1000)} s); nothing was emitted and the next poll continues from the same point`,
			{ description: error.description ?? undefined },
		);
	}
	return toNodeError(context.getNode(), error);
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
async function withWatch(this: IPollFunctions, setup: PollSetup, state: ChangeState, run: PollRun): Promise<ChangeState> {
	if (!setup.watch) return state.watch === null ? state : { ...state, watch: null };
	if (state.watch?.key === setup.watch.key) return state;
	return { ...state, watch: await baseline.call(this, setup, setup.watch, run) };
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
		throw explained(this, error, intervalMs);
	} finally {
		lease.release();
	}
}
