import type { IDataObject } from 'n8n-workflow';

import type { DatedEntry } from '../../../shared/datedValues';
import { sortNewestFirst } from '../../../shared/datedValues';
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

/** One entry of a dated history and where the user wrote it, for errors that point there. */
export interface PlacedEntry {
	entry: DatedEntry;
	/** e.g. "Dated Values › Entry 2" or "Other Fields (JSON) › properties.title[0]". */
	where: string;
	/** The label of its valid-from, e.g. "Dated Values › Entry 2 › Valid From". */
	validFromLabel: string;
}

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

const DATED_ENTRY_SHAPE = 'expected {"valid_from": "YYYY-MM-DD" or null, "value": …}';

function checkValidFrom(validFrom: string, property: string, label: string): void {
	if (!checkValue({ type: 'date' }, validFrom) || validFrom !== validFrom.trim()) {
		throw new InputError(`${label}: "${validFrom}" is not a date (${property}); expected YYYY-MM-DD, or empty for "from the beginning"`);
	}
}

/** The spec's rules for one dated history; sorts it newest first as the API keeps it. */
export function checkDatedHistory(property: string, placed: readonly PlacedEntry[]): DatedEntry[] {
	const firstWithDate = new Map<string, string>();
	const fromTheBeginning: string[] = [];
	for (const { entry, where, validFromLabel } of placed) {
		if (entry.valid_from === null) {
			fromTheBeginning.push(where);
			continue;
		}
		checkValidFrom(entry.valid_from, property, validFromLabel);
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

/** A dated value of a property the registry knows, as the API takes it (a number, a UUID, text). */
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

/**
 * A dated value: a property the registry knows keeps its type and checks; a customer's own
 * property is sent as given (text as typed, anything an expression gave as it is).
 */
function datedValue(raw: unknown, property: string, known: readonly string[], valueTypes: Readonly<Record<string, FieldType>>, label: string): unknown {
	if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) return null;
	return known.includes(property) ? typedDatedValue(raw, valueTypes[property], label) : raw;
}

/** The form's rows, split by what they do: whole histories to send, and edits of the current ones. */
export interface DatedRowPlan {
	/** Properties whose rows are their complete history (Create, Replace, "Replace the Whole History"). */
	whole: Map<string, PlacedEntry[]>;
	/** Properties whose rows add or remove entries of the history the employee has now. */
	edits: Map<string, HistoryEdit[]>;
}

/**
 * Groups the form's rows by property. With `modes` (Update), each row's mode decides whether it
 * joins a whole history or edits the current one; one property takes one kind, and an edit names
 * each date once, so no row silently overrides another. A property the registry does not know
 * (`known`) is a customer's own: any well-formed name, its values sent as given.
 */
export function planDatedRows(
	rows: readonly DatedRow[],
	known: readonly string[],
	valueTypes: Readonly<Record<string, FieldType>>,
	modes = false,
): DatedRowPlan {
	const whole = new Map<string, PlacedEntry[]>();
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
		const isWhole = mode === 'replaceHistory';
		const first = firstRowOf.get(property);
		if (first && first.whole !== isWhole) {
			throw new InputError(
				`${label} › Mode: ${first.label} already ${first.whole ? 'replaces the whole history of' : 'edits the history of'} ${property}; expected one kind of mode per property`,
			);
		}
		if (!first) firstRowOf.set(property, { label, whole: isWhole });

		const validFrom = String(row.validFrom ?? '').trim();
		const validFromLabel = `${label} › Valid From`;
		if (validFrom !== '') checkValidFrom(validFrom, property, validFromLabel);
		const entry: DatedEntry = {
			valid_from: validFrom === '' ? null : validFrom,
			value: mode === 'remove' ? null : datedValue(row.value, property, known, valueTypes, `${label} › Value`),
		};
		if (isWhole) {
			whole.set(property, [...(whole.get(property) ?? []), { entry, where: label, validFromLabel }]);
			return;
		}
		const propertyEdits = edits.get(property) ?? [];
		const twin = propertyEdits.find((edit) => edit.entry.valid_from === entry.valid_from);
		if (twin) {
			throw new InputError(`${validFromLabel}: ${twin.label} already changes the ${property} entry of this date; expected each date once per property`);
		}
		propertyEdits.push({ mode, entry, label });
		edits.set(property, propertyEdits);
	});
	return { whole, edits };
}

/**
 * A dated history given as JSON (`where` names it, e.g. "Other Fields (JSON) › properties.title").
 * `valueType` undefined with `known` false: a customer's own property, values sent as given.
 */
export function placedEntriesFromJson(value: unknown, where: string, valueType: FieldType | undefined, known = true): PlacedEntry[] {
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
			entry: { valid_from: entry.valid_from, value: known ? typedDatedValue(entry.value, valueType, `${at}.value`) : entry.value },
			where: at,
			validFromLabel: `${at}.valid_from`,
		};
	});
}
