import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import type { DatedEntry } from '../../../shared/datedValues';
import { isDatedArray } from '../../../shared/datedValues';

/**
 * What a write changes in one employee: each plain field before and after, each key of
 * `custom_properties` before and after, and for each dated property the history entries added,
 * replaced and removed (and how many were left as they were). The same description serves a
 * preview (the record as read, and as the write would leave it) and a real write (as read, and
 * as the API returned it), so an audit log needs no second read.
 */

/** The output field of a version 2 write (and an applied preview) that holds its change description. */
export const WRITE_CHANGES_FIELD = 'writeChanges';

/** Fields the server sets: never part of a change, and not of a record's content fingerprint. */
const SERVER_FIELDS = new Set(['id', 'org_id', 'inserted_at', 'updated_at']);
const CUSTOM_PROPERTIES = 'custom_properties';

export interface FieldChange {
	before: unknown;
	after: unknown;
}

export interface HistoryChange {
	added: DatedEntry[];
	replaced: Array<{ valid_from: string | null; before: unknown; after: unknown }>;
	removed: DatedEntry[];
	/** Entries of the history the write leaves as they were. */
	left: number;
}

export interface ChangeDescription {
	/** Top-level fields, and `properties.<name>` for a property that is no history. */
	fields: Record<string, FieldChange>;
	customProperties: Record<string, FieldChange>;
	histories: Record<string, HistoryChange>;
}

export type WriteMethod = 'POST' | 'PATCH' | 'PUT';

const isObject = (value: unknown): value is IDataObject => value !== null && typeof value === 'object' && !Array.isArray(value);
const objectOf = (value: unknown): IDataObject => (isObject(value) ? value : {});

/** JSON with object keys sorted: equal content, equal text (histories keep their order). */
function canonical(value: unknown): string {
	if (value === undefined) return 'null';
	if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
	if (isObject(value)) {
		return `{${Object.keys(value)
			.sort()
			.map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
			.join(',')}}`;
	}
	return JSON.stringify(value);
}

/** Equal as the API stores them: a missing field is null. */
export const sameContent = (a: unknown, b: unknown): boolean => canonical(a ?? null) === canonical(b ?? null);

const dateKey = (entry: DatedEntry): string => entry.valid_from ?? '';

function historyChange(before: unknown, after: unknown): HistoryChange | undefined {
	const old = isDatedArray(before) ? before : [];
	const next = isDatedArray(after) ? after : [];
	const oldByDate = new Map(old.map((entry) => [dateKey(entry), entry]));
	const nextByDate = new Map(next.map((entry) => [dateKey(entry), entry]));
	const change: HistoryChange = { added: [], replaced: [], removed: [], left: 0 };
	for (const entry of next) {
		const was = oldByDate.get(dateKey(entry));
		if (!was) change.added.push(entry);
		else if (!sameContent(was.value, entry.value)) change.replaced.push({ valid_from: entry.valid_from, before: was.value, after: entry.value });
		else change.left++;
	}
	for (const entry of old) if (!nextByDate.has(dateKey(entry))) change.removed.push(entry);
	return change.added.length + change.replaced.length + change.removed.length > 0 ? change : undefined;
}

const keysOf = (...objects: IDataObject[]): string[] => [...new Set(objects.flatMap((object) => Object.keys(object)))];

/** The difference between two states of one employee (before: `{}` for one that did not exist). */
export function describeChange(before: IDataObject, after: IDataObject): ChangeDescription {
	const description: ChangeDescription = { fields: {}, customProperties: {}, histories: {} };
	for (const key of keysOf(before, after)) {
		if (SERVER_FIELDS.has(key) || key === 'properties') continue;
		if (!sameContent(before[key], after[key])) description.fields[key] = { before: before[key] ?? null, after: after[key] ?? null };
	}
	const oldProperties = objectOf(before.properties);
	const newProperties = objectOf(after.properties);
	for (const key of keysOf(oldProperties, newProperties)) {
		const was = oldProperties[key];
		const now = newProperties[key];
		if (key === CUSTOM_PROPERTIES) {
			const oldCustom = objectOf(was);
			const newCustom = objectOf(now);
			for (const name of keysOf(oldCustom, newCustom)) {
				if (!sameContent(oldCustom[name], newCustom[name])) description.customProperties[name] = { before: oldCustom[name] ?? null, after: newCustom[name] ?? null };
			}
		} else if (Array.isArray(was) || Array.isArray(now)) {
			const change = historyChange(was, now);
			if (change) description.histories[key] = change;
		} else if (!sameContent(was, now)) {
			description.fields[`properties.${key}`] = { before: was ?? null, after: now ?? null };
		}
	}
	return description;
}

export const isNoChange = (description: ChangeDescription): boolean =>
	Object.keys(description.fields).length + Object.keys(description.customProperties).length + Object.keys(description.histories).length === 0;

/** The description as an output item's json holds it. */
export const changeJson = (description: ChangeDescription): IDataObject => description as unknown as IDataObject;

/**
 * The employee as the API leaves it after a write of `data` (the `{ data }` of the body): POST
 * creates it from `data`; PATCH sets the fields given and replaces each property given whole (a
 * history, and `custom_properties` as this node sends it: whole); PUT clears every field and property not given (a history
 * becomes empty, `custom_properties` an empty object).
 */
export function predictAfter(before: IDataObject, data: IDataObject, method: WriteMethod): IDataObject {
	const given = objectOf(data.properties);
	const plain = Object.fromEntries(Object.entries(data).filter(([key]) => key !== 'properties')) as IDataObject;
	if (method === 'POST') return { ...plain, ...(isObject(data.properties) ? { properties: given } : {}) };
	const after: IDataObject = { ...before };
	const properties: IDataObject = { ...objectOf(before.properties) };
	if (method === 'PUT') {
		for (const key of Object.keys(after)) if (!SERVER_FIELDS.has(key) && key !== 'properties') after[key] = null;
		for (const [key, value] of Object.entries(properties)) {
			if (key === CUSTOM_PROPERTIES) properties[key] = {};
			else if (Array.isArray(value)) properties[key] = [];
			else delete properties[key];
		}
	}
	Object.assign(after, plain);
	// Every value given replaces the stored one. For a history the spec says so; for an object
	// (`custom_properties`) the spec is silent, and a PATCH of this node sends it whole, the keys
	// it names over the employee's (./keepUnnamedKeys.ts), so a merging server and a replacing one
	// leave the same object: the one sent.
	for (const [key, value] of Object.entries(given)) properties[key] = value;
	after.properties = properties;
	return after;
}

const isEmptyValue = (value: unknown): boolean =>
	value === null || value === undefined || (Array.isArray(value) && value.length === 0) || (isObject(value) && Object.keys(value).length === 0);

/**
 * One hash of the employee's content (server-set fields aside, an empty value as an absent one):
 * what a preview read, to tell later whether the record moved. A single hash of the whole record,
 * not one a field, so that no value (a personal ID number) can be guessed back from it.
 */
export function fingerprintOf(record: IDataObject): string {
	const content: IDataObject = {};
	for (const [key, value] of Object.entries(record)) {
		if (!SERVER_FIELDS.has(key) && key !== 'properties' && !isEmptyValue(value)) content[key] = value;
	}
	const properties: IDataObject = {};
	for (const [key, value] of Object.entries(objectOf(record.properties))) if (!isEmptyValue(value)) properties[key] = value;
	content.properties = properties;
	return createHash('sha256').update(canonical(content)).digest('hex');
}

/**
 * The parts of one write whose "before" differs between two descriptions of it (the preview's,
 * and the same write on the record as it is now): what another client changed under the write.
 */
export function changedUnder(previewed: ChangeDescription, now: ChangeDescription): string[] {
	const moved: string[] = [];
	const compare = (a: Record<string, unknown>, b: Record<string, unknown>, prefix: string) => {
		for (const key of keysOf(a as IDataObject, b as IDataObject)) if (!sameContent(a[key], b[key])) moved.push(`${prefix}${key}`);
	};
	compare(previewed.fields, now.fields, '');
	compare(previewed.customProperties, now.customProperties, 'properties.custom_properties.');
	compare(previewed.histories, now.histories, 'properties.');
	return moved.sort();
}
