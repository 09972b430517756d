import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { QUERY } from '../shared/apiChoices';
import { readListQuery } from '../shared/listQuery/parse';
import { InputError, toNodeError } from '../shared/errors';
import { asOfDay, simplifyRecords } from '../shared/listQuery/simplify';
import { collectRecords, pagesOf, readMaxRequests } from '../shared/pagination';
import type { ResourceDefinition } from '../shared/registry';
import { resourceByValue } from '../shared/registry';
import type { ApiRequest, Query } from '../shared/transport';
import type { Change, ChangeState } from './changeState';
import { advance, initialState, noveltyCheck, readFrom } from './changeState';
import { LOOKBACK_MAX_MINUTES } from './description';
import type { TriggerEvent } from './events';
import { eventOf } from './events';

const TEST_EVENT_COUNT = 3;

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
	configKey: string;
}

function without(query: Query, key: string): Query {
	const copy = { ...query };
	delete copy[key];
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
	const select = query[QUERY.select] as string[] | undefined;
	if (select) query[QUERY.select] = [...new Set([...select, ...Object.values(resource.changeFields ?? {})])];
	const watched = without(query, QUERY.select);
	return {
		resource,
		event,
		field,
		query,
		lookbackMs: lookbackMinutes * 60_000,
		simplify: read('simplify', false) === true,
		asOfDate: asOfDay(options.asOfDate),
		maxRequests: readMaxRequests(options.maxRequests),
		configKey: JSON.stringify({ resource: resource.value, field, watched, lookbackMinutes }),
	};
}

function changeOf(record: IDataObject, field: string): Change | undefined {
	const at = record[field];
	return typeof at === 'string' && record.id !== undefined ? { id: String(record.id), at } : undefined;
}

function withEvent(setup: PollSetup, record: IDataObject): IDataObject {
	const type = setup.event.typeOf(record, setup.resource);
	return { ...record, _event: { type, resource: setup.resource.value, changedAt: record[setup.field] } };
}

function listRequest(setup: PollSetup, query: Query): ApiRequest {
	return { method: 'GET', path: setup.resource.paths.list as string, query };
}

/** Newest first, the fields that locate a change only, and no condition: every record counts. */
function probeQuery(setup: PollSetup): Query {
	return {
		...without(setup.query, QUERY.conditionId),
		[QUERY.select]: ['id', setup.field],
		[QUERY.orderField]: setup.field,
		[QUERY.orderDirection]: 'desc',
	};
}

/** The server's newest change timestamp (among the filtered records, whatever the condition). */
async function newestChange(this: IPollFunctions, setup: PollSetup): Promise<string | null> {
	const [newest] = await collectRecords.call(this, listRequest(setup, probeQuery(setup)), { limit: 1, maxRequests: setup.maxRequests });
	return newest ? changeOf(newest, setup.field)?.at ?? null : null;
}

/** At activation: where "now" is, by the server's own newest timestamp, and what sits at it. */
async function activate(this: IPollFunctions, setup: PollSetup): Promise<ChangeState> {
	if (setup.query[QUERY.conditionId] !== undefined) {
		// The probes below leave the condition out. One request with it makes a condition the API
		// refuses (another domain, deleted) fail the activation, where n8n shows the error, rather
		// than every poll after it.
		await pagesOf.call(this, listRequest(setup, { ...setup.query, [QUERY.select]: ['id'] }), { limit: 1, maxRequests: setup.maxRequests }).next();
	}
	const probe = probeQuery(setup);
	const newestAt = await newestChange.call(this, setup);
	if (newestAt === null) return initialState(setup.configKey, null, [], setup.lookbackMs);

	const start = readFrom({ configKey: '', watermark: newestAt, idsAtWatermark: [], recent: [] }, setup.lookbackMs) as string;
	const existingQuery: Query = {
		...probe,
		[QUERY.filter(setup.field, 'op')]: setup.lookbackMs > 0 ? 'gte' : 'eq',
		[QUERY.filter(setup.field, 'value')]: setup.lookbackMs > 0 ? start : newestAt,
	};
	const existing = (await collectRecords.call(this, listRequest(setup, existingQuery), { maxRequests: setup.maxRequests }))
		.map((record) => changeOf(record, setup.field))
		.filter((change): change is Change => change !== undefined);
	return initialState(setup.configKey, newestAt, existing, setup.lookbackMs);
}

/** "Fetch Test Event": the most recent few, so fields can be mapped; state is left alone. */
async function sample(this: IPollFunctions, setup: PollSetup): Promise<IDataObject[]> {
	const query: Query = { ...setup.query, [QUERY.orderField]: setup.field, [QUERY.orderDirection]: 'desc' };
	return await collectRecords.call(this, listRequest(setup, query), { limit: TEST_EVENT_COUNT, maxRequests: setup.maxRequests });
}

/** Every change since the watermark, to the last page, before the watermark moves. */
async function changesSince(this: IPollFunctions, setup: PollSetup, state: ChangeState) {
	const from = readFrom(state, setup.lookbackMs);
	const query: Query = { ...setup.query, [QUERY.orderField]: setup.field, [QUERY.orderDirection]: 'asc' };
	if (from !== null) {
		query[QUERY.filter(setup.field, 'op')] = 'gte';
		query[QUERY.filter(setup.field, 'value')] = from;
	}
	const isNew = noveltyCheck(state);
	const records: IDataObject[] = [];
	const changes: Change[] = [];
	for await (const page of pagesOf.call(this, listRequest(setup, query), { maxRequests: setup.maxRequests })) {
		for (const record of page) {
			const change = changeOf(record, setup.field);
			if (change && isNew(change)) {
				records.push(record);
				changes.push(change);
			}
		}
	}
	return { records, changes };
}

export async function pollChanges(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	let setup: PollSetup;
	try {
		setup = readSetup(this);
	} catch (error) {
		throw toNodeError(this.getNode(), error);
	}
	const emit = (records: IDataObject[]) =>
		records.length === 0
			? null
			: [this.helpers.returnJsonArray(simplifyRecords(records.map((r) => withEvent(setup, r)), setup.simplify, setup.asOfDate))];

	if (this.getMode() === 'manual') return emit(await sample.call(this, setup));

	const staticData = this.getWorkflowStaticData('node');
	const state = staticData.changes as ChangeState | undefined;
	if (!state || state.configKey !== setup.configKey) {
		staticData.changes = await activate.call(this, setup);
		return null;
	}
	// With a condition, the pages hold only the records it passes; the newest change of all,
	// taken before the pages are read, lets the watermark pass the rejected ones (one request more).
	const horizon = setup.query[QUERY.conditionId] === undefined ? null : await newestChange.call(this, setup);
	const { records, changes } = await changesSince.call(this, setup, state);
	// Only now, with every page read, does the watermark move: a failed poll is simply repeated.
	staticData.changes = advance(state, changes, setup.lookbackMs, horizon);
	return emit(records);
}
