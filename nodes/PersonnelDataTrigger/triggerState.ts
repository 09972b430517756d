import { MEMORY_ENTRY_CHARS } from './feedMemory';
import type { FeedState, Pass, Unconfirmed } from './feedState';
import { FEED_VERSION } from './feedState';
import type { WatchState } from './watchFields';
import { readWatchState } from './watchFields';

/**
 * What the trigger keeps between polls (n8n's static data): the change feed's state
 * (changeFeed.ts: the model), Watch Fields' state, and what the feed belongs to. Versioned: a
 * stored state that cannot be read is never guessed at; an older version keeps its position.
 */
export const STATE_VERSION = 4;

export interface TriggerState {
	version: typeof STATE_VERSION;
	/** Counts the polls that stored a state; the higher of two copies is the newer one (pollLease.ts). */
	revision: number;
	/** Resource and change field: another stream starts afresh (filters, condition and fields may change). */
	stream: string;
	/** On Activation → Start From a Date: the date this state started from; null: activated at "now". */
	origin: string | null;
	feed: FeedState;
	/** Options → Watch Fields (watchFields.ts); null: not watching. */
	watch: WatchState | null;
}

/** A state stored before the change feed (versions 1 to 3): only its position carries over. */
export interface LegacyPosition {
	legacy: true;
	revision: number;
	stream: string;
	origin: string | null;
	/** The newest change it had sent (its watermark); null: none. */
	watermark: string | null;
	watch: WatchState | null;
}

export function streamOf(resource: string, field: string): string {
	return `${resource}:${field}`;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isWhole = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 0;
const isTime = (value: unknown): value is string => typeof value === 'string' && value !== '';
const isEpoch = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const timeOrNull = (value: unknown): value is string | null => value === null || isTime(value);

function readPass(value: unknown): Pass | null | undefined {
	if (value === null) return null;
	if (!isObject(value)) return undefined;
	const { startedAt, firstDate, firstLocal, view, from, after, reached, requests, refusals, depth, deepest, learnUpTo, heldAt } = value;
	if (!timeOrNull(startedAt) || typeof view !== 'string' || !timeOrNull(from) || !timeOrNull(reached)) return undefined;
	if (!(after === undefined || isTime(after)) || !isWhole(requests) || !isWhole(refusals) || !(learnUpTo === undefined || isTime(learnUpTo)) || !(heldAt === undefined || isTime(heldAt))) return undefined;
	return {
		startedAt,
		view,
		from,
		reached,
		requests,
		refusals,
		depth: isWhole(depth) ? depth : 0,
		deepest: isWhole(deepest) ? deepest : 0,
		...(after === undefined ? {} : { after }),
		...(learnUpTo === undefined ? {} : { learnUpTo }),
		...(heldAt === undefined ? {} : { heldAt }),
		...(isEpoch(firstDate) ? { firstDate } : {}),
		...(isEpoch(firstLocal) ? { firstLocal } : {}),
	};
}

function readUnconfirmed(value: unknown): Unconfirmed | null | undefined {
	if (value === null) return null;
	if (!isObject(value) || !timeOrNull(value.settled) || !Array.isArray(value.entries)) return undefined;
	const pass = readPass(value.pass);
	const entries = value.entries.filter(
		(entry): entry is [string, string | null] => Array.isArray(entry) && entry.length === 2 && typeof entry[0] === 'string' && (entry[1] === null || typeof entry[1] === 'string'),
	);
	if (pass === undefined || entries.length !== value.entries.length) return undefined;
	return { settled: value.settled, pass, entries, ...(isTime(value.forgottenBefore) ? { forgottenBefore: value.forgottenBefore } : {}) };
}

/** The feed's state as stored, checked field by field; undefined when any part cannot be read. */
export function readFeedState(value: unknown): FeedState | undefined {
	if (!isObject(value) || value.version !== FEED_VERSION || !timeOrNull(value.settled) || typeof value.memoryView !== 'string') return undefined;
	if (typeof value.memory !== 'string' || value.memory.length % MEMORY_ENTRY_CHARS !== 0) return undefined;
	const pass = readPass(value.pass);
	const unconfirmed = readUnconfirmed(value.unconfirmed);
	const repeat = Array.isArray(value.repeat) && value.repeat.every((key) => typeof key === 'string') ? (value.repeat as string[]) : undefined;
	// `seenBy`: the server's Date clock; `seenLocal`: n8n's; `local` (n8n's clock as earlier versions stored it) is dropped.
	const clock =
		value.clock === null
			? null
			: isObject(value.clock) && isTime(value.clock.at)
				? {
						at: value.clock.at,
						...(isEpoch(value.clock.seenBy) ? { seenBy: value.clock.seenBy } : {}),
						...(isEpoch(value.clock.seenBy) && isEpoch(value.clock.seenLocal) ? { seenLocal: value.clock.seenLocal } : {}),
					}
				: undefined;
	if (pass === undefined || unconfirmed === undefined || repeat === undefined || clock === undefined) return undefined;
	return {
		version: FEED_VERSION,
		settled: value.settled,
		memory: value.memory,
		memoryView: value.memoryView,
		pass,
		unconfirmed,
		repeat,
		...(isTime(value.repeatBefore) ? { repeatBefore: value.repeatBefore } : {}),
		clock,
	};
}

/**
 * The stored state: the current version, a legacy position (versions 2 and 3, before the change
 * feed), or undefined when there is none or it cannot be read (the trigger then starts afresh).
 */
export function readState(stored: unknown): TriggerState | LegacyPosition | undefined {
	if (!isObject(stored)) return undefined;
	if (stored.version === undefined && typeof stored.configKey === 'string' && timeOrNull(stored.watermark)) {
		// Version 1 kept `configKey`, a JSON of resource, field, filters and window.
		let old: { resource?: unknown; field?: unknown };
		try {
			old = JSON.parse(stored.configKey) as typeof old;
		} catch {
			return undefined;
		}
		return { legacy: true, revision: 0, stream: streamOf(String(old.resource), String(old.field)), origin: null, watermark: stored.watermark, watch: null };
	}
	if (typeof stored.stream !== 'string') return undefined;
	const revision = isWhole(stored.revision) ? stored.revision : 0;
	const origin = isTime(stored.origin) ? stored.origin : null;
	const watch = readWatchState(stored.watch);
	if (stored.version === STATE_VERSION) {
		const feed = readFeedState(stored.feed);
		return feed === undefined ? undefined : { version: STATE_VERSION, revision, stream: stored.stream, origin, feed, watch };
	}
	if ((stored.version === 2 || stored.version === 3) && timeOrNull(stored.watermark)) {
		return { legacy: true, revision, stream: stored.stream, origin, watermark: stored.watermark, watch };
	}
	return undefined;
}
