import { isValidDate, normalizeTimestamp, storedToNormalized } from './clock';
import { badRequest } from './errors';
import { isQueryObject, type QueryValue } from './query';
import type { FilterDef, FilterOp, ListDef, ValueType } from './resources';
import type { Json, SimRecord } from './types';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
	return UUID_RE.test(value);
}

/** A validated filter; `values` are normalized (uuids lower case, date-times to nine digits). */
export interface ParsedFilter {
	field: string;
	op: FilterOp;
	values: string[];
	type: ValueType;
}

function filterError(reason: string, message: string): Error {
	return badRequest('filters', reason, message);
}

/** Validates `filters[...]` exactly: known field, both op and value, allowed op, typed value. */
export function parseFilters(def: ListDef, raw: QueryValue | undefined): ParsedFilter[] {
	if (raw === undefined) return [];
	if (!isQueryObject(raw)) {
		throw filterError('invalid_filter', 'filters: expected filters[<field>][op] and filters[<field>][value]');
	}
	return Object.entries(raw)
		.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
		.map(([field, spec]) => parseOne(def, field, spec));
}

function parseOne(def: ListDef, field: string, spec: QueryValue): ParsedFilter {
	const filterDef: FilterDef | undefined = def.filters[field];
	const name = `filters[${field}]`;
	if (!filterDef) {
		const known = Object.keys(def.filters).join(', ');
		throw filterError('unknown_field', `${name}: field "${field}" is not filterable; expected one of ${known}`);
	}
	if (!isQueryObject(spec)) {
		throw filterError('invalid_filter', `${name}: expected ${name}[op] and ${name}[value]`);
	}
	for (const key of Object.keys(spec)) {
		if (key !== 'op' && key !== 'value') {
			throw filterError('unknown_parameter', `${name}[${key}]: unknown; a filter has only op and value`);
		}
	}
	const op = spec.op;
	if (op === undefined) throw filterError('missing_operator', `${name}[op]: is required`);
	if (typeof op !== 'string' || !(filterDef.ops as readonly string[]).includes(op)) {
		const given = typeof op === 'string' ? `"${op}"` : 'a list or object';
		throw filterError(
			'invalid_operator',
			`${name}[op]: operator ${given} is not allowed; expected one of ${filterDef.ops.join(', ')}`,
		);
	}
	const value = spec.value;
	if (value === undefined) throw filterError('missing_value', `${name}[value]: is required`);
	const values = parseValues(name, op as FilterOp, value, filterDef.type);
	return { field, op: op as FilterOp, values, type: filterDef.type };
}

function parseValues(name: string, op: FilterOp, value: QueryValue, type: ValueType): string[] {
	if (op === 'in') {
		if (!Array.isArray(value) || value.length === 0) {
			throw filterError(
				'invalid_value',
				`${name}[value]: operator "in" needs a list, sent as ${name}[value][]=<value> (repeated)`,
			);
		}
		return value.map((v, i) => normalizeValue(`${name}[value][${i}]`, v, type));
	}
	if (typeof value !== 'string') {
		throw filterError('invalid_value', `${name}[value]: operator "${op}" needs a single value, not a list`);
	}
	if (op === 'ilike') return [value];
	return [normalizeValue(`${name}[value]`, value, type)];
}

function normalizeValue(name: string, value: string, type: ValueType): string {
	switch (type.kind) {
		case 'uuid':
			if (!isUuid(value)) throw filterError('invalid_value', `${name}: "${value}" is not a valid uuid`);
			return value.toLowerCase();
		case 'date':
			if (!isValidDate(value)) {
				throw filterError('invalid_value', `${name}: "${value}" is not a valid date (YYYY-MM-DD)`);
			}
			return value;
		case 'date-time': {
			const normalized = normalizeTimestamp(value);
			if (normalized === null) {
				throw filterError(
					'invalid_value',
					`${name}: "${value}" is not a valid ISO 8601 date-time (e.g. 2026-01-31T12:00:00.000000Z)`,
				);
			}
			return normalized;
		}
		case 'enum':
			if (!type.values.includes(value)) {
				throw filterError('invalid_value', `${name}: "${value}" is not one of ${type.values.join(', ')}`);
			}
			return value;
		case 'string':
			return value;
	}
}

/** A stable key of a filter list, used to cache filtered views. */
export function filtersKey(filters: readonly ParsedFilter[]): string {
	return filters.map((f) => `${f.field}:${f.op}:${f.values.join('\u0001')}`).join('\u0002');
}

export type Predicate = (record: SimRecord) => boolean;

/** `truncate`: a stored timestamp at the server's precision (variedAnswers.ts). */
export function buildPredicate(filters: readonly ParsedFilter[], truncate: (stored: string) => string = (stored) => stored): Predicate | null {
	if (filters.length === 0) return null;
	const predicates = filters.map((filter) => buildOne(filter, truncate));
	return (record) => predicates.every((p) => p(record));
}

function buildOne(filter: ParsedFilter, truncate: (stored: string) => string): Predicate {
	const { field, op, values, type } = filter;
	// Timestamps are compared as normalized strings so microseconds count (a Date would drop them).
	const read =
		type.kind === 'date-time'
			? (r: SimRecord) => stringOrNull(r[field], (s) => storedToNormalized(truncate(s)))
			: type.kind === 'uuid'
				? (r: SimRecord) => stringOrNull(r[field], (s) => s.toLowerCase())
				: (r: SimRecord) => stringOrNull(r[field], (s) => s);
	switch (op) {
		case 'eq':
			return (r) => read(r) === values[0];
		case 'in': {
			const set = new Set(values);
			return (r) => {
				const v = read(r);
				return v !== null && set.has(v);
			};
		}
		case 'ilike': {
			const re = likeToRegExp(values[0]);
			return (r) => {
				const v = read(r);
				return v !== null && re.test(v);
			};
		}
		default:
			return compare(read, op, values[0]);
	}
}

function compare(read: (r: SimRecord) => string | null, op: FilterOp, value: string): Predicate {
	return (r) => {
		const v = read(r);
		if (v === null) return false;
		switch (op) {
			case 'gt':
				return v > value;
			case 'gte':
				return v >= value;
			case 'lt':
				return v < value;
			default:
				return v <= value;
		}
	};
}

function stringOrNull(value: Json | undefined, map: (s: string) => string): string | null {
	if (typeof value === 'string') return map(value);
	if (typeof value === 'number') return String(value);
	return null;
}

/** SQL ILIKE: `%` any run, `_` one character, case-insensitive, anchored. */
export function likeToRegExp(pattern: string): RegExp {
	let source = '';
	for (const ch of pattern) {
		if (ch === '%') source += '.*';
		else if (ch === '_') source += '.';
		else source += ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
	}
	return new RegExp(`^${source}$`, 'isu');
}
