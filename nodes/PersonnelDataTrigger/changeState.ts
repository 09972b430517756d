import { idKey } from '../shared/ids';
import { compareTimestamps, minusMs } from '../shared/timestamps';
import type { GroupCheck, HandOver, Resume } from './walkPosition';
import { readGroupCheck, readHandOver, readResume, wholeCount } from './walkPosition';
import type { WatchState } from './watchFields';
import { readWatchState } from './watchFields';

/**
 * What the trigger keeps between polls (n8n's static data): the newest change timestamp seen,
 * taken from the server's records, and the ids already emitted at exactly that timestamp, so the
 * inclusive `gte` filter neither loses nor repeats records that share it. With a look-back window
 * it also keeps the (id, timestamp) pairs emitted inside the window. Everything else is derived.
 *
 * Versioned: a state of another version is migrated on read (`readState`), never guessed at.
 * New fields go here, with their migration, so that later features extend one small object.
 */
export const STATE_VERSION = 3;
export type { GroupCheck, HandOver, Resume } from './walkPosition';

export interface ChangeState {
	version: typeof STATE_VERSION;
	/** Counts the polls that stored a state; the higher of two copies is the newer one (pollLease.ts). */
	revision: number;
	/**
	 * Which timestamps the watermark belongs to: resource and change field. Another stream starts
	 * afresh; filters, condition and window may change and the trigger resumes from the watermark.
	 */
	stream: string;
	watermark: string | null;
	/** The ids sent (or counted as seen) at exactly the watermark, the most recent last, at most `IDS_KEPT_MAX`. */
	idsAtWatermark: string[];
	/** How many records at the watermark were sent or counted as seen: beyond the ids, a large group is known by count (`idsComplete`). */
	knownAtWatermark: number;
	/**
	 * How many records the server listed at exactly the watermark (the filters applied, never the
	 * condition) when the trigger last knew them all; null: unknown. A poll that finds the same
	 * number there and nothing after it has nothing to read (one request however large the burst).
	 */
	countAtWatermark: number | null;
	/** The filters that count was taken with (a digest): other filters, other records. */
	countView: string;
	/** `${id}@${timestamp}` emitted within the look-back window before the watermark. */
	recent: string[];
	/**
	 * `recent` holds every pair emitted at or after this timestamp; null: none before the watermark
	 * (no window so far). A window made wider re-reads no further back than this, so nothing sent
	 * before the window existed is sent again.
	 */
	recentFrom: string | null;
	/** Options → Watch Fields: the watched fields of every record (watchFields.ts); null: not watching. */
	watch: WatchState | null;
	/**
	 * A page walk a poll stopped in (its time budget or Max Changes per Poll): the next poll goes on
	 * from the server's cursor instead of reading again what was sent. null: none.
	 */
	resume: Resume | null;
	/** A pending listing of the group at the watermark (groupCheck.ts), done before the walk goes on; null: none. */
	groupCheck: GroupCheck | null;
	/** The position before the last poll that handed changes over (handOver.ts); null: none to confirm. */
	handOver: HandOver | null;
	/** On Activation → Start From a Date: the date this state started from; null: activated at "now". */
	origin: string | null;
}

/** The most ids kept at one timestamp: a clock's same-second group and the page a walk stopped in (≥ 100). */
export const IDS_KEPT_MAX = 500;

/** Whether every record known at the watermark is among the kept ids (a small group). */
export const idsComplete = (state: ChangeState): boolean => state.idsAtWatermark.length >= state.knownAtWatermark;

/** Upper bound on remembered pairs: state must not grow with the history. */
export const RECENT_MAX = 20_000;

export interface Change {
	id: string;
	at: string;
}

const pairKey = (change: Change) => `${change.id}@${change.at}`;
/** A pair stored before ids were compared by key (shared/ids.ts), keyed. */
const keyedPair = (pair: string) => `${idKey(pair.slice(0, pair.indexOf('@')))}${pair.slice(pair.indexOf('@'))}`;
const atOf = (key: string) => key.slice(key.indexOf('@') + 1);

const laterOf = (a: string, b: string) => (compareTimestamps(a, b) >= 0 ? a : b);

function isStringArray(value: unknown): value is string[] {
	return Array.isArray(value) && value.every((entry) => typeof entry === 'string');
}

/**
 * The stored state in the current version, or undefined when there is none (or it cannot be
 * read: the trigger then starts afresh rather than trusting it). Version 1 (no `version` field)
 * kept `configKey`, a JSON of resource, field, filters and window.
 */
export function readState(stored: unknown): ChangeState | undefined {
	if (stored === null || typeof stored !== 'object') return undefined;
	const state = stored as Record<string, unknown>;
	const watermark = state.watermark;
	if (!(watermark === null || typeof watermark === 'string') || !isStringArray(state.idsAtWatermark) || !isStringArray(state.recent)) {
		return undefined;
	}
	// Version 2 is version 3 without `watch`.
	if (state.version === STATE_VERSION || state.version === 2) {
		if (typeof state.stream !== 'string') return undefined;
		const count = state.countAtWatermark;
		return {
			version: STATE_VERSION,
			revision: typeof state.revision === 'number' && Number.isInteger(state.revision) ? state.revision : 0,
			stream: state.stream,
			watermark,
			idsAtWatermark: state.idsAtWatermark.map(idKey),
			knownAtWatermark: Math.max(wholeCount(state.knownAtWatermark) ?? 0, state.idsAtWatermark.length),
			countAtWatermark: typeof count === 'number' && Number.isInteger(count) && count >= 0 ? count : null,
			countView: typeof state.countView === 'string' ? state.countView : '',
			recent: state.recent.map(keyedPair),
			recentFrom: typeof state.recentFrom === 'string' ? state.recentFrom : null,
			watch: readWatchState(state.watch),
			resume: readResume(state.resume),
			groupCheck: readGroupCheck(state.groupCheck),
			handOver: readHandOver(state.handOver),
			origin: typeof state.origin === 'string' ? state.origin : null,
		};
	}
	if (state.version === undefined && typeof state.configKey === 'string') {
		let old: { resource?: unknown; field?: unknown; lookbackMinutes?: unknown };
		try {
			old = JSON.parse(state.configKey) as typeof old;
		} catch {
			return undefined;
		}
		const lookbackMs = Number(old.lookbackMinutes ?? 0) * 60_000;
		return {
			version: STATE_VERSION,
			revision: 0,
			stream: streamOf(String(old.resource), String(old.field)),
			watermark,
			idsAtWatermark: state.idsAtWatermark.map(idKey),
			knownAtWatermark: state.idsAtWatermark.length,
			countAtWatermark: null,
			countView: '',
			recent: state.recent.map(keyedPair),
			recentFrom: watermark !== null && lookbackMs > 0 ? minusMs(watermark, lookbackMs) : null,
			watch: null,
			resume: null,
			groupCheck: null,
			handOver: null,
			origin: null,
		};
	}
	return undefined;
}

export function streamOf(resource: string, field: string): string {
	return `${resource}:${field}`;
}

/**
 * Decides, record by record during one poll, whether a change is new: not emitted by an earlier
 * poll (same id at the watermark, or the same pair inside the look-back window) nor earlier in
 * this poll. Sets are built once so a poll of thousands of changes stays linear.
 */
export function noveltyCheck(state: ChangeState): (change: Change) => boolean {
	const idsAtWatermark = new Set(state.idsAtWatermark);
	const seen = new Set(state.recent);
	return (change) => {
		const key = pairKey(change);
		if (seen.has(key)) return false;
		if (state.watermark !== null) {
			const order = compareTimestamps(change.at, state.watermark);
			if (order === 0 && idsAtWatermark.has(change.id)) return false;
		}
		seen.add(key);
		return true;
	};
}

/**
 * Where the next poll starts reading: the watermark, or earlier by the look-back window, but not
 * before what `recent` covers (there the trigger could not tell what it already sent).
 */
export function readFrom(state: ChangeState, lookbackMs: number): string | null {
	if (state.watermark === null) return null;
	if (lookbackMs <= 0) return state.watermark;
	return laterOf(minusMs(state.watermark, lookbackMs), state.recentFrom ?? state.watermark);
}

/** The newest of the watermark, the emitted changes and `horizon` (see `advance`). */
export function nextWatermark(state: ChangeState, changes: readonly Change[], horizon: string | null = null): string | null {
	let watermark = state.watermark;
	for (const change of changes) {
		if (watermark === null || compareTimestamps(change.at, watermark) > 0) watermark = change.at;
	}
	if (horizon !== null && (watermark === null || compareTimestamps(horizon, watermark) > 0)) watermark = horizon;
	return watermark;
}

export interface Advance {
	lookbackMs: number;
	/**
	 * The newest change timestamp the server had before the pages were read, whether or not a
	 * record at it was emitted: with a condition the server hides the records it rejects, so the
	 * emitted changes alone would leave the watermark behind them and every poll would read them again.
	 */
	horizon?: string | null;
	/** Records the server listed at the new watermark (see `ChangeState.countAtWatermark`). */
	countAtWatermark: number | null;
	countView: string;
	/** Where the next poll goes on; none: the reading got to the end. */
	resume?: Resume | null;
	/** A listing of the group at the watermark still to do; none: no such listing pending. */
	groupCheck?: GroupCheck | null;
}

/**
 * The state after a poll that read every change, or (with `resume`) every change up to where it
 * stopped; `changes` are the ones it emitted.
 */
export function advance(state: ChangeState, changes: readonly Change[], options: Advance): ChangeState {
	const { lookbackMs } = options;
	const watermark = nextWatermark(state, changes, options.horizon ?? null);
	const moved = watermark !== state.watermark;
	const atWatermark = changes.filter((change) => watermark !== null && compareTimestamps(change.at, watermark) === 0).map((c) => c.id);
	const keptIds = moved ? [] : state.idsAtWatermark;
	const known = new Set(keptIds);
	const added = [...new Set(atWatermark)].filter((id) => !known.has(id));
	// The most recent ids last: a walk that stops inside a page reads that page again and needs them.
	const idsAtWatermark = [...keptIds, ...added].slice(-IDS_KEPT_MAX);
	const knownAtWatermark = (moved ? 0 : state.knownAtWatermark) + added.length;

	let recent: string[] = [];
	let recentFrom: string | null = null;
	if (lookbackMs > 0 && watermark !== null) {
		// What was sent at the old watermark counts too (it is in `recent` unless no window was set).
		const atOld = state.watermark === null ? [] : state.idsAtWatermark.map((id) => pairKey({ id, at: state.watermark as string }));
		const windowStart = minusMs(watermark, lookbackMs);
		const coveredFrom = state.recentFrom ?? state.watermark;
		recentFrom = coveredFrom === null ? windowStart : laterOf(coveredFrom, windowStart);
		const kept = recentFrom;
		recent = [...new Set([...state.recent, ...atOld, ...changes.map(pairKey)])].filter((key) => compareTimestamps(atOf(key), kept) >= 0);
		if (recent.length > RECENT_MAX) {
			// Keep the newest pairs, and every pair at the oldest kept time, so `recentFrom` stays true.
			recent.sort((a, b) => compareTimestamps(atOf(a), atOf(b)));
			const oldestKept = atOf(recent[recent.length - RECENT_MAX]);
			recent = recent.filter((key) => compareTimestamps(atOf(key), oldestKept) >= 0);
			recentFrom = oldestKept;
		}
	}
	return {
		version: STATE_VERSION,
		revision: state.revision + 1,
		stream: state.stream,
		watermark,
		idsAtWatermark,
		knownAtWatermark,
		countAtWatermark: watermark === null ? 0 : options.countAtWatermark,
		countView: options.countView,
		recent,
		recentFrom,
		watch: state.watch,
		resume: options.resume ?? null,
		groupCheck: options.groupCheck ?? null,
		handOver: null,
		origin: state.origin,
	};
}

/**
 * The state at activation: everything up to the newest existing change counts as already seen,
 * so nothing old is emitted. `existing` are the records at the newest timestamp and, with a
 * look-back window, those inside the window before it.
 */
export function initialState(
	revision: number,
	stream: string,
	newest: string | null,
	existing: readonly Change[],
	options: Omit<Advance, 'horizon'> & { origin?: string | null },
): ChangeState {
	const start: ChangeState = {
		version: STATE_VERSION,
		revision,
		stream,
		watermark: newest,
		idsAtWatermark: [],
		knownAtWatermark: 0,
		countAtWatermark: null,
		countView: options.countView,
		recent: [],
		recentFrom: newest !== null && options.lookbackMs > 0 ? minusMs(newest, options.lookbackMs) : null,
		watch: null,
		resume: null,
		groupCheck: null,
		handOver: null,
		origin: options.origin ?? null,
	};
	return newest === null ? { ...start, revision: revision + 1, countAtWatermark: 0 } : advance(start, existing, options);
}
