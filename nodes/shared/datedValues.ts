import type { IDataObject } from 'n8n-workflow';

export interface DatedEntry {
	valid_from: string | null;
	value: unknown;
}

export function isDatedArray(value: unknown): value is DatedEntry[] {
	return (
		Array.isArray(value) &&
		value.length > 0 &&
		value.every(
			(entry) =>
				entry !== null &&
				typeof entry === 'object' &&
				'valid_from' in entry &&
				'value' in entry &&
				(entry.valid_from === null || typeof entry.valid_from === 'string'),
		)
	);
}

/**
 * The entry in force on `date` (YYYY-MM-DD): the latest `valid_from` not after it, a null
 * `valid_from` counting as the beginning of time. Input order is not trusted. Null when every
 * entry starts later.
 */
export function valueInForce(entries: readonly DatedEntry[], date: string): unknown {
	let best: DatedEntry | undefined;
	for (const entry of entries) {
		const from = entry.valid_from === null ? '' : entry.valid_from.slice(0, 10);
		if (from > date) continue;
		const bestFrom = best === undefined ? undefined : best.valid_from === null ? '' : best.valid_from.slice(0, 10);
		if (bestFrom === undefined || from > bestFrom) best = entry;
	}
	return best === undefined ? null : best.value;
}

/** Newest first, the null (beginning of time) entry last: the order the API keeps. */
export function sortNewestFirst<T extends DatedEntry>(entries: readonly T[]): T[] {
	return [...entries].sort((a, b) => {
		if (a.valid_from === b.valid_from) return 0;
		if (a.valid_from === null) return 1;
		if (b.valid_from === null) return -1;
		return a.valid_from < b.valid_from ? 1 : -1;
	});
}

/**
 * Replaces every dated array in `properties` by its value in force on `date`. The spec's
 * `properties` hold `custom_properties` (an object) and dated histories only, so an empty array
 * there is an empty history: nothing is in force, the value is null.
 */
export function flattenDatedProperties(record: IDataObject, date: string): IDataObject {
	const properties = record.properties;
	if (properties === null || typeof properties !== 'object' || Array.isArray(properties)) return record;
	const flattened: IDataObject = {};
	for (const [key, value] of Object.entries(properties as IDataObject)) {
		const emptyHistory = Array.isArray(value) && value.length === 0;
		flattened[key] = emptyHistory || isDatedArray(value) ? (valueInForce(value as DatedEntry[], date) as IDataObject[keyof IDataObject]) : value;
	}
	return { ...record, properties: flattened };
}
