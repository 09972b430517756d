import { isValidDate } from './clock';
import { badRequest } from './errors';
import { isUuid } from './filters';
import { EMPLOYEE_DATED_PROPERTIES } from './resources';
import { isJsonObject, type Json, type JsonObject, type SimRecord } from './types';

export type WriteMode = 'create' | 'replace' | 'patch';

const PLAIN_FIELDS = ['first_name', 'last_name', 'email', 'phone1', 'phone2', 'private_id_number', 'employee_number'];
const REQUIRED_FIELDS = ['first_name', 'last_name'];
const READ_ONLY_FIELDS = ['id', 'org_id', 'inserted_at', 'updated_at'];
type DatedName = (typeof EMPLOYEE_DATED_PROPERTIES)[number];

function invalid(path: string, reason: string, message: string): Error {
	return badRequest('body', reason, `${path}: ${message}`);
}

/** Type check of the `value` of one dated entry, per property. */
const VALUE_CHECKS: Record<DatedName, { ok: (v: Json) => boolean; expected: string }> = {
	title: { ok: (v) => v === null || typeof v === 'string', expected: 'a string or null' },
	org_unit_id: { ok: (v) => v === null || (typeof v === 'string' && isUuid(v)), expected: 'a uuid or null' },
	manager_id: { ok: (v) => v === null || (typeof v === 'string' && isUuid(v)), expected: 'a uuid or null' },
	employment_type: { ok: (v) => v === null || typeof v === 'string', expected: 'a string or null' },
	cost_center: { ok: (v) => v === null || typeof v === 'string', expected: 'a string or null' },
	work_percentage: {
		ok: (v) => v === null || (typeof v === 'number' && v >= 0 && v <= 100),
		expected: 'a number from 0 to 100 or null',
	},
};

/** Validates `{data: {...}}` of POST, PUT or PATCH; returns `data`. Every message names the path. */
export function validateEmployeeBody(body: Json | undefined, mode: WriteMode): JsonObject {
	if (!isJsonObject(body)) throw invalid('body', 'invalid_body', 'expected a JSON object {"data": {...}}');
	for (const key of Object.keys(body)) if (key !== 'data') throw invalid(key, 'unknown_field', 'unknown top-level field; expected only data');
	const data = body.data;
	if (!isJsonObject(data)) throw invalid('data', 'missing_field', 'is required and must be an object');
	for (const [key, value] of Object.entries(data)) {
		const path = `data.${key}`;
		if (READ_ONLY_FIELDS.includes(key)) throw invalid(path, 'read_only_field', 'is read-only');
		if (key === 'properties') validateProperties(value);
		else if (!PLAIN_FIELDS.includes(key)) throw invalid(path, 'unknown_field', 'unknown field');
		else validatePlain(path, key, value);
	}
	if (mode !== 'patch') {
		for (const key of REQUIRED_FIELDS) {
			if (data[key] === undefined) throw invalid(`data.${key}`, 'missing_field', 'is required');
		}
	}
	return data;
}

function validatePlain(path: string, key: string, value: Json): void {
	if (REQUIRED_FIELDS.includes(key)) {
		if (typeof value !== 'string' || value.trim() === '') throw invalid(path, 'invalid_value', 'must be a non-empty string');
		return;
	}
	if (value !== null && typeof value !== 'string') throw invalid(path, 'invalid_type', 'must be a string or null');
	if (key === 'email' && typeof value === 'string' && !/^[^@\s]+@[^@\s]+$/.test(value)) {
		throw invalid(path, 'invalid_value', `"${value}" is not an email address`);
	}
}

function validateProperties(value: Json): void {
	if (!isJsonObject(value)) throw invalid('data.properties', 'invalid_type', 'must be an object');
	for (const [key, entries] of Object.entries(value)) {
		const path = `data.properties.${key}`;
		if (key === 'custom_properties') {
			if (!isJsonObject(entries)) throw invalid(path, 'invalid_type', 'must be an object');
		} else if ((EMPLOYEE_DATED_PROPERTIES as readonly string[]).includes(key)) {
			validateDated(path, key as DatedName, entries);
		} else {
			throw invalid(path, 'unknown_field', `unknown property; expected custom_properties or one of ${EMPLOYEE_DATED_PROPERTIES.join(', ')}`);
		}
	}
}

/** Dates valid, at most one null `valid_from`, no date twice, newest first, the null entry last. */
function validateDated(path: string, name: DatedName, entries: Json): void {
	if (!Array.isArray(entries)) throw invalid(path, 'invalid_type', 'must be an array of {valid_from, value}');
	let previous: string | null | undefined;
	entries.forEach((entry, i) => {
		const at = `${path}[${i}]`;
		if (!isJsonObject(entry)) throw invalid(at, 'invalid_type', 'must be an object {valid_from, value}');
		for (const key of Object.keys(entry)) {
			if (key !== 'valid_from' && key !== 'value') throw invalid(`${at}.${key}`, 'unknown_field', 'unknown; expected valid_from and value');
		}
		if (!('valid_from' in entry)) throw invalid(`${at}.valid_from`, 'missing_field', 'is required (a date or null)');
		if (!('value' in entry)) throw invalid(`${at}.value`, 'missing_field', 'is required');
		const from = entry.valid_from;
		if (from !== null && (typeof from !== 'string' || !isValidDate(from))) {
			throw invalid(`${at}.valid_from`, 'invalid_value', `${JSON.stringify(from)} is not a date (YYYY-MM-DD) or null`);
		}
		if (previous === null) {
			throw invalid(`${at}.valid_from`, 'invalid_order', 'follows the entry with a null valid_from, which must be the last (at most one null)');
		}
		if (typeof previous === 'string' && typeof from === 'string') {
			if (from === previous) throw invalid(`${at}.valid_from`, 'duplicate_date', `${from} appears twice`);
			if (from > previous) throw invalid(`${at}.valid_from`, 'invalid_order', `${from} is newer than the entry before it; entries must be newest first`);
		}
		if (!VALUE_CHECKS[name].ok(entry.value)) throw invalid(`${at}.value`, 'invalid_type', `must be ${VALUE_CHECKS[name].expected}`);
		previous = from;
	});
}

function emptyProperties(): JsonObject {
	const properties: JsonObject = { custom_properties: {} };
	for (const name of EMPLOYEE_DATED_PROPERTIES) properties[name] = [];
	return properties;
}

/** Builds the stored employee from a validated write (README: PATCH/PUT semantics). */
export function applyEmployeeWrite(existing: SimRecord | undefined, data: JsonObject, mode: WriteMode, base: Pick<SimRecord, 'id'> & JsonObject): SimRecord {
	const start: SimRecord = mode === 'patch' && existing ? { ...existing } : { ...base };
	if (mode !== 'patch') for (const field of PLAIN_FIELDS) start[field] = null;
	const oldProps = mode === 'patch' && existing && isJsonObject(existing.properties) ? existing.properties : emptyProperties();
	const properties: JsonObject = { ...oldProps };
	for (const [key, value] of Object.entries(data)) {
		if (key !== 'properties') start[key] = value;
	}
	if (isJsonObject(data.properties)) {
		for (const [key, value] of Object.entries(data.properties)) {
			if (key === 'custom_properties' && isJsonObject(value)) {
				const old = isJsonObject(properties.custom_properties) ? properties.custom_properties : {};
				properties.custom_properties = mode === 'patch' ? { ...old, ...value } : value;
			} else {
				properties[key] = value;
			}
		}
	}
	start.properties = properties;
	return { ...start, ...base, id: base.id };
}
