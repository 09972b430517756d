import { createHash } from 'node:crypto';

import { idKey } from '../shared/ids';
import { timestampKey } from '../shared/timestamps';
import type { FeedRecord, FeedState } from './feedState';
import { MEMORY_MAX } from './feedState';

/**
 * The change feed's memory (changeFeed.ts): the versions sent inside the settle window, 28
 * characters each in one string, and the keys that name a version and an event.
 */

const TIME_CHARS = 12;
const ID_KEY_CHARS = 11;
const CONTENT_KEY_CHARS = 5;
const ENTRY_CHARS = TIME_CHARS + ID_KEY_CHARS + CONTENT_KEY_CHARS;
/** The length of one memory entry (triggerState.ts checks a stored memory with it). */
export const MEMORY_ENTRY_CHARS = ENTRY_CHARS;

const digest = (text: string) => createHash('sha256').update(text).digest('base64url');

/** Content key of a version ('' in the memory: taken in another view, compared by id and time alone). */
export const contentKey = (content: string): string => digest(content).slice(0, CONTENT_KEY_CHARS);
export const idKeyOf = (id: string): string => digest(idKey(id)).slice(0, ID_KEY_CHARS);

/** The event key of a version: the same for the same change, whichever poll sends it. */
export function eventKey(record: FeedRecord): string {
	return `${idKeyOf(record.id)}${contentKey(record.content)}${timestampKey(record.at)}`;
}

const OTHER_VIEW = '~~~~~';
/** Characters of a time code at the start of every entry. */
export { TIME_CHARS };

/** A timestamp as 12 base-36 digits of nanoseconds since 1970: sorts like the instant, in fewer characters. */
export function timeCode(at: string): string {
	const key = timestampKey(at);
	const seconds = Date.parse(`${key.slice(0, 19)}Z`) / 1000;
	const fraction = key.length > 20 ? key.slice(20, 29).padEnd(9, '0') : '000000000';
	if (!Number.isFinite(seconds) || seconds < 0) return '0'.repeat(TIME_CHARS);
	return (BigInt(seconds) * 1_000_000_000n + BigInt(fraction)).toString(36).padStart(TIME_CHARS, '0');
}

/** The ISO timestamp of a time code (nanoseconds kept). */
export function timeOf(code: string): string {
	const nanos = [...code].reduce((sum, digit) => sum * 36n + BigInt(parseInt(digit, 36)), 0n);
	const seconds = Number(nanos / 1_000_000_000n);
	const fraction = String(nanos % 1_000_000_000n).padStart(9, '0');
	return `${new Date(seconds * 1000).toISOString().slice(0, 19)}.${fraction}Z`;
}

/** The memory as a map: entry key (time code + id key) → content key ('': compared by id and time alone). */
export function loadMemory(state: FeedState, sameView: boolean): Map<string, string> {
	const memory = new Map<string, string>();
	const entries = state.memory;
	for (let index = 0; index + ENTRY_CHARS <= entries.length; index += ENTRY_CHARS) {
		const key = entries.slice(index, index + TIME_CHARS + ID_KEY_CHARS);
		const content = entries.slice(index + TIME_CHARS + ID_KEY_CHARS, index + ENTRY_CHARS);
		memory.set(key, sameView && content !== OTHER_VIEW ? content : '');
	}
	return memory;
}

/** The entries at or after `from`, oldest first. */
export function storeMemory(memory: Map<string, string>, from: string | null): string[] {
	const fromCode = from === null ? null : timeCode(from);
	const kept: string[] = [];
	for (const [key, content] of memory) {
		if (fromCode !== null && key.slice(0, TIME_CHARS) < fromCode) continue;
		kept.push(`${key}${content === '' ? OTHER_VIEW : content}`);
	}
	return kept.sort();
}

/**
 * The stored entries within MEMORY_MAX: beyond it the oldest timestamps are dropped whole, and
 * `earlyAt` says from when on the memory is kept (null: nothing dropped).
 */
export function boundMemory(memory: string[]): { memory: string[]; earlyAt: string | null } {
	if (memory.length <= MEMORY_MAX) return { memory, earlyAt: null };
	const early = memory[memory.length - MEMORY_MAX].slice(0, TIME_CHARS);
	return { memory: memory.filter((entry) => entry.slice(0, TIME_CHARS) >= early), earlyAt: timeOf(early) };
}
