import { isValidDate } from './clock';
import type { EmployeeSchema, ValueCheck } from './employeeSchemas';
import { badRequest } from './errors';
import { isJsonObject, type Json, type JsonObject, type SimRecord } from './types';

export type WriteMode = 'create' | 'replace' | 'patch';

function invalid(path: string, reason: string, message: string): Error {
	return badRequest('body', reason, `${path}: ${message}`);
}

/** Validates `{data: {...}}` of POST, PUT or PATCH; returns `data`. Every message names the path. */
export function validateEmployeeBody(body: Json | undefined, mode: WriteMode, schema: EmployeeSchema): JsonObject {
	if (!isJsonObject(body)) throw invalid('body', 'invalid_body', 'expected a JSON object {"data": {...}}');
	for (const key of Object.keys(body)) if (key !== 'data') throw invalid(key, 'unknown_field', 'unknown top-level field; expected only data');
	const data = body.data;
	if (!isJsonObject(data)) throw invalid('data', 'missing_field', 'is required and must be an object');
	for (const [key, value] of Object.entries(data)) {
		const path = `data.${key}`;
		if (schema.readOnlyFields.includes(key)) throw invalid(path, 'read_only_field', 'is read-only');
		if (key === 'properties') validateProperties(value, schema);
		else if (!schema.plainFields[key]) throw invalid(path, 'unknown_field', 'unknown field');
		else checkValue(path, schema.plainFields[key], value);
	}
	if (mode !== 'patch') {
		for (const key of schema.requiredFields) {
			if (data[key] === undefined) throw invalid(`data.${key}`, 'missing_field', 'is required');
		}
	}
	return data;
}

function checkValue(path: string, check: ValueCheck, value: Json): void {
	if (!check.ok(value)) throw invalid(path, 'invalid_value', `must be ${check.expected}`);
}

function validateProperties(value: Json, schema: EmployeeSchema): void {
	if (!isJsonObject(value)) throw invalid('data.properties', 'invalid_type', 'must be an object');
	for (const [key, entries] of Object.entries(value)) {
		const path = `data.properties.${key}`;
		if (key === 'custom_properties') {
			if (!isJsonObject(entries)) throw invalid(path, 'invalid_type', 'must be an object');
		} else if (schema.datedProperties[key]) {
			validateDated(path, schema.datedProperties[key], entries);
		} else {
			const known = Object.keys(schema.datedProperties).join(', ');
			throw invalid(path, 'unknown_field', `unknown property; expected custom_properties or one of ${known}`);
		}
	}
}

/** Dates valid, at most one null `valid_from`, no date twice, newest first, the null entry last. */
function validateDated(path: string, check: ValueCheck, entries: Json): void {
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
		if (!check.ok(entry.value)) throw invalid(`${at}.value`, 'invalid_type', `must be ${check.expected}`);
		previous = from;
	});
}

/** A history that tracks every entry by date: the entries given replace those of their dates, the others stay (newest first). */
function mergeByDate(stored: Json | undefined, given: Json[]): Json[] {
	const dateOf = (entry: Json): string => (isJsonObject(entry) && typeof entry.valid_from === 'string' ? entry.valid_from : '');
	const dates = new Set(given.map(dateOf));
	const kept = (Array.isArray(stored) ? stored : []).filter((entry) => !dates.has(dateOf(entry)));
	return [...given, ...kept].sort((a, b) => (dateOf(a) === '' ? 1 : dateOf(b) === '' ? -1 : dateOf(b).localeCompare(dateOf(a))));
}

function emptyProperties(schema: EmployeeSchema): JsonObject {
	const properties: JsonObject = { custom_properties: {} };
	for (const name of Object.keys(schema.datedProperties)) properties[name] = [];
	return properties;
}

/**
 * Builds the stored employee from a validated write (README: PATCH/PUT semantics). The spec leaves
 * open what PATCH does with `custom_properties`: `customPropertiesPatch` (variations.ts) chooses.
 */
export function applyEmployeeWrite(
	existing: SimRecord | undefined,
	data: JsonObject,
	mode: WriteMode,
	base: Pick<SimRecord, 'id'> & JsonObject,
	schema: EmployeeSchema,
	customPropertiesPatch: 'merge' | 'replace' = 'merge',
	putDatedProperties: 'replace' | 'mergeByDate' = 'replace',
): SimRecord {
	const start: SimRecord = mode === 'patch' && existing ? { ...existing } : { ...base };
	if (mode !== 'patch') for (const field of Object.keys(schema.plainFields)) start[field] = null;
	const oldProps = mode === 'patch' && existing && isJsonObject(existing.properties) ? existing.properties : emptyProperties(schema);
	const properties: JsonObject = { ...oldProps };
	for (const [key, value] of Object.entries(data)) {
		if (key !== 'properties') start[key] = value;
	}
	if (isJsonObject(data.properties)) {
		for (const [key, value] of Object.entries(data.properties)) {
			if (key === 'custom_properties' && isJsonObject(value)) {
				const old = isJsonObject(properties.custom_properties) ? properties.custom_properties : {};
				properties.custom_properties = mode === 'patch' && customPropertiesPatch === 'merge' ? { ...old, ...value } : value;
			} else if (mode === 'replace' && putDatedProperties === 'mergeByDate' && Array.isArray(value) && existing && isJsonObject(existing.properties)) {
				properties[key] = mergeByDate(existing.properties[key], value);
			} else {
				properties[key] = value;
			}
		}
	}
	start.properties = properties;
	return { ...start, ...base, id: base.id };
}
