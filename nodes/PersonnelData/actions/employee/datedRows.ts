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
	/** Update only: what the row does to the property's current history. */
	mode?: string;
}

const dateSchema = z.string().date();

/**
 * What an Update row does to its property's history. The API's PATCH replaces every entry of a
 * dated property it names, so the two modes that keep history read the employee first and send
 * the merged history; `replaceHistory` sends the rows as the whole history (no read).
 */
export type HistoryMode = 'keep' | 'remove' | 'replaceHistory';

export const HISTORY_MODES: ReadonlyArray<{ name: string; value: HistoryMode; description: string }> = [
	{
		name: 'Add or Replace This Entry, Keep the Others',
		value: 'keep',
		description: 'Reads the current history, puts this entry in (replacing the one of the same date) and keeps every other entry',
	},
	{
		name: 'Remove the Entry of This Date',
		value: 'remove',
		description: 'Reads the current history and removes the entry valid from this date (empty: the "from the beginning" entry); Value is ignored',
	},
	{
		name: 'Replace the Whole History',
		value: 'replaceHistory',
		description: 'Sends the rows of this property as its complete history: entries not given here are deleted',
	},
];

export const DEFAULT_HISTORY_MODE: HistoryMode = 'keep';

/** One row that edits a history rather than replacing it, already checked. */
export interface HistoryEdit {
	mode: 'keep' | 'remove';
	entry: DatedEntry;
	/** The form row, for messages: "Dated Values › Entry 2". */
	label: string;
}

export function isHistoryMode(value: unknown): value is HistoryMode {
	return HISTORY_MODES.some((mode) => mode.value === value);
}


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

/** The form's rows, split by what they do: whole histories to send, and edits of the current ones. */
export interface DatedRowPlan {
	/** Properties whose rows are their complete history (Create, Replace, "Replace the Whole History"). */
	whole: IDataObject;
	/** Properties whose rows add or remove entries of the history the employee has now. */
	edits: Map<string, HistoryEdit[]>;
}

/**
 * Groups the form's rows by property. With `modes` (Update), each row's mode decides whether it
 * joins a whole history or edits the current one; one property takes one kind, and an edit names
 * each date once, so no row silently overrides another. A property of `known` (the registry's)
 * keeps its value type and checks; any other well-formed name is a customer's own property, sent
 * as given for the API to judge.
 */
export function planDatedRows(
	rows: readonly DatedRow[],
	known: readonly string[],
	valueTypes: Readonly<Record<string, FieldType>>,
	modes = false,
): DatedRowPlan {
	const grouped = new Map<string, DatedEntry[]>();
	const edits = new Map<string, HistoryEdit[]>();
	const firstRowOf = new Map<string, { label: string; whole: boolean }>();
	rows.forEach((row, index) => {
		const label = `Dated Values › Entry ${index + 1}`;
		const property = checkFieldName(row.property, `${label} › Property`);
		if (property === 'custom_properties') {
			throw new InputError(`${label} › Property: custom_properties is an object, not a dated property; expected Custom Properties (JSON) for it`);
		}
		const mode = modes ? (row.mode ?? DEFAULT_HISTORY_MODE) : 'replaceHistory';
		if (!isHistoryMode(mode)) {
			throw new InputError(`${label} › Mode: "${String(mode)}" is not a mode; expected one of ${HISTORY_MODES.map((m) => m.value).join(', ')}`);
		}
		const whole = mode === 'replaceHistory';
		const first = firstRowOf.get(property);
		if (first && first.whole !== whole) {
			throw new InputError(
				`${label} › Mode: ${first.label} already ${first.whole ? 'replaces the whole history of' : 'edits the history of'} ${property}; expected one kind of mode per property`,
			);
		}
		if (!first) firstRowOf.set(property, { label, whole });

		const validFrom = (row.validFrom ?? '').trim();
		if (validFrom !== '' && !dateSchema.safeParse(validFrom).success) {
			throw new InputError(`${label} › Valid From: "${validFrom}" is not a date for ${property}'s valid_from; expected YYYY-MM-DD, or empty for "from the beginning"`);
		}
		const value = known.includes(property) ? typedValue(row.value, valueTypes[property], `${label} › Value`) : untypedValue(row.value);
		const entry: DatedEntry = { valid_from: validFrom === '' ? null : validFrom, value: mode === 'remove' ? null : value };
		if (whole) {
			grouped.set(property, [...(grouped.get(property) ?? []), entry]);
			return;
		}
		const propertyEdits = edits.get(property) ?? [];
		const twin = propertyEdits.find((edit) => edit.entry.valid_from === entry.valid_from);
		if (twin) {
			throw new InputError(`${label} › Valid From: ${twin.label} already changes the ${property} entry of this date; expected each date once per property`);
		}
		propertyEdits.push({ mode, entry, label });
		edits.set(property, propertyEdits);
	});
	const result: IDataObject = {};
	for (const [property, entries] of grouped) result[property] = entries as unknown as IDataObject[];
	return { whole: result, edits };
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
