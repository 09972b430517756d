import { createHash } from 'node:crypto';
import type { IDataObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { HTTP, PAGE_SIZE_MAX, QUERY } from './apiChoices';
import { idKey, sameId } from './ids';
import { readListPage } from './listPage';
import type { RangePlan } from './rangePlan';
import { PAGES_WORTH_A_SPLIT, type Range, splitLargest } from './rangeSplit';
import { MAX_IN_FLIGHT_DEFAULT, rangeTiming, RANGES_START, Slots, WaitingMeter } from './rangeWorth';
import type { ApiContext, ApiRequest, Query } from './transport';
import { AdaptiveLimit } from './transport/adaptiveLimit';
import { type AttemptReport, gateFor } from './transport/rateGate';

/**
 * Pages read with one cursor before ranges are considered: a listing this short costs exactly its
 * pages, as before; only a longer one, read while the node mostly waited (rangeWorth.ts), pays a
 * probe for its other end (sent beside the first range's next page, so it costs no round trip) and
 * about one page per range boundary.
 */
export const PAGES_BEFORE_RANGES = 2;

/** Without a count, the density ahead is judged from this many of the last records read. */
const RECENT_RECORDS = 50;
/** Why ranges were given up: the caller then reads with one cursor, which gives the exact answer. */
export type RangesRefused = { refused: string };

interface Walk {
	context: ApiContext;
	plan: RangePlan;
	request: ApiRequest;
	budget: number;
	requests: number;
	ids: Set<string>;
	refused?: string;
	/** A range failed with an error: the others stop at their next page. */
	failed?: boolean;
	itemIndex?: number;
	/** Requests in flight, under the adaptive limit. */
	slots: Slots;
	/** The listing's size, when the server gave a believable one with the first pages. */
	totalCount?: number;
	/** After every page: more ranges where the limit allows. */
	onPage?: () => void;
}

const timeOf = (record: IDataObject, field: string): number => (typeof record[field] === 'string' ? Date.parse(record[field]) : Number.NaN);

/** Queries and budget, shared by every range's requests. */
async function page(walk: Walk, query: Query, first: number, after: string | undefined) {
	if (walk.requests >= walk.budget) {
		throw new NodeOperationError(
			walk.context.getNode(),
			`${walk.request.method} ${walk.request.path}: stopped after ${walk.requests} requests without reaching the last page (Options → Max Requests is ${walk.budget}); raise Max Requests if this listing is legitimately that long, or narrow it with filters`,
			{ itemIndex: walk.itemIndex },
		);
	}
	walk.requests++;
	await walk.slots.take();
	const [answer] = await Promise.allSettled([readListPage.call(walk.context, { ...walk.request, query, retryOnASlot: () => retryOnASlot(walk.slots) }, { first, after, itemIndex: walk.itemIndex })]);
	walk.slots.give();
	if (answer.status === 'fulfilled') return answer.value;
	// 400: the server refuses the order or the range filter this package added; one cursor reads without.
	if ((answer.reason as { httpCode?: unknown }).httpCode === '400') {
		refuse(walk, 'the API refused the order or the range filter (400)');
		return { records: [], hasNextPage: false, endCursor: undefined, totalCount: undefined };
	}
	throw answer.reason;
}

/** A refused page goes again once another of the listing's requests has ended (retryPolicy.ts); alone, it backs off. */
async function retryOnASlot(slots: Slots): Promise<boolean> {
	if (slots.holding() <= 1) return false;
	slots.give();
	await slots.take();
	return true;
}

const ordered = (walk: Walk, direction: 'asc' | 'desc', filter?: { op: string; value: string }): Query => {
	const query: Query = { ...walk.request.query, [QUERY.orderField]: walk.plan.field, [QUERY.orderDirection]: direction };
	if (filter) Object.assign(query, { [QUERY.filter(walk.plan.field, 'op')]: filter.op, [QUERY.filter(walk.plan.field, 'value')]: filter.value });
	return query;
};

/**
 * Takes a page's records that belong to the range and says whether the range ends here. Anything
 * a range cannot explain (a record without a readable timestamp, out of order, before the range's
 * start: a server that ignored the filter; an id seen before) refuses the ranges.
 */
function take(walk: Walk, range: Range, records: IDataObject[], last: { time: number }): boolean {
	const asc = walk.plan.direction === 'asc';
	range.firstSeen ??= records[0];
	for (const record of records) {
		const time = timeOf(record, walk.plan.field);
		if (Number.isNaN(time)) return refuse(walk, `a record without a readable ${walk.plan.field}`);
		if (asc ? time < last.time : time > last.time) return refuse(walk, `records out of ${walk.plan.field} order`);
		last.time = time;
		if (asc ? range.lower !== undefined && time < range.lower : range.upper !== undefined && time >= range.upper) {
			return refuse(walk, `a record outside the ${walk.plan.field} filter`);
		}
		// Past the range's end: the next range reads it (and every record after it).
		if (asc ? range.upper !== undefined && time >= range.upper : range.lower !== undefined && time < range.lower) {
			range.stoppedAt = record;
			return true;
		}
		if (typeof record.id === 'string' || typeof record.id === 'number') {
			if (walk.ids.has(idKey(record.id))) return refuse(walk, 'a record twice');
			walk.ids.add(idKey(record.id));
		}
		range.records.push(record);
	}
	return false;
}

function refuse(walk: Walk, why: string): true {
	walk.refused ??= why;
	return true;
}

/** Walks one range from `after` (undefined: its start) until past its end or the listing's end. */
async function walkRange(walk: Walk, range: Range, query: Query, after: string | undefined, followed = new Set<string>()): Promise<void> {
	for (;;) {
		if (walk.refused !== undefined || walk.failed) return;
		const next = await page(walk, query, PAGE_SIZE_MAX, after);
		if (range.pagesLeft !== undefined) walk.totalCount = next.totalCount;
		const before = range.records.length;
		const ended = take(walk, range, next.records, range.last);
		// The density a range shows is its last page's: records cluster (an import), spans between are sparse.
		if (range.records.length - before >= 2) [range.from, range.base] = [timeOf(range.records[before], walk.plan.field), before];
		if (ended || next.endCursor === undefined) {
			range.done = true;
			range.after = undefined;
			walk.onPage?.();
			return;
		}
		if (range.pagesLeft !== undefined && --range.pagesLeft <= 0) {
			range.after = next.endCursor;
			return;
		}
		const digest = createHash('sha256').update(next.endCursor).digest('base64');
		if (followed.has(digest)) {
			refuse(walk, 'a cursor again');
			return;
		}
		followed.add(digest);
		after = next.endCursor;
		walk.onPage?.();
	}
}

/** The rest of the listing with the head's cursor alone (ranges would not pay, or may not be used). */
async function oneCursor(walk: Walk, head: Range, followed: Set<string>): Promise<IDataObject[] | RangesRefused> {
	head.pagesLeft = undefined;
	await walkRange(walk, head, ordered(walk, walk.plan.direction), head.after, followed);
	return walk.refused !== undefined ? { refused: walk.refused } : head.records;
}

/**
 * The ranges join without a gap: each range stopped at the very record the next one began with
 * (or the listing ended in it and the next is empty). A server that compares timestamps another way
 * than this package (text against time, another precision) or ignores the filter fails this.
 */
function joined(ranges: Range[]): boolean {
	const handedOver = (before?: IDataObject, after?: IDataObject) => (before?.id === undefined && after?.id === undefined) || sameId(before?.id, after?.id);
	return ranges.every((range, index) => index === 0 || handedOver(ranges[index - 1].stoppedAt, range.firstSeen));
}

/**
 * Return All in disjoint ranges of the creation timestamp, each walked with its own cursor at the
 * same time, handed over in the plan's order. The first PAGES_BEFORE_RANGES pages are read as one
 * cursor would; only when more follow and the node mostly waited for them (rangeWorth.ts), one more
 * record (the other end, asked for beside the first range's next page) gives the span left, and
 * ranges are cut from it as the in-flight limit
 * allows: it starts at RANGES_START and adapts as the writes' limit does (more while answers come
 * as quickly, half on 429, 503 or slower answers), never above `maxInFlight`. Each cut halves the
 * range with the most left to read (rangeSplit.ts); the first range goes on with the cursor open.
 * Answers a RangesRefused instead of records when the server gives reason to doubt a range; the
 * caller reads with one cursor then. Errors of the API (after the transport's retries) are thrown.
 */
export async function collectInRanges(
	this: ApiContext,
	request: ApiRequest,
	plan: RangePlan,
	options: { maxRequests?: number; itemIndex?: number; maxInFlight?: number } = {},
): Promise<IDataObject[] | RangesRefused> {
	const limit = new AdaptiveLimit(options.maxInFlight ?? MAX_IN_FLIGHT_DEFAULT, RANGES_START, true);
	const walk: Walk = { context: this, plan, request, budget: options.maxRequests ?? HTTP.walkMaxRequests, requests: 0, ids: new Set(), itemIndex: options.itemIndex, slots: new Slots(() => limit.current()) };
	const asc = plan.direction === 'asc';
	const start = () => ({ time: asc ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY });
	// The first pages, with one cursor and no bound: a short listing costs exactly its pages. The
	// waiting is measured after the first page, which pays for the run's start (credentials, a
	// connection) and looked like waiting on loopback.
	const head: Range = { records: [], pagesLeft: 1, last: start() };
	const followed = new Set<string>();
	await walkRange(walk, head, ordered(walk, plan.direction), undefined, followed);
	let meter: WaitingMeter | undefined;
	if (head.after !== undefined && walk.refused === undefined) {
		meter = new WaitingMeter();
		head.pagesLeft = PAGES_BEFORE_RANGES - 1;
		await walkRange(walk, head, ordered(walk, plan.direction), head.after, followed);
	}
	if (walk.refused !== undefined) return { refused: walk.refused };
	if (head.after === undefined) return head.records;
	if ((meter?.stop() ?? 0) < rangeTiming.worthWaitingShare || limit.ceiling === 1) return await oneCursor(walk, head, followed);

	// Ranges in the order they are handed over: ascending oldest first, descending newest first.
	const ranges: Range[] = [head];
	const walks: Array<Promise<void>> = [];
	let walking = 0;
	const run = (range: Range, first: Promise<void>) => {
		walking++;
		let completed = false;
		const done = first.then(() => void (completed = true)).finally(() => {
			walking--;
			range.done = true;
			if (!completed) walk.failed = true;
		});
		// Its failure is read when the walks are settled; until then it is not an unhandled rejection.
		done.catch(() => undefined);
		walks.push(done);
	};
	const gate = gateFor(this);
	// A refusal says the server takes at most the requests that were out (the limit may have grown past them).
	const observer = (report: AttemptReport) => limit.report(report, walk.slots.holding());
	gate.observe(observer);
	try {
		// The first range goes on at once; the other end is asked for beside its next page.
		head.pagesLeft = undefined;
		run(head, walkRange(walk, head, ordered(walk, plan.direction), head.after, followed));
		const otherEnd = await page(walk, ordered(walk, asc ? 'desc' : 'asc'), 1, undefined).catch((error: unknown) => {
			walk.failed = true;
			throw error;
		});
		const farEnd = timeOf(otherEnd.records[0] ?? {}, plan.field);
		if (Number.isNaN(farEnd) || Number.isNaN(head.last.time)) refuse(walk, `no readable ${plan.field} at the ends`);
		// Records per ms left: from the count the server gave; without one, the density of the last
		// records read (the first pages may lie well before a burst of records, e.g. an import).
		const left = walk.totalCount === undefined ? undefined : walk.totalCount - head.records.length;
		const recent = head.records.slice(-RECENT_RECORDS);
		const recentSpan = Math.abs(timeOf(recent[recent.length - 1] ?? {}, plan.field) - timeOf(recent[0] ?? {}, plan.field)) + 1;
		const prior = left === undefined ? recent.length / recentSpan : left / (Math.abs(farEnd - head.last.time) + 1);
		// Ranges: at most one per PAGES_WORTH_A_SPLIT pages the count says are left.
		const most = left === undefined ? limit.ceiling : Math.max(2, Math.floor(left / (PAGES_WORTH_A_SPLIT * PAGE_SIZE_MAX)));
		const spawn = () => {
			while (walk.refused === undefined && !walk.failed && walking < limit.current()) {
				const fresh = splitLargest(ranges, asc, farEnd, prior, most);
				if (fresh === undefined) return;
				const bound = (asc ? fresh.lower : fresh.upper) as number;
				const filter = { op: asc ? 'gte' : 'lt', value: new Date(bound).toISOString() };
				run(fresh, walkRange(walk, fresh, ordered(walk, plan.direction, filter), undefined));
			}
		};
		walk.onPage = spawn;
		spawn();
	} finally {
		// Ranges cut while others run join the list: wait until no walk is left.
		for (let seen = 0; seen < walks.length; ) {
			seen = walks.length;
			await Promise.allSettled(walks.slice(0, seen));
		}
		gate.unobserve(observer);
		walk.onPage = undefined;
	}
	const settled = await Promise.allSettled(walks);
	const failure = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
	if (failure) throw failure.reason;
	if (walk.refused !== undefined) return { refused: walk.refused };
	if (!joined(ranges)) return { refused: 'ranges that do not join' };
	const records: IDataObject[] = [];
	for (const range of ranges) for (const record of range.records) records.push(record);
	return records;
}
