import { createHash } from 'node:crypto';
import type { IDataObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { HTTP, PAGE_SIZE_MAX, QUERY } from './apiChoices';
import { idKey, sameId } from './ids';
import { readListPage } from './listPage';
import type { ResourceDefinition } from './registry';
import type { ApiContext, ApiRequest, Query } from './transport';

/**
 * How many ranges Return All reads at once. Four cursors make 1,000 pages 150 ms away take about a
 * quarter of one cursor's time, with no more list requests in flight than a few batched reads.
 */
export const RANGES_IN_FLIGHT = 4;

/** A Return All that may be read in ranges of the creation timestamp, in the order asked for. */
export interface RangePlan {
	field: string;
	direction: 'asc' | 'desc';
}

/**
 * Pages read with one cursor before ranges are considered: a listing this short costs exactly its
 * pages, as before; only a longer one pays a probe and one page per range boundary.
 */
export const PAGES_BEFORE_RANGES = 3;

/**
 * Ranges pay where waiting dominates: when the first pages came back faster than this each (a
 * server next door), parallel walks only add the probe and the boundary pages and compete for the
 * CPU parsing pages; the same cursor then goes on alone. Production keeps 40 ms; tests of the
 * ranges themselves set 0 (and restore it), so that a server on loopback is read in ranges too.
 */
export const RANGES_WORTH_MS_PER_PAGE = 40;
export const rangeTiming = { worthMsPerPage: RANGES_WORTH_MS_PER_PAGE };

/**
 * The order Return All reads in when none is asked for: the creation timestamp, where the list
 * orders by it and filters it with `gte` and `lt` (the spec promises no order without one, so the
 * node may choose). Undefined: the resource's list has no such order, and is read with one cursor.
 */
export function rangeField(resource: ResourceDefinition): string | undefined {
	const field = resource.changeFields?.created;
	const definition = field === undefined ? undefined : resource.fields[field];
	if (field === undefined || !definition?.orderable) return undefined;
	return definition.filter?.includes('gte') && definition.filter.includes('lt') ? field : undefined;
}

/**
 * Ranges only where they cannot change the answer: a GET list (no shape), no condition (its pages
 * are bounded scans), no filter of the user's on the timestamp, the timestamp in every record
 * (select), and records asked for in that timestamp's order or in no order (the node then chooses
 * it, oldest first). Any other order is the user's: one cursor. The creation timestamp never
 * changes, so a record cannot move from one range to another.
 */
export function rangePlan(resource: ResourceDefinition, request: ApiRequest): RangePlan | undefined {
	const field = rangeField(resource);
	if (field === undefined || request.method !== 'GET') return undefined;
	const query: Query = request.query ?? {};
	if (query[QUERY.conditionId] !== undefined) return undefined;
	if (Object.keys(query).some((key) => key.startsWith(`filters[${field}]`))) return undefined;
	const select = query[QUERY.select];
	if (select !== undefined && !(Array.isArray(select) && select.includes(field))) return undefined;
	const order = query[QUERY.orderField];
	if (order === undefined) return { field, direction: 'asc' };
	if (order !== field) return undefined;
	return { field, direction: query[QUERY.orderDirection] === 'desc' ? 'desc' : 'asc' };
}

/** One range: records with lower ≤ timestamp < upper (ms; undefined: unbounded), in the plan's direction. */
interface Range {
	lower?: number;
	upper?: number;
	records: IDataObject[];
	/** The first record the server sent this range (kept or not): the previous range's hand-over. */
	firstSeen?: IDataObject;
	/** The record past the range's end that stopped its walk; undefined: the listing ended. */
	stoppedAt?: IDataObject;
	/** For the first pages only: stop after this many, keeping the cursor in `after`. */
	pagesLeft?: number;
	after?: string;
}

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
	const [answer] = await Promise.allSettled([readListPage.call(walk.context, { ...walk.request, query }, { first, after, itemIndex: walk.itemIndex })]);
	if (answer.status === 'fulfilled') return answer.value;
	// 400: the server refuses the order or the range filter this package added; one cursor reads without.
	if ((answer.reason as { httpCode?: unknown }).httpCode === '400') {
		refuse(walk, 'the API refused the order or the range filter (400)');
		return { records: [], hasNextPage: false, endCursor: undefined, totalCount: undefined };
	}
	throw answer.reason;
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
async function walkRange(walk: Walk, range: Range, query: Query, after: string | undefined, last: { time: number }, followed = new Set<string>()): Promise<void> {
	for (;;) {
		if (walk.refused !== undefined || walk.failed) return;
		const next = await page(walk, query, PAGE_SIZE_MAX, after);
		if (take(walk, range, next.records, last) || next.endCursor === undefined) return;
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
	}
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

/** Range boundaries between the oldest and newest timestamps, whole milliseconds, strictly increasing. */
function boundaries(low: number, high: number): number[] {
	const cuts: number[] = [];
	for (let index = 1; index < RANGES_IN_FLIGHT; index++) {
		const cut = low + Math.floor(((high - low + 1) * index) / RANGES_IN_FLIGHT);
		if (cut > low && cut <= high && cut > (cuts[cuts.length - 1] ?? low)) cuts.push(cut);
	}
	return cuts;
}

/**
 * Return All in up to RANGES_IN_FLIGHT disjoint ranges of the creation timestamp, each walked with
 * its own cursor at the same time, handed over in the plan's order: the first PAGES_BEFORE_RANGES
 * pages are read as one cursor would; only when more follow, one more record (the other end) gives
 * the span left to cut, and the first range goes on with the cursor already open.
 * Answers a RangesRefused instead of records when the server gives reason to doubt a range; the
 * caller reads with one cursor then. Errors of the API (after the transport's retries) are thrown.
 */
export async function collectInRanges(
	this: ApiContext,
	request: ApiRequest,
	plan: RangePlan,
	options: { maxRequests?: number; itemIndex?: number } = {},
): Promise<IDataObject[] | RangesRefused> {
	const walk: Walk = { context: this, plan, request, budget: options.maxRequests ?? HTTP.walkMaxRequests, requests: 0, ids: new Set(), itemIndex: options.itemIndex };
	const asc = plan.direction === 'asc';
	const start = () => ({ time: asc ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY });
	// The first pages, with one cursor and no bound: a short listing ends here.
	const head: Range = { records: [], pagesLeft: PAGES_BEFORE_RANGES };
	const headLast = start();
	const followed = new Set<string>();
	const headStarted = Date.now();
	await walkRange(walk, head, ordered(walk, plan.direction), undefined, headLast, followed);
	if (walk.refused !== undefined) return { refused: walk.refused };
	if (head.after === undefined) return head.records;
	if (Date.now() - headStarted < rangeTiming.worthMsPerPage * PAGES_BEFORE_RANGES) {
		const rest: Range = { records: head.records };
		await walkRange(walk, rest, ordered(walk, plan.direction), head.after, headLast, followed);
		return walk.refused !== undefined ? { refused: walk.refused } : rest.records;
	}

	const otherEnd = await page(walk, ordered(walk, asc ? 'desc' : 'asc'), 1, undefined);
	if (walk.refused !== undefined) return { refused: walk.refused };
	// What is left lies between the last record read and the other end.
	const ends = [headLast.time, timeOf(otherEnd.records[0] ?? {}, plan.field)];
	if (ends.some(Number.isNaN)) return { refused: `no readable ${plan.field} at the ends` };
	const cuts = boundaries(Math.min(...ends), Math.max(...ends));
	// Ranges in the order they are handed over: ascending oldest first, descending newest first.
	const edges: Array<number | undefined> = [undefined, ...cuts, undefined];
	const ranges: Range[] = edges.slice(1).map((upper, index) => ({ lower: edges[index], upper, records: [] }));
	if (!asc) ranges.reverse();
	// The first range goes on from the pages already read.
	ranges[0].records = head.records;
	ranges[0].firstSeen = head.firstSeen;

	const settled = await Promise.allSettled(
		ranges.map(async (range, index) => {
			const bound = asc ? range.lower : range.upper;
			let completed = false;
			try {
				if (index === 0) {
					await walkRange(walk, range, ordered(walk, plan.direction), head.after, headLast, followed);
				} else {
					const filter = { op: asc ? 'gte' : 'lt', value: new Date(bound as number).toISOString() };
					await walkRange(walk, range, ordered(walk, plan.direction, filter), undefined, start());
				}
				completed = true;
			} finally {
				if (!completed) walk.failed = true;
			}
		}),
	);
	const failure = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
	if (failure) throw failure.reason;
	if (walk.refused !== undefined) return { refused: walk.refused };
	if (!joined(ranges)) return { refused: 'ranges that do not join' };
	const records: IDataObject[] = [];
	for (const range of ranges) for (const record of range.records) records.push(record);
	return records;
}
