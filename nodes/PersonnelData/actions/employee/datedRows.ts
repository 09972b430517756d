import type { IDataObject } from 'n8n-workflow';
import { z } from 'zod';

import type { DatedEntry } from '../../../shared/datedValues';
import { isDatedArray, sortNewestFirst } from '../../../shared/datedValues';
import { InputError } from '../../../shared/errors';
import { checkFieldName } from '../../../shared/fields/names';
import type { FieldType } from '../../../shared/registry';
import { checkValue, expectationOf } from '../../../shared/validation';

export interface DatedRow {
	property: string;
	validFrom?: string;
	/** Text from the form; an expression may give a number, true/false or null. */
	value?: unknown;
}

const dateSchema = z.string().date();

/** The spec's rules for one dated array; sorts it newest first as the API keeps it. */
export function checkDatedEntries(entries: readonly DatedEntry[], label: string): DatedEntry[] {
	let nullCount = 0;
	const seen = new Set<string>();
	entries.forEach((entry, index) => {
		if (entry.valid_from === null) {
			nullCount++;
			return;
		}
		if (!dateSchema.safeParse(entry.valid_from).success) {
			throw new InputError(`${label}[${index}].valid_from: "${entry.valid_from}" is not a date; expected YYYY-MM-DD, or empty for "from the beginning"`);
		}
		if (seen.has(entry.valid_from)) {
			throw new InputError(`${label}: two entries are valid from ${entry.valid_from}; expected each date once`);
		}
		seen.add(entry.valid_from);
	});
	if (nullCount > 1) {
		throw new InputError(`${label}: ${nullCount} entries have an empty valid_from; expected at most one (the value from the beginning)`);
	}
	return sortNewestFirst(entries);
}

/** A property the registry does not know: text as typed, any other value an expression gave as it is. */
function untypedValue(raw: unknown): unknown {
	if (typeof raw !== 'string') return raw ?? null;
	return raw.trim() === '' ? null : raw;
}

function typedValue(given: unknown, type: FieldType | undefined, label: string): unknown {
	const raw = typeof given === 'string' ? given : given === null || given === undefined ? '' : String(given);
	if (raw.trim() === '') return null;
	if (type === undefined || type === 'string') return raw;
	const checked = checkValue({ type }, raw);
	if (checked === undefined) throw new InputError(`${label}: "${raw}" is not valid; expected ${expectationOf({ type })}`);
	return type === 'number' ? Number(checked) : checked;
}

/**
 * Groups the form's rows by property into dated arrays. A property of `known` (the registry's)
 * keeps its value type and checks; any other well-formed name is a customer's own property, sent
 * as given for the API to judge.
 */
export function datedArraysFromRows(
	rows: readonly DatedRow[],
	known: readonly string[],
	valueTypes: Readonly<Record<string, FieldType>>,
): IDataObject {
	const grouped = new Map<string, DatedEntry[]>();
	rows.forEach((row, index) => {
		const label = `Dated Values › Entry ${index + 1}`;
		const property = checkFieldName(row.property, `${label} › Property`);
		if (property === 'custom_properties') {
			throw new InputError(`${label} › Property: custom_properties is an object, not a dated property; expected Custom Properties (JSON) for it`);
		}
		const validFrom = (row.validFrom ?? '').trim();
		const entries = grouped.get(property) ?? [];
		entries.push({
			valid_from: validFrom === '' ? null : validFrom,
			value: known.includes(property) ? typedValue(row.value, valueTypes[property], `${label} › Value`) : untypedValue(row.value),
		});
		grouped.set(property, entries);
	});
	const result: IDataObject = {};
	for (const [property, entries] of grouped) result[property] = entries as unknown as IDataObject[];
	return result;
}

/** Every dated array of a payload's `properties`, however it got there (form or JSON). */
export function checkPayloadDatedArrays(properties: IDataObject): IDataObject {
	const checked: IDataObject = {};
	for (const [key, value] of Object.entries(properties)) {
		if (Array.isArray(value) && value.length > 0 && value.every((entry) => entry && typeof entry === 'object' && 'valid_from' in entry)) {
			if (!isDatedArray(value)) throw new InputError(`data.properties.${key}: each entry needs valid_from (YYYY-MM-DD or null) and value`);
			checked[key] = checkDatedEntries(value, `data.properties.${key}`) as unknown as IDataObject[];
		} else {
			checked[key] = value;
		}
	}
	return checked;
}
