import { evaluateRule } from './conditions';
import type { CursorCodec } from './cursor';
import { badRequest } from './errors';
import { buildPredicate, filtersKey, isUuid, parseFilters, type ParsedFilter } from './filters';
import { parsePagination, type PageRequest, type PaginationResult } from './pagination';
import { assertKnownParameters, isQueryObject, type QueryObject, type QueryValue } from './query';
import type { ListDef } from './resources';
import type { Collection } from './store';
import type { Json, Role, SimRecord } from './types';
import { emptyPlacement, tieBreaker, truncatedTimestamp } from './variedAnswers';
import type { ServerVariation } from './variations';

export interface ListContext {
	collection: Collection;
	conditions: Collection;
	def: ListDef;
	role: Role;
	cursors: CursorCodec;
	scanLimit: number;
	today: string;
	variation: ServerVariation;
	/** A fresh seed for a walk's tie order (randomPerWalk). */
	newWalkSeed: () => string;
}

export interface Order {
	field: string;
	direction: 'asc' | 'desc';
}

export interface ListResult {
	records: SimRecord[];
	pagination: PaginationResult;
	/** Fields named by `select[]`, or undefined for all fields. */
	select?: string[];
}

/** Runs one list request: validate the query, take the cached view, page through it. */
export function runList(ctx: ListContext, query: QueryObject): ListResult {
	const allowed = ['pagination', 'filters', 'order', 'select', ...(ctx.def.domain ? ['condition_id'] : [])];
	assertKnownParameters(query, allowed);
	const page = parsePagination(query.pagination, ctx.variation);
	const filters = parseFilters(ctx.def, query.filters);
	const order = parseOrder(ctx.def, query.order);
	const select = parseSelect(ctx.def.fields, query.select);
	const rule = conditionRule(ctx, query.condition_id, page);
	const sorting = sortingOf(ctx, order, page);
	const view = filteredView(ctx, filters, sorting);
	const result = rule === undefined ? plainPage(ctx, view, sorting, page) : conditionPage(ctx, view, sorting, page, rule);
	return { ...result, select };
}

export function parseOrder(def: ListDef, raw: QueryValue | undefined): Order {
	if (raw === undefined) return { field: 'id', direction: 'asc' };
	if (!isQueryObject(raw)) throw badRequest('order', 'invalid_order', 'order: expected order[field] and order[direction]');
	for (const key of Object.keys(raw)) {
		if (key !== 'field' && key !== 'direction') {
			throw badRequest('order', 'unknown_parameter', `order[${key}]: unknown; expected order[field] and order[direction]`);
		}
	}
	const { field, direction } = raw;
	if (field === undefined) throw badRequest('order', 'missing_field', 'order[field]: is required when order is given');
	if (direction === undefined) {
		throw badRequest('order', 'missing_direction', 'order[direction]: is required when order is given');
	}
	if (typeof field !== 'string' || !def.orderable.includes(field)) {
		throw badRequest(
			'order',
			'invalid_order_field',
			`order[field]: ${JSON.stringify(field)} is not orderable; expected one of ${def.orderable.join(', ')}`,
		);
	}
	if (direction !== 'asc' && direction !== 'desc') {
		throw badRequest('order', 'invalid_order_direction', `order[direction]: ${JSON.stringify(direction)} is not asc or desc`);
	}
	return { field, direction };
}

export function parseSelect(fields: readonly string[], raw: QueryValue | undefined): string[] | undefined {
	if (raw === undefined) return undefined;
	if (!Array.isArray(raw)) {
		throw badRequest('select', 'invalid_select', 'select: send fields as repeated select[]=<field> parameters');
	}
	for (const field of raw) {
		if (!fields.includes(field)) {
			throw badRequest('select', 'unknown_field', `select[]: field "${field}" is not selectable; expected one of ${fields.join(', ')}`);
		}
	}
	return raw;
}

/** Returns only `id` and the selected fields. */
export function project(record: SimRecord, select: readonly string[] | undefined): SimRecord {
	if (!select) return record;
	const out: SimRecord = { id: record.id };
	for (const field of select) out[field] = record[field] ?? null;
	return out;
}

function conditionRule(ctx: ListContext, raw: QueryValue | undefined, page: PageRequest): Json | undefined {
	if (raw === undefined) return undefined;
	if (typeof raw !== 'string' || !isUuid(raw)) {
		throw badRequest('condition_id', 'invalid_value', `condition_id: ${JSON.stringify(raw)} is not a valid uuid`);
	}
	if (page.direction === 'backward') {
		throw badRequest(
			'pagination',
			'unsupported_with_condition',
			`${page.cursor === undefined ? 'pagination[last]' : 'pagination[before]'}: backward pagination cannot be combined with condition_id`,
		);
	}
	const condition = ctx.conditions.get(raw.toLowerCase());
	if (!condition || ctx.conditions.hidden.has(condition.id)) {
		throw badRequest('condition_id', 'unknown_condition', `condition_id: condition ${raw} does not exist in this organization`);
	}
	if (condition.domain !== ctx.def.domain) {
		throw badRequest(
			'condition_id',
			'domain_mismatch',
			`condition_id: condition ${raw} is of domain "${String(condition.domain)}", this endpoint lists "${ctx.def.domain}"`,
		);
	}
	return condition.data_engine ?? null;
}

/** One ordering on this server: the order asked for, its empty-value placement and tie-break. */
interface Sorting extends Order {
	key: (record: SimRecord) => string | null;
	tie: (record: SimRecord) => string;
	/** -1: empty values before all others in this direction; 1: after. */
	empty: -1 | 1;
	/** Part of the view cache key: a walk's own tie order. */
	walkSeed: string;
}

/** The cursor's walk seed (a randomPerWalk tie string starts with it), or a new one for a first page. */
function sortingOf(ctx: ListContext, order: Order, page: PageRequest): Sorting {
	const { variation } = ctx;
	let walkSeed = '';
	if (variation.sameValueOrder === 'randomPerWalk') {
		walkSeed = page.cursor === undefined ? ctx.newWalkSeed() : decodeCursor(ctx, order, page).id.split('.')[0];
	}
	let positions: Map<string, number> | undefined;
	const insertionIndex = (id: string) => {
		positions ??= new Map(ctx.collection.all().map((r, i) => [r.id, i]));
		return positions.get(id) ?? -1;
	};
	return {
		...order,
		key: (record) => {
			const value = record[order.field];
			if (typeof value === 'string') return truncatedTimestamp(variation, value);
			return value === null || value === undefined ? null : String(value);
		},
		tie: tieBreaker(variation, insertionIndex, walkSeed),
		empty: emptyPlacement(variation, order.direction),
		walkSeed,
	};
}

/** Orders by the key (empty keys where the server puts them) then by the tie-break, in the requested direction. */
function compareTo(sorting: Sorting, keyA: string | null, tieA: string, keyB: string | null, tieB: string): number {
	if (keyA === null || keyB === null) {
		if (keyA !== keyB) return keyA === null ? sorting.empty : -sorting.empty;
	} else if (keyA !== keyB) {
		return (keyA < keyB ? -1 : 1) * (sorting.direction === 'asc' ? 1 : -1);
	}
	const c = tieA < tieB ? -1 : tieA > tieB ? 1 : 0;
	return sorting.direction === 'asc' ? c : -c;
}

/** Visible, permitted, filtered records in the requested order; cached until the next mutation. */
function filteredView(ctx: ListContext, filters: ParsedFilter[], sorting: Sorting): readonly SimRecord[] {
	const { collection, role, variation } = ctx;
	const key = `${role}|${sorting.field}|${sorting.direction}|${sorting.walkSeed}|${filtersKey(filters)}`;
	return collection.view(key, () => {
		const predicate = buildPredicate(filters, (stored) => truncatedTimestamp(variation, stored));
		// Filtering keeps the order: the filtered view is the unfiltered one (cached) with records left
		// out, not another sort of every record (ranges side by side ask for many filters at once).
		if (predicate !== null) return filteredView(ctx, [], sorting).filter((record) => predicate(record));
		const hidden = collection.hidden;
		const restricted = role === 'limited' ? collection.restricted : new Set<string>();
		const all = collection.all();
		const needsFilter = hidden.size > 0 || restricted.size > 0;
		let view: SimRecord[] = needsFilter ? all.filter((r) => !hidden.has(r.id) && !restricted.has(r.id)) : [...all];
		if (sorting.field === 'id' && variation.sameValueOrder === 'byId') {
			if (sorting.direction === 'desc') view.reverse();
			return view;
		}
		// Decorate once so that the comparator does not re-read keys.
		const decorated = view.map((r) => ({ key: sorting.key(r), tie: sorting.tie(r), r }));
		decorated.sort((a, b) => compareTo(sorting, a.key, a.tie, b.key, b.tie));
		view = decorated.map((d) => d.r);
		return view;
	});
}

/** Index of the first record after (strictly) or at the cursor position, by binary search. */
function search(view: readonly SimRecord[], sorting: Sorting, key: string | null, tie: string, strictlyAfter: boolean): number {
	let lo = 0;
	let hi = view.length;
	while (lo < hi) {
		const mid = (lo + hi) >>> 1;
		const c = compareTo(sorting, sorting.key(view[mid]), sorting.tie(view[mid]), key, tie);
		if (c < 0 || (strictlyAfter && c === 0)) lo = mid + 1;
		else hi = mid;
	}
	return lo;
}

/** A cursor holds the record's sort key and its tie-break string (which ends with its id). */
function cursorFor(ctx: ListContext, sorting: Sorting, record: SimRecord | undefined): string | null {
	if (!record) return null;
	return ctx.cursors.encode({
		resource: ctx.def.resource,
		field: sorting.field,
		direction: sorting.direction,
		key: sorting.key(record),
		id: sorting.tie(record),
	});
}

function decodeCursor(ctx: ListContext, order: Order, page: PageRequest) {
	return ctx.cursors.decode(page.cursor as string, page.cursorParameter, {
		resource: ctx.def.resource,
		field: order.field,
		direction: order.direction,
	});
}

function cursorIndex(ctx: ListContext, view: readonly SimRecord[], sorting: Sorting, page: PageRequest): number {
	if (page.cursor === undefined) return page.direction === 'forward' ? 0 : view.length;
	const payload = decodeCursor(ctx, sorting, page);
	// Forward continues strictly after the cursor record; backward ends strictly before it.
	return search(view, sorting, payload.key, payload.id, page.direction === 'forward');
}

function plainPage(ctx: ListContext, view: readonly SimRecord[], order: Sorting, page: PageRequest): Omit<ListResult, 'select'> {
	const at = cursorIndex(ctx, view, order, page);
	const start = page.direction === 'forward' ? at : Math.max(0, at - page.size);
	const end = page.direction === 'forward' ? Math.min(view.length, at + page.size) : at;
	const records = view.slice(start, end);
	return {
		records,
		pagination: {
			end_cursor: cursorFor(ctx, order, records[records.length - 1]),
			start_cursor: cursorFor(ctx, order, records[0]),
			has_next_page: end < view.length,
			has_previous_page: start > 0,
			total_count: view.length,
		},
	};
}

/**
 * Bounded scan under a condition: read at most `scanLimit` filtered records after the cursor and
 * return those that pass. The end cursor is that of the last record READ, so an empty page still
 * moves the client forward.
 */
function conditionPage(
	ctx: ListContext,
	view: readonly SimRecord[],
	order: Sorting,
	page: PageRequest,
	rule: Json,
): Omit<ListResult, 'select'> {
	const start = cursorIndex(ctx, view, order, page);
	const stop = Math.min(view.length, start + ctx.scanLimit);
	const records: SimRecord[] = [];
	let lastRead = start - 1;
	for (let i = start; i < stop && records.length < page.size; i++) {
		lastRead = i;
		if (evaluateRule(rule, view[i], ctx.today)) records.push(view[i]);
	}
	return {
		records,
		pagination: {
			// Nothing read means the end was reached: keep the client's position.
			end_cursor: lastRead >= start ? cursorFor(ctx, order, view[lastRead]) : (page.cursor ?? null),
			start_cursor: cursorFor(ctx, order, lastRead >= start ? view[start] : undefined),
			has_next_page: lastRead + 1 < view.length,
			has_previous_page: start > 0,
		},
	};
}
