import type { IDataObject } from 'n8n-workflow';

import type { DatedEntry } from '../../../shared/datedValues';
import { sortNewestFirst } from '../../../shared/datedValues';
import { InputError } from '../../../shared/errors';
import type { FieldType } from '../../../shared/registry';
import { checkValue, expectationOf } from '../../../shared/validation';

export interface DatedRow {
	property: string;
	validFrom?: string;
	value?: string;
}

/** One entry of a dated history and where the user wrote it, for errors that point there. */
export interface PlacedEntry {
	entry: DatedEntry;
	/** e.g. "Dated Values › Entry 2" or "Other Fields (JSON) › properties.title[0]". */
	where: string;
	/** The label of its valid-from, e.g. "Dated Values › Entry 2 › Valid From". */
	validFromLabel: string;
}

const DATED_ENTRY_SHAPE = 'expected {"valid_from": "YYYY-MM-DD" or null, "value": …}';

/** The spec's rules for one dated history; sorts it newest first as the API keeps it. */
export function checkDatedHistory(property: string, placed: readonly PlacedEntry[]): DatedEntry[] {
	const firstWithDate = new Map<string, string>();
	const fromTheBeginning: string[] = [];
	for (const { entry, where, validFromLabel } of placed) {
		if (entry.valid_from === null) {
			fromTheBeginning.push(where);
			continue;
		}
		if (!checkValue({ type: 'date' }, entry.valid_from) || entry.valid_from !== entry.valid_from.trim()) {
			throw new InputError(
				`${validFromLabel}: "${entry.valid_from}" is not a date (${property}); expected YYYY-MM-DD, or empty for "from the beginning"`,
			);
		}
		const earlier = firstWithDate.get(entry.valid_from);
		if (earlier !== undefined) {
			throw new InputError(`${validFromLabel}: ${property} is already valid from ${entry.valid_from} in ${earlier}; expected each date once`);
		}
		firstWithDate.set(entry.valid_from, where);
	}
	if (fromTheBeginning.length > 1) {
		throw new InputError(
			`${property}: ${fromTheBeginning.length} entries have an empty valid_from (${fromTheBeginning.join(', ')}); expected at most one (the value from the beginning)`,
		);
	}
	return sortNewestFirst(placed.map(({ entry }) => entry));
}

/** A dated value of a non-text property (a number, a UUID), as the API takes it. */
export function typedDatedValue(raw: unknown, type: FieldType | undefined, label: string): unknown {
	if (raw === null) return null;
	if (type === undefined || type === 'string') {
		if (typeof raw !== 'string') throw new InputError(`${label}: expected text, got ${JSON.stringify(raw)}`);
		return raw;
	}
	const text = typeof raw === 'string' || typeof raw === 'number' ? String(raw) : undefined;
	const checked = text === undefined ? undefined : checkValue({ type }, text);
	if (checked === undefined) throw new InputError(`${label}: ${JSON.stringify(raw)} is not valid; expected ${expectationOf({ type })}`);
	return type === 'number' ? Number(checked) : checked;
}

/** The form's rows, grouped by property, each entry remembering its row. */
export function placedEntriesFromRows(
	rows: readonly DatedRow[],
	allowed: readonly string[],
	valueTypes: Readonly<Record<string, FieldType>>,
): Map<string, PlacedEntry[]> {
	const grouped = new Map<string, PlacedEntry[]>();
	rows.forEach((row, index) => {
		const where = `Dated Values › Entry ${index + 1}`;
		if (!allowed.includes(row.property)) {
			throw new InputError(`${where} › Property: "${row.property}" is not a dated property; expected one of ${allowed.join(', ')}`);
		}
		const validFrom = String(row.validFrom ?? '').trim();
		const entries = grouped.get(row.property) ?? [];
		entries.push({
			entry: {
				valid_from: validFrom === '' ? null : validFrom,
				// An empty Value cell is "no value" (null) from that date on.
				value: String(row.value ?? '').trim() === '' ? null : typedDatedValue(row.value, valueTypes[row.property], `${where} › Value`),
			},
			where,
			validFromLabel: `${where} › Valid From`,
		});
		grouped.set(row.property, entries);
	});
	return grouped;
}

/** A dated history given as JSON (`where` names it, e.g. "Other Fields (JSON) › properties.title"). */
export function placedEntriesFromJson(value: unknown, where: string, valueType: FieldType | undefined): PlacedEntry[] {
	if (!Array.isArray(value)) throw new InputError(`${where}: expected a list of entries, each ${DATED_ENTRY_SHAPE.replace('expected ', '')}`);
	return value.map((raw: unknown, index) => {
		const at = `${where}[${index}]`;
		if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new InputError(`${at}: ${DATED_ENTRY_SHAPE}`);
		const entry = raw as IDataObject;
		const extra = Object.keys(entry).filter((key) => key !== 'valid_from' && key !== 'value');
		if (extra.length > 0) throw new InputError(`${at}: unexpected ${extra.join(', ')}; ${DATED_ENTRY_SHAPE}`);
		if (!('valid_from' in entry) || (entry.valid_from !== null && typeof entry.valid_from !== 'string')) {
			throw new InputError(`${at}.valid_from: ${'valid_from' in entry ? JSON.stringify(entry.valid_from) : 'missing'}; expected YYYY-MM-DD, or null for "from the beginning"`);
		}
		if (!('value' in entry)) throw new InputError(`${at}.value: missing; ${DATED_ENTRY_SHAPE}`);
		return {
			entry: { valid_from: entry.valid_from, value: typedDatedValue(entry.value, valueType, `${at}.value`) },
			where: at,
			validFromLabel: `${at}.valid_from`,
		};
	});
}
