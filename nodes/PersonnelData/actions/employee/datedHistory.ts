import type { IDataObject } from 'n8n-workflow';

import type { DatedEntry } from '../../../shared/datedValues';
import { isDatedArray } from '../../../shared/datedValues';
import { InputError } from '../../../shared/errors';
import type { HistoryEdit } from './datedRows';
import { checkDatedHistory } from './datedRows';

const sameDate = (a: string | null, b: string | null): boolean => a === b;
const describeDate = (validFrom: string | null): string => (validFrom === null ? 'the beginning (empty Valid From)' : validFrom);

/**
 * The property's history after the edits, newest first, checked by the spec's rules. `current`
 * is the history the API returned (absent or empty: none yet); entries are kept exactly as read.
 */
export function mergeHistory(property: string, current: unknown, edits: readonly HistoryEdit[]): DatedEntry[] {
	if (current !== undefined && current !== null && !(Array.isArray(current) && current.length === 0) && !isDatedArray(current)) {
		throw new InputError(
			`Dated Values: the employee's ${property} is not a dated history (got ${JSON.stringify(current).slice(0, 80)}); use "Replace the Whole History" or Other Fields (JSON)`,
		);
	}
	let entries: DatedEntry[] = Array.isArray(current) ? [...(current as DatedEntry[])] : [];
	for (const edit of edits) {
		const at = edit.entry.valid_from;
		const exists = entries.some((entry) => sameDate(entry.valid_from, at));
		if (edit.mode === 'remove' && !exists) {
			const dates = entries.map((entry) => describeDate(entry.valid_from)).join(', ') || 'none';
			throw new InputError(
				`${edit.label} › Valid From: ${property} has no entry valid from ${describeDate(at)}; expected one of its dates (${dates})`,
			);
		}
		entries = entries.filter((entry) => !sameDate(entry.valid_from, at));
		if (edit.mode === 'keep') entries.push(edit.entry);
	}
	const where = `Dated Values › ${property} after the change`;
	return checkDatedHistory(
		property,
		entries.map((entry) => ({ entry, where, validFromLabel: `${where} › Valid From` })),
	);
}

/** The merged histories of every edited property, from the employee as the API returned it. */
export function mergeHistories(record: IDataObject, edits: ReadonlyMap<string, readonly HistoryEdit[]>): IDataObject {
	const properties = (record.properties ?? {}) as IDataObject;
	const merged: IDataObject = {};
	for (const [property, propertyEdits] of edits) {
		merged[property] = mergeHistory(property, properties[property], propertyEdits) as unknown as IDataObject[];
	}
	return merged;
}
