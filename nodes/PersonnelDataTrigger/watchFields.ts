import { createHash } from 'node:crypto';
import type { IDataObject } from 'n8n-workflow';

import { InputError } from '../shared/errors';
import { canonicalJson } from '../shared/canonicalJson';
import { idKey } from '../shared/ids';

/**
 * Options → Watch Fields: the trigger keeps, per record, the watched fields' values (or, without
 * Include Previous Values, a fingerprint of each) and sends an update only when one of them
 * changed. Field names: a top-level field (`email`), a dated property compared as its whole
 * history (`properties.title`), or a custom property (`custom_properties.cost_center`).
 */

/** Records whose watched fields the state may keep; beyond, the trigger stops with an error. */
export const WATCH_RECORDS_MAX = 100_000;

/** Hex digits of a field's sha256 fingerprint: 64 bits, a false "unchanged" one in 2^64. */
const FINGERPRINT_HEX = 16;

const FIELD_NAME = /^(properties\.|custom_properties\.)?[A-Za-z0-9_.-]+$/;

export interface WatchSetup {
	fields: string[];
	/** Include Previous Values: keep the values themselves, not their fingerprints. */
	withValues: boolean;
	/** Which fields, how they are kept, and of which records (the filters): a stored state with another key is read afresh. */
	key: string;
}

/** What the state keeps: per record id, one entry per watched field (its JSON, or its fingerprint). */
export interface WatchState {
	key: string;
	records: Record<string, string[]>;
	/** The baseline is still being read: the next poll goes on after this cursor. */
	after?: string;
	/** Requests the baseline's listing sent so far: Max Requests bounds it across polls. */
	requests?: number;
	/** When the records were last listed whole (epoch ms): a sweep drops the ones no longer listed (watchBaseline.ts). */
	readAt?: number;
	/** A sweep in progress: its cursor, requests, and the digests of the ids listed so far. */
	sweep?: WatchSweep;
	/** The fields the entries hold, in order, and how (stored since Watch Fields' edits carry values over). */
	fields?: string[];
	withValues?: boolean;
	/**
	 * While a baseline for edited Watch Fields is read: the values the state held before the edit.
	 * A record changed meanwhile is compared with them for the fields watched before and after the
	 * edit; a newly watched field counts from the baseline's reading on (its change before that
	 * is not claimed). Dropped once the baseline is whole.
	 */
	carried?: CarriedWatch;
}

/** The entries of the Watch Fields state before an edit (see `WatchState.carried`). */
export interface CarriedWatch {
	fields: string[];
	withValues: boolean;
	records: Record<string, string[]>;
}

export interface WatchSweep {
	after?: string;
	requests: number;
	/** 11-character digests of the id keys listed so far, one after the other. */
	seen: string;
}

/** The option as given: a list from the picker, or names separated by commas from an expression. */
export function readWatchSetup(given: unknown, withValues: boolean, filters = ''): WatchSetup | undefined {
	const names = Array.isArray(given) ? given.map(String) : typeof given === 'string' ? given.split(',') : [];
	const fields = [...new Set(names.map((name) => name.trim()).filter((name) => name !== ''))];
	if (fields.length === 0) return undefined;
	const wrong = fields.find((field) => !FIELD_NAME.test(field) || /\.$/.test(field));
	if (wrong !== undefined) {
		throw new InputError(
			`Options › Watch Fields: "${wrong}" is not a field name; expected a field (email), properties.<name> or custom_properties.<key>`,
		);
	}
	// Other filters, other records: narrowing them starts a baseline that keeps only the ones that match.
	const key = createHash('sha256').update(JSON.stringify(filters === '' ? { fields, withValues } : { fields, withValues, filters })).digest('hex').slice(0, 16);
	return { fields, withValues, key };
}

/** The top-level fields a listing must select so that the watched fields are in its records. */
export function selectedFor(watch: WatchSetup): string[] {
	return [...new Set(watch.fields.map((field) => (/^(custom_)?properties\./.test(field) ? 'properties' : field)))];
}

const isObject = (value: unknown): value is IDataObject => typeof value === 'object' && value !== null && !Array.isArray(value);

function valueOf(record: IDataObject, field: string): unknown {
	const properties = isObject(record.properties) ? record.properties : {};
	if (field.startsWith('properties.')) return properties[field.slice('properties.'.length)] ?? null;
	if (field.startsWith('custom_properties.')) {
		const custom = isObject(properties.custom_properties) ? properties.custom_properties : {};
		return custom[field.slice('custom_properties.'.length)] ?? null;
	}
	return record[field] ?? null;
}

const fingerprint = (json: string) => createHash('sha256').update(json).digest('hex').slice(0, FINGERPRINT_HEX);

/** What the state keeps of one record. */
export function snapshot(watch: WatchSetup, record: IDataObject): string[] {
	return watch.fields.map((field) => {
		const json = canonicalJson(valueOf(record, field));
		return watch.withValues ? json : fingerprint(json);
	});
}

/** What an edit of Watch Fields carries over from the state before it (null: nothing). */
export function carriedFrom(before: WatchState | null): CarriedWatch | null {
	if (before === null) return null;
	if (before.carried) return before.carried;
	if (before.after !== undefined || before.fields === undefined || before.withValues === undefined) return null;
	return { fields: before.fields, withValues: before.withValues, records: before.records };
}

/**
 * A record's entry from the values carried over an edit: a field watched before keeps its value
 * from then (as a fingerprint, when the edit turned Include Previous Values off); a field newly
 * watched (or one kept as a fingerprint that now needs its value) takes the record's value now.
 * Undefined: nothing was carried for the record.
 */
function carriedEntry(watch: WatchSetup, carried: CarriedWatch | null, id: string, record: IDataObject): string[] | undefined {
	const old = carried?.records[id];
	if (!carried || old === undefined || old.length !== carried.fields.length) return undefined;
	const now = snapshot(watch, record);
	return watch.fields.map((field, index) => {
		const at = carried.fields.indexOf(field);
		if (at < 0) return now[index];
		if (carried.withValues === watch.withValues) return old[at];
		return carried.withValues ? fingerprint(old[at]) : now[index];
	});
}

/** What `_event` says about the watched fields of one emitted record. */
export interface WatchNote {
	/** A record the state did not know: created, whatever its timestamps say. */
	firstSeen: boolean;
	changedFields: string[];
	previous?: IDataObject;
	/** Dated properties: the history entries the change added and removed. */
	historyChanges?: IDataObject;
}

export class WatchLimitError extends InputError {}

function tooMany(count: number): WatchLimitError {
	return new WatchLimitError(
		`Options › Watch Fields: the trigger keeps the watched fields of every record and can keep at most ${WATCH_RECORDS_MAX.toLocaleString('en-US')}; more match the filters (${count.toLocaleString('en-US')} seen). Narrow the filters or remove Watch Fields`,
	);
}

/** The baseline, read at activation (or when the watched fields change): one record at a time, up to the cap. */
export class Baseline {
	private readonly records: Record<string, string[]>;
	private count: number;

	/** `known`: what earlier polls of the same baseline read; `carried`: the state before an edit of Watch Fields. */
	constructor(
		private readonly watch: WatchSetup,
		known: Record<string, string[]> = {},
		private readonly carried: CarriedWatch | null = null,
	) {
		this.records = { ...known };
		this.count = Object.keys(known).length;
	}

	add(record: IDataObject): void {
		if (record.id === undefined || record.id === null) return;
		const id = idKey(String(record.id));
		if (!(id in this.records) && ++this.count > WATCH_RECORDS_MAX) throw tooMany(this.count);
		this.records[id] = snapshot(this.watch, record);
	}

	/**
	 * A record changed after the trigger's watermark while the baseline is read: its change will be
	 * read as such, but its values before it were never seen. An empty entry says so.
	 */
	changedMeanwhile(record: IDataObject): void {
		if (record.id === undefined || record.id === null) return;
		const id = idKey(String(record.id));
		// Read earlier in the baseline, before it changed: those values are the ones to compare with.
		if (id in this.records) return;
		if (++this.count > WATCH_RECORDS_MAX) throw tooMany(this.count);
		this.records[id] = carriedEntry(this.watch, this.carried, id, record) ?? [];
	}

	get state(): WatchState {
		return { key: this.watch.key, records: this.records, fields: this.watch.fields, withValues: this.watch.withValues, ...(this.carried ? { carried: this.carried } : {}) };
	}
}

function historyDiff(before: unknown, after: unknown): IDataObject {
	const entries = (value: unknown) => (Array.isArray(value) ? (value as unknown[]) : []);
	const afterKeys = new Set(entries(after).map(canonicalJson));
	const beforeKeys = new Set(entries(before).map(canonicalJson));
	return {
		added: entries(after).filter((entry) => !beforeKeys.has(canonicalJson(entry))),
		removed: entries(before).filter((entry) => !afterKeys.has(canonicalJson(entry))),
	};
}

/**
 * The records of one reading (oldest first) compared with the state: those to emit, each with its
 * note, and the state after them. A record not in the state is new to it (created); one whose
 * watched fields are all unchanged is not emitted; one whose earlier values the state never saw
 * (an empty entry) is emitted once with every watched field.
 */
export function compareWatched(
	watch: WatchSetup,
	state: WatchState,
	records: readonly IDataObject[],
): { emitted: Array<{ record: IDataObject; note: WatchNote }>; state: WatchState } {
	const kept = { ...state.records };
	let size = Object.keys(kept).length;
	const emitted: Array<{ record: IDataObject; note: WatchNote }> = [];
	for (const record of records) {
		if (record.id === undefined || record.id === null) continue;
		const id = idKey(String(record.id));
		const now = snapshot(watch, record);
		const before = kept[id];
		if (before === undefined && ++size > WATCH_RECORDS_MAX) throw tooMany(size);
		kept[id] = now;
		if (before === undefined) {
			emitted.push({ record, note: { firstSeen: true, changedFields: [...watch.fields] } });
			continue;
		}
		if (before.length === 0) {
			// Changed while the baseline was read (see `Baseline.changedMeanwhile`): its earlier values were never seen.
			emitted.push({ record, note: { firstSeen: false, changedFields: [...watch.fields], ...(watch.withValues ? { previous: {} } : {}) } });
			continue;
		}
		const changed = watch.fields.filter((_, index) => before[index] !== now[index]);
		if (changed.length === 0) continue;
		const note: WatchNote = { firstSeen: false, changedFields: changed };
		if (watch.withValues) {
			const previous: IDataObject = {};
			const historyChanges: IDataObject = {};
			for (const field of changed) {
				const old = JSON.parse(before[watch.fields.indexOf(field)]) as unknown;
				previous[field] = old as IDataObject[keyof IDataObject];
				if (field.startsWith('properties.')) historyChanges[field] = historyDiff(old, valueOf(record, field));
			}
			note.previous = previous;
			if (Object.keys(historyChanges).length > 0) note.historyChanges = historyChanges;
		}
		emitted.push({ record, note });
	}
	return { emitted, state: { ...state, records: kept } };
}

/** The stored watch state, or null when it cannot be read (the trigger then reads a new baseline). */
export function readWatchState(stored: unknown): WatchState | null {
	if (!isObject(stored) || typeof stored.key !== 'string' || !isObject(stored.records)) return null;
	const records = stored.records as Record<string, unknown>;
	for (const entry of Object.values(records)) {
		if (!Array.isArray(entry) || !entry.every((part) => typeof part === 'string')) return null;
	}
	const after = typeof stored.after === 'string' && stored.after !== '' ? { after: stored.after } : {};
	const spent = typeof stored.requests === 'number' && Number.isInteger(stored.requests) && stored.requests >= 0 ? { requests: stored.requests } : {};
	// Kept by id key (shared/ids.ts); a state stored before ids were keyed so keeps its records.
	const byKey = Object.fromEntries(Object.entries(records as Record<string, string[]>).map(([id, entry]) => [idKey(id), entry]));
	const readAt = typeof stored.readAt === 'number' && Number.isFinite(stored.readAt) ? { readAt: stored.readAt } : {};
	const sweep = readSweep(stored.sweep);
	const fields = stringList(stored.fields);
	const how = fields && typeof stored.withValues === 'boolean' ? { fields, withValues: stored.withValues } : {};
	const carried = readCarried(stored.carried);
	return { key: stored.key, records: byKey, ...after, ...spent, ...readAt, ...(sweep === undefined ? {} : { sweep }), ...how, ...(carried ? { carried } : {}) };
}

const stringList = (value: unknown): string[] | undefined => (Array.isArray(value) && value.every((part) => typeof part === 'string') ? (value as string[]) : undefined);

function readCarried(value: unknown): CarriedWatch | undefined {
	if (!isObject(value) || typeof value.withValues !== 'boolean' || !isObject(value.records)) return undefined;
	const fields = stringList(value.fields);
	if (!fields) return undefined;
	const records: Record<string, string[]> = {};
	for (const [id, entry] of Object.entries(value.records as Record<string, unknown>)) {
		const parts = stringList(entry);
		if (!parts) return undefined;
		records[id] = parts;
	}
	return { fields, withValues: value.withValues, records };
}

function readSweep(value: unknown): WatchSweep | undefined {
	if (!isObject(value) || typeof value.seen !== 'string' || value.seen.length % 11 !== 0) return undefined;
	const requests = typeof value.requests === 'number' && Number.isInteger(value.requests) && value.requests >= 0 ? value.requests : 0;
	return { requests, seen: value.seen, ...(typeof value.after === 'string' && value.after !== '' ? { after: value.after } : {}) };
}
