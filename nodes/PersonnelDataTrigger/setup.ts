import { createHash } from 'node:crypto';
import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { QUERY } from '../shared/apiChoices';
import { InputError } from '../shared/errors';
import { idKey } from '../shared/ids';
import { readListQuery } from '../shared/listQuery/parse';
import { asOfDay } from '../shared/listQuery/simplify';
import { collectRecords, readMaxRequests } from '../shared/pagination';
import type { ResourceDefinition } from '../shared/registry';
import { resourceByValue } from '../shared/registry';
import type { ApiRequest, Query } from '../shared/transport';
import { checkWholeNumber } from '../shared/validation';
import type { FeedOptions } from './feedState';
import { SETTLE_DEFAULT_MS } from './feedState';
import type { ProductEvent } from './events';
import { defaultEventOf, eventOf } from './events';
import type { PollClock } from './pollBudget';
import type { PollLease } from './pollLease';
import { missingChangeField } from './serverSupport';
import { streamOf } from './triggerState';
import type { WatchSetup } from './watchFields';
import { readWatchSetup, selectedFor } from './watchFields';
import { CONTENT_SCHEME } from './versionContent';

/**
 * The trigger's setup: what the form asks for (checked), the list requests it makes, and the
 * starting point an activation takes.
 */

/** Re-reading more than a week on every poll would cost more than late data is worth. */
export const LOOKBACK_MAX_MINUTES = 7 * 24 * 60;

/** Options → Settle Window (Minutes) by default (changeFeed.ts: `SETTLE_DEFAULT_MS`). */
export const SETTLE_DEFAULT_MINUTES = SETTLE_DEFAULT_MS / 60_000;

/** The largest Max Changes per Poll: an execution of more items than this is not "bounded". */
export const MAX_CHANGES_CEILING = 100_000;

/** Before any record of the API: a lower bound that keeps every change time and no empty one. */
const EARLIEST_CHANGE = '1970-01-01T00:00:00Z';

export interface PollSetup {
	resource: ResourceDefinition;
	event: ProductEvent;
	field: string;
	query: Query;
	/** What the change feed is told (changeFeed.ts): settle window, caps, the query's digests, restart mode. */
	feed: FeedOptions;
	simplify: boolean;
	/** The checked day of Dated Values As Of (YYYY-MM-DD). */
	asOfDate: string;
	/** Options → Max Requests: the budget of each page walk. */
	maxRequests: number;
	conditioned: boolean;
	stream: string;
	startFromNow: boolean;
	/** On Activation → Start From a Date: that date, as an ISO timestamp; undefined: not asked for. */
	backfillFrom: string | undefined;
	/** Options → Time Budget per Poll (Seconds), as given (pollBudget.ts checks it). */
	timeBudgetSeconds: unknown;
	/** Options → Max Changes per Poll; undefined: no cap. */
	maxChanges: number | undefined;
	/** Options → Watch Fields; undefined: every change is sent. */
	watch: WatchSetup | undefined;
}

/** What every request of one poll shares. */
export interface PollRun {
	lease: PollLease;
	/** When the next poll starts: no retry pause may last past it. */
	waitUntil?: number;
	/** The poll's time budget: when reading stops, and when every request must be over. */
	clock: PollClock;
}

export function without(query: Query, ...keys: string[]): Query {
	const copy = { ...query };
	for (const key of keys) delete copy[key];
	return copy;
}

/** The form as the poll uses it; a wrong value is an InputError naming the field. */
export function readSetup(context: IPollFunctions): PollSetup {
	const read = (name: string, fallback: unknown) => context.getNodeParameter(name, fallback as never) as unknown;
	const resource = resourceByValue(read('resource', 'employee') as string);
	const { event, field } = eventOf(resource, String(read('event', defaultEventOf(resource))));
	const query = readListQuery(resource, read);
	if (query[QUERY.filter(field, 'op')] !== undefined) {
		throw new InputError(`Filters: ${field} is set by the trigger itself; remove that filter`);
	}
	const options = read('options', {}) as IDataObject;
	const settleMinutes = Number(options.lookbackMinutes ?? SETTLE_DEFAULT_MINUTES);
	if (!Number.isFinite(settleMinutes) || settleMinutes < 0 || settleMinutes > LOOKBACK_MAX_MINUTES) {
		throw new InputError(
			`Options › Settle Window (Minutes): expected a number from 0 to ${LOOKBACK_MAX_MINUTES} (7 days), got ${JSON.stringify(options.lookbackMinutes)}`,
		);
	}
	const onRestart = options.onRestart ?? 'repeatNothing';
	if (onRestart !== 'repeatNothing' && onRestart !== 'sendAgain') {
		throw new InputError('Options › On Restart: expected "repeatNothing" or "sendAgain"');
	}
	const onActivation = options.onActivation ?? 'resume';
	if (onActivation !== 'resume' && onActivation !== 'startFromNow' && onActivation !== 'startFromDate') {
		throw new InputError('Options › On Activation: expected "resume", "startFromNow" or "startFromDate"');
	}
	const backfillFrom = onActivation === 'startFromDate' ? readStartDate(options.startDate) : undefined;
	const cap = options.maxChangesPerPoll ?? '';
	const maxChanges = cap === '' ? 0 : checkWholeNumber(cap, 'Options › Max Changes per Poll', 0, MAX_CHANGES_CEILING);
	const watch = readWatchSetup(options.watchFields, options.includePreviousValues === true, JSON.stringify(without(query, QUERY.select, QUERY.conditionId)));
	const select = query[QUERY.select] as string[] | undefined;
	if (select) query[QUERY.select] = [...new Set([...select, ...Object.values(resource.changeFields ?? {}), field, ...(watch ? selectedFor(watch) : [])])];
	const digest = (value: unknown) => createHash('sha256').update(JSON.stringify(value ?? null)).digest('hex').slice(0, 16);
	return {
		resource,
		event,
		field,
		query,
		feed: {
			settleMs: settleMinutes * 60_000,
			maxChanges: maxChanges === 0 ? undefined : maxChanges,
			maxRequests: readMaxRequests(options.maxRequests),
			view: digest(query),
			contentView: digest([CONTENT_SCHEME, query[QUERY.select]]),
			atLeastOnce: onRestart === 'sendAgain',
		},
		simplify: read('simplify', false) === true,
		asOfDate: asOfDay(options.asOfDate),
		maxRequests: readMaxRequests(options.maxRequests),
		conditioned: query[QUERY.conditionId] !== undefined,
		stream: streamOf(resource.value, field),
		startFromNow: onActivation === 'startFromNow',
		backfillFrom,
		timeBudgetSeconds: options.timeBudgetSeconds,
		maxChanges: maxChanges === 0 ? undefined : maxChanges,
		watch,
	};
}

/** Options › Start Date (On Activation → Start From a Date): a date or date-time in the past, as ISO UTC. */
function readStartDate(given: unknown): string {
	const text = typeof given === 'string' ? given.trim() : '';
	// n8n's date picker gives a local date-time without an offset; it is read as UTC, as the API's timestamps are.
	const iso = /^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : /[zZ]|[+-]\d{2}:?\d{2}$/.test(text) ? text : `${text}Z`;
	const at = text === '' ? NaN : Date.parse(iso);
	if (!Number.isFinite(at) || at > Date.now()) {
		throw new InputError(`Options › Start Date: expected a date or date-time in the past (such as 2026-01-31 or 2026-01-31T08:00:00Z), got ${JSON.stringify(given ?? '')}`);
	}
	return new Date(at).toISOString();
}

/** A record's change: its id key (shared/ids.ts) and the timestamp the event reads. */
export interface Change {
	id: string;
	at: string;
}

/** The record's change; undefined when it lacks the id or the timestamp. */
export function changeOf(record: IDataObject, field: string): Change | undefined {
	const at = record[field];
	return typeof at === 'string' && record.id !== undefined ? { id: idKey(String(record.id)), at } : undefined;
}

export function listRequest(setup: PollSetup, query: Query, run?: PollRun): ApiRequest {
	return { method: 'GET', path: setup.resource.paths.list as string, query, waitUntil: run?.waitUntil, deadline: run?.clock.pagesUntil };
}

/** The fields that locate a change only, and no condition: every record of the filters counts. */
export function probeQuery(setup: PollSetup): Query {
	return { ...without(setup.query, QUERY.conditionId), [QUERY.select]: ['id', setup.field] };
}

export const fieldFilter = (setup: PollSetup, op: 'eq' | 'gt' | 'gte', value: string): Query => ({
	[QUERY.filter(setup.field, 'op')]: op,
	[QUERY.filter(setup.field, 'value')]: value,
});
/**
 * Records whose change field holds a time. Where records without one (a unit never deleted) sort
 * is the server's choice: first in a newest-first list on some, which made activation take "no
 * change yet" and the next poll send every old deletion. A later filter on the field replaces it.
 */
const hasChangeTime = (setup: PollSetup): Query => fieldFilter(setup, 'gte', EARLIEST_CHANGE);
export const newestFirst = (setup: PollSetup): Query => ({ ...hasChangeTime(setup), [QUERY.orderField]: setup.field, [QUERY.orderDirection]: 'desc' });
export const oldestFirst = (setup: PollSetup): Query => ({ ...hasChangeTime(setup), [QUERY.orderField]: setup.field, [QUERY.orderDirection]: 'asc' });

/** The newest change timestamp among the filtered records, whatever the condition; null: none. */
export async function newestOverall(this: IPollFunctions, setup: PollSetup, run: PollRun): Promise<string | null> {
	const [newest] = await collectRecords.call(this, listRequest(setup, { ...probeQuery(setup), ...newestFirst(setup) }, run), { limit: 1, maxRequests: setup.maxRequests });
	run.lease.progress();
	if (newest === undefined) return null;
	// Filtered to records with a change time: one without it is a server that lacks the field.
	const change = changeOf(newest, setup.field);
	if (change === undefined) throw missingChangeField(this, setup);
	return change.at;
}
