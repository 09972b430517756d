import type { IDataObject, IExecuteFunctions, ResourceMapperValue } from 'n8n-workflow';
import { DateTime } from 'luxon';

import { WRITE_ENVELOPE } from '../../../../shared/apiChoices';
import type { DatedEntry } from '../../../../shared/datedValues';
import { isDatedArray, sortNewestFirst, valueInForce } from '../../../../shared/datedValues';
import { InputError } from '../../../../shared/errors';
import type { ResourceDefinition } from '../../../../shared/registry';
import { parseJsonObject } from '../../json';
import type { OperationRun } from '../../types';
import type { MappedValues } from './columns';
import { mappedValues } from './columns';
import type { DatedRow, HistoryEdit } from '../datedRows';
import { mergeHistories } from '../datedHistory';
import { withUnnamedKeysKept } from '../keepUnnamedKeys';
import type { EmployeeWrite } from '../payload';
import { employeeWrite } from '../payload';

/** `columns.mappingMode` of n8n's resource mapper. */
const MAP_AUTOMATICALLY = 'autoMapInputData';

export interface ColumnsOptions {
	validFrom: string | null;
	writeUnchanged: boolean;
}

/** One item's columns, checked: the write for each way it may go, and the value to match on. */
export interface ColumnsInput {
	mapped: MappedValues & { id?: string };
	options: ColumnsOptions;
	read: OperationRun['read'];
}

const today = (context: IExecuteFunctions): string => DateTime.now().setZone(context.getTimezone()).toISODate() ?? DateTime.utc().toISODate();

/** A dated column's value given as text holding a JSON history (an expression that gave one to a text column). */
function asHistory(value: unknown): DatedEntry[] | undefined {
	if (isDatedArray(value)) return value;
	if (typeof value !== 'string' || !value.trim().startsWith('[')) return undefined;
	try {
		const parsed: unknown = JSON.parse(value);
		return isDatedArray(parsed) ? parsed : undefined;
	} catch {
		return undefined;
	}
}

/** Reads and checks the item's columns and options; nothing is sent. */
export function readColumns(context: IExecuteFunctions, resource: ResourceDefinition, run: OperationRun): ColumnsInput {
	const { read, itemIndex } = run;
	// Read whole: n8n checks `columns.value` against the saved schema's types and fails on a null
	// value (a fresh mapper); the checks here name the column and the rule instead.
	const columns = read<Partial<ResourceMapperValue> | null>('columns', {}) ?? {};
	const automatic = columns.mappingMode === MAP_AUTOMATICALLY;
	const values = (automatic ? context.getInputData()[itemIndex]?.json : columns.value) ?? {};
	const schema = columns.schema ?? [];
	const ignore = new Set(
		String(read<string>('options.ignoreColumns', '') ?? '')
			.split(',')
			.map((key) => key.trim())
			.filter(Boolean),
	);
	const mapped = mappedValues(resource, { values, automatic, schema: Array.isArray(schema) ? schema : [], ignore });
	const options = read<IDataObject>('options', {});
	let validFrom: string | null = today(context);
	if ('validFrom' in options) validFrom = String(options.validFrom ?? '').trim() || null;
	return { mapped, options: { validFrom, writeUnchanged: options.writeUnchanged === true }, read };
}

/** The JSON options: an empty object is "not given" (their default, so an added option is silent). */
function jsonOption(read: OperationRun['read'], name: string, label: string): string | IDataObject {
	const parsed = parseJsonObject(read(`options.${name}`, ''), label);
	return parsed && Object.keys(parsed).length > 0 ? parsed : '';
}

/**
 * The columns as the version 1 form would have given them, so that one checker (./payload.ts)
 * decides every rule: required names, emails, field names, dated histories, JSON precedence.
 * A dated column's single value becomes an entry valid from Options › Valid From (on Update one
 * that keeps the rest of the history); a whole history replaces the property's.
 */
export function columnsAsForm(input: ColumnsInput, operation: 'create' | 'update' | 'replace', known: readonly string[]): OperationRun['read'] {
	const { mapped, options, read } = input;
	const fields: IDataObject = {};
	const byName: IDataObject[] = [];
	for (const [name, value] of Object.entries(mapped.plain)) {
		if (known.includes(name)) fields[name] = value;
		else byName.push({ name, value });
	}
	const rows: DatedRow[] = [];
	for (const [property, value] of mapped.dated) {
		const history = asHistory(value);
		if (history) {
			for (const entry of history) rows.push({ property, validFrom: entry.valid_from ?? '', value: entry.value, mode: 'replaceHistory' });
		} else {
			rows.push({ property, validFrom: options.validFrom ?? '', value, mode: 'keep' });
		}
	}
	const answers: Record<string, unknown> = {
		fields,
		'fieldsByName.field': byName,
		'datedValues.entry': rows,
		otherFields: jsonOption(read, 'otherFields', 'Options › Other Fields (JSON)'),
		customProperties: jsonOption(read, 'customProperties', 'Options › Custom Properties (JSON)'),
	};
	return <T>(name: string, fallback: T): T => {
		if (name in answers) return answers[name] as T;
		// The names Create and Replace require, asked for on their own by the checker.
		if (operation !== 'update' && name in mapped.plain) return mapped.plain[name] as T;
		return fallback;
	};
}

export function checkedWrite(resource: ResourceDefinition, input: ColumnsInput, operation: 'create' | 'update' | 'replace'): EmployeeWrite {
	return employeeWrite(resource, operation, columnsAsForm(input, operation, resource.writable?.plainFields ?? []));
}

const isObject = (value: unknown): value is IDataObject => value !== null && typeof value === 'object' && !Array.isArray(value);

function sameValue(a: unknown, b: unknown): boolean {
	if (a === b) return true;
	if (a === undefined || b === undefined || a === null || b === null) return (a ?? null) === (b ?? null);
	if (typeof a !== 'object' || typeof b !== 'object') return false;
	if (Array.isArray(a) !== Array.isArray(b)) return false;
	const keysA = Object.keys(a);
	const keysB = Object.keys(b);
	return keysA.length === keysB.length && keysA.every((key) => sameValue((a as IDataObject)[key], (b as IDataObject)[key]));
}

/** The date an entry is valid from, as valueInForce takes it ('' for "from the beginning"). */
const inForceAt = (entry: DatedEntry): string => entry.valid_from ?? '';

/**
 * What of an Update's write the employee does not have yet: plain fields that differ, histories
 * that differ, custom properties keys that differ, and history entries whose value is not the one
 * in force at their date. Empty body and no edits: nothing would change.
 */
export function withoutUnchanged(write: EmployeeWrite, record: IDataObject): EmployeeWrite {
	const data = { ...(write.body[WRITE_ENVELOPE] as IDataObject) };
	for (const [name, value] of Object.entries(data)) {
		if (name !== 'properties' && sameValue(value, record[name])) delete data[name];
	}
	const currentProperties = isObject(record.properties) ? record.properties : {};
	if (isObject(data.properties)) {
		const properties: IDataObject = { ...data.properties };
		for (const [name, value] of Object.entries(properties)) {
			const current = currentProperties[name];
			const unchanged =
				name === 'custom_properties' && isObject(value) && isObject(current)
					? Object.entries(value).every(([key, inner]) => sameValue(inner, current[key]))
					: Array.isArray(value) && Array.isArray(current)
						? sameValue(value, sortNewestFirst(current as DatedEntry[]))
						: sameValue(value, current);
			if (unchanged) delete properties[name];
		}
		if (Object.keys(properties).length > 0) data.properties = properties;
		else delete data.properties;
	}
	const historyEdits = new Map<string, HistoryEdit[]>();
	for (const [property, edits] of write.historyEdits) {
		const current = currentProperties[property];
		const entries = isDatedArray(current) ? current : [];
		const changing = edits.filter((edit) => edit.mode !== 'keep' || !sameValue(valueInForce(entries, inForceAt(edit.entry)), edit.entry.value));
		if (changing.length > 0) historyEdits.set(property, changing);
	}
	return { body: { [WRITE_ENVELOPE]: data }, historyEdits };
}

export const nothingToWrite = (write: EmployeeWrite): boolean =>
	Object.keys(write.body[WRITE_ENVELOPE] as IDataObject).length === 0 && write.historyEdits.size === 0;

/**
 * The PATCH body: the edited histories merged into the ones the employee has (kept whole), and
 * each object written inside `properties` (`custom_properties`) sent with the keys it did not name.
 */
export function patchBody(write: EmployeeWrite, record: IDataObject): IDataObject {
	const data = { ...(write.body[WRITE_ENVELOPE] as IDataObject) };
	if (write.historyEdits.size > 0) {
		data.properties = { ...((data.properties as IDataObject | undefined) ?? {}), ...mergeHistories(record, write.historyEdits) };
	}
	return { [WRITE_ENVELOPE]: withUnnamedKeysKept(data, record) };
}

/**
 * Replace's body with each dated property given as single values (`entries`, entries from a date)
 * sent as the employee's history with those entries: the PUT then leaves one history on a server
 * that replaces the history given and on one that adds entries by date. A whole history given
 * (a JSON array) stays as given.
 */
export function withHistoriesKept(body: IDataObject, entries: ReadonlyMap<string, HistoryEdit[]>, record: IDataObject): IDataObject {
	const kept = new Map([...entries].filter(([, edits]) => edits.every((edit) => edit.mode === 'keep')));
	if (kept.size === 0) return body;
	const data = { ...(body[WRITE_ENVELOPE] as IDataObject) };
	data.properties = { ...((data.properties as IDataObject | undefined) ?? {}), ...mergeHistories(record, kept) };
	return { [WRITE_ENVELOPE]: data };
}

export function requireMatchValue(input: ColumnsInput, field: string): string {
	const value = field === 'id' ? input.mapped.id : input.mapped.plain[field];
	if (value === undefined || value === null || String(value as string).trim() === '') {
		throw new InputError(`Columns › ${field}: the item has no value for the column to match on; expected the ${field} that finds the employee`);
	}
	return String(value as string).trim();
}
