/**
 * How the simulator answers under a ServerVariation (variations.ts names the switches): the list
 * parameters it accepts, how it sorts and how it writes records and envelopes.
 */
import { hashString } from './rng';
import type { FilterDef, FilterOp, ListDef } from './resources';
import type { Collections } from './seed';
import type { Json, JsonObject, ResourceName, SimRecord } from './types';
import { isJsonObject } from './types';
import type { ServerVariation } from './variations';

/** A stored timestamp: UTC, six fraction digits (clock.ts). */
const STORED_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const isStoredTimestamp = (value: string) => value.length === 27 && value[10] === 'T' && STORED_TIMESTAMP.test(value);

/** A stored timestamp cut to the server's precision, still in the stored form (so it compares and sorts as before). */
export function truncatedTimestamp(variation: ServerVariation, stored: string): string {
	if (variation.timestampPrecision === 'microseconds' || !isStoredTimestamp(stored)) return stored;
	const kept = variation.timestampPrecision === 'milliseconds' ? 3 : 0;
	return `${stored.slice(0, 20 + kept)}${'0'.repeat(6 - kept)}Z`;
}

/** A stored timestamp as the server writes it. */
export function renderTimestamp(variation: ServerVariation, stored: string): string {
	const digits = { microseconds: 6, milliseconds: 3, seconds: 0 }[variation.timestampPrecision];
	const base = stored.slice(0, 19) + (digits === 0 ? '' : stored.slice(19, 20 + digits));
	return base + (variation.timestampOffset === 'Z' ? 'Z' : '+00:00');
}

function presentValue(variation: ServerVariation, value: Json): Json {
	if (typeof value === 'string') {
		if (isStoredTimestamp(value)) return renderTimestamp(variation, value);
		if (variation.uuidCase === 'upper' && UUID.test(value)) return value.toUpperCase();
		return value;
	}
	if (Array.isArray(value)) return value.map((entry) => presentValue(variation, entry));
	if (isJsonObject(value)) {
		const out: JsonObject = {};
		for (const [key, entry] of Object.entries(value)) out[key] = presentValue(variation, entry);
		return out;
	}
	return value;
}

/** Whether records are written as stored (the default profile keeps the cached bytes). */
export function presentsAsStored(variation: ServerVariation): boolean {
	return (
		variation.timestampPrecision === 'microseconds' &&
		variation.timestampOffset === 'Z' &&
		variation.uuidCase === 'lower' &&
		variation.unknownFields === 'none' &&
		variation.emptyOptionalFields === 'null'
	);
}

/** One record as this server writes it. */
export function presentRecord(variation: ServerVariation, record: SimRecord): JsonObject {
	if (presentsAsStored(variation)) return record;
	const out = presentValue(variation, record) as JsonObject;
	if (variation.emptyOptionalFields === 'absent') {
		for (const [key, value] of Object.entries(out)) if (value === null && key !== 'id') delete out[key];
	}
	if (variation.unknownFields === 'present') {
		out.vendor_revision = 7;
		out._links = { self: { href: `/records/${record.id}` } };
	}
	return out;
}

/** The body of a single-record answer. */
export function singleBody(variation: ServerVariation, record: SimRecord): JsonObject {
	const data = presentRecord(variation, record);
	return variation.singleRecordEnvelope === 'data' ? { data } : { data, meta: { request_id: hashString(record.id).toString(16), api_version: '1.2' } };
}

/** `pagination` and the body's other top-level members, with total_count where this server puts it. */
export function listEnvelope(variation: ServerVariation, pagination: JsonObject): { pagination: JsonObject; topLevel: JsonObject } {
	const { total_count: count, ...rest } = pagination;
	const extra: JsonObject = variation.unknownFields === 'present' ? { meta: { api_version: '1.2' } } : {};
	const page: JsonObject = variation.unknownFields === 'present' ? { ...rest, page_info_version: 2 } : { ...rest };
	if (count === undefined) return { pagination: page, topLevel: extra };
	if (variation.totalCount === 'inPagination') return { pagination: { ...page, total_count: count }, topLevel: extra };
	if (variation.totalCount === 'topLevel') return { pagination: page, topLevel: { ...extra, total_count: count } };
	return { pagination: page, topLevel: extra };
}

const COMPARE: readonly FilterOp[] = ['eq', 'gt', 'lt', 'gte', 'lte'];
const DATE_TIME = { kind: 'date-time' } as const;
/** Filters every list keeps under `idAndTimestampsOnly`: the ones changed-since polling needs. */
const ALWAYS_ACCEPTED = ['id', 'inserted_at', 'updated_at'];

/** What one list accepts on this server. */
export function variedListDef(variation: ServerVariation, def: ListDef): ListDef {
	let filters: Record<string, FilterDef> = { ...def.filters };
	let orderable = [...def.orderable];
	let fields = [...def.fields];
	const add = (field: string) => {
		filters[field] = { type: DATE_TIME, ops: COMPARE };
		orderable = [...new Set([...orderable, field])];
		fields = [...new Set([...fields, field])];
	};
	if (def.resource === 'timeReports' && variation.timeReportUpdatedAt === 'present') add('updated_at');
	if (def.resource === 'employees' && variation.employeeDeletedAt === 'present') add('deleted_at');
	if (variation.listParameters === 'idAndTimestampsOnly' && def.resource !== 'conditions') {
		filters = Object.fromEntries(Object.entries(filters).filter(([field]) => ALWAYS_ACCEPTED.includes(field)));
		orderable = orderable.filter((field) => ALWAYS_ACCEPTED.includes(field));
	}
	// The spec lists `in` for conditions: only the other lists may refuse it.
	if (variation.inOperator === 'refused' && def.resource !== 'conditions') {
		filters = Object.fromEntries(Object.entries(filters).map(([field, spec]) => [field, { ...spec, ops: spec.ops.filter((op) => op !== 'in') }]));
	}
	return { ...def, filters, orderable, fields };
}

/**
 * The tie-break of records sharing one value of the order field, as a string that sorts them: by
 * id, in insertion order, or shuffled by a seed a walk carries in its cursors (each new walk sees
 * another order; one walk stays consistent, so no record is skipped).
 */
export function tieBreaker(variation: ServerVariation, insertionIndex: (id: string) => number, walkSeed: string) {
	switch (variation.sameValueOrder) {
		case 'byId':
			return (record: SimRecord) => record.id;
		case 'insertion':
			return (record: SimRecord) => `${String(insertionIndex(record.id)).padStart(9, '0')}.${record.id}`;
		case 'randomPerWalk':
			return (record: SimRecord) => `${walkSeed}.${hashString(`${walkSeed}:${record.id}`).toString(16).padStart(8, '0')}.${record.id}`;
	}
}

/** Where an empty (null) order value sorts: -1 before every value, 1 after, for this direction. */
export function emptyPlacement(variation: ServerVariation, direction: 'asc' | 'desc'): -1 | 1 {
	switch (variation.emptyValuesSort) {
		case 'lowest':
			return direction === 'asc' ? -1 : 1;
		case 'highest':
			return direction === 'asc' ? 1 : -1;
		case 'firstAlways':
			return -1;
		case 'lastAlways':
			return 1;
	}
}

/**
 * Fields that exist only on some servers: updated_at of time reports (as inserted_at until
 * touched), deleted_at of employees (one seeded employee in 20 deleted at its last update).
 * `records`: only these new records; otherwise the whole collections. A customer schema that has
 * the field anyway (the remapped employees' deleted_at) keeps it.
 */
export function conformRecords(
	collections: Collections,
	variation: ServerVariation,
	employeeFields: readonly string[],
	records?: { resource: ResourceName; ids: readonly string[] },
): void {
	const conform = (resource: ResourceName, field: string, present: boolean, initial: (r: SimRecord, i: number) => Json) => {
		const collection = collections[resource];
		if (!present && resource === 'employees' && employeeFields.includes(field)) return;
		if (records && records.resource !== resource) return;
		const chosen = records ? new Set(records.ids) : null;
		collection.all().forEach((record, i) => {
			if (chosen && !chosen.has(record.id)) return;
			if (present === (record[field] !== undefined)) return;
			const next: SimRecord = { ...record };
			if (present) next[field] = initial(record, i);
			else delete next[field];
			collection.replace(next);
		});
	};
	conform('timeReports', 'updated_at', variation.timeReportUpdatedAt === 'present', (r) => r.inserted_at ?? null);
	conform('employees', 'deleted_at', variation.employeeDeletedAt === 'present', (r, i) => (!records && i % 20 === 7 ? (r.updated_at ?? null) : null));
}
