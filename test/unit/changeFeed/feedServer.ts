/**
 * An in-process server for the change feed's model-based test: the list endpoint's behaviour the
 * spec allows, reduced to what the feed depends on. Records carry a change timestamp kept at the
 * server's precision (seconds, milliseconds or microseconds), ties come in a new order on every
 * walk (a keyset cursor over the timestamp and a per-walk rank), a version may become visible
 * later than its timestamp (a late commit), cursors may expire, records change between
 * pages. Every version ever committed is kept for the reference ledger.
 */
import { createHash } from 'node:crypto';

import type { FeedPage, FeedRead, FeedRecord } from '../../../nodes/PersonnelDataTrigger/feedState';

export type Precision = 's' | 'ms' | 'us';

export interface ServerProfile {
	precision: Precision;
	pageSize: number;
	/** A cursor older than this (server clock, ms) is refused as expired; undefined: cursors never expire. */
	cursorLifeMs?: number;
}

export interface Version extends FeedRecord {
	/** The record's department: what the test's filters select on. */
	dept: string;
	/** The server clock (ms) at which it became visible. */
	committedAt: number;
	/** How much later than its timestamp it became visible (ms). */
	lateMs: number;
}

export class CursorRefused extends Error {}

const rankOf = (seed: string, id: string) => createHash('sha256').update(`${seed}:${id}`).digest('hex').slice(0, 12);

/** An ISO timestamp at the profile's precision; `us` adds a microsecond digit group from `extra`. */
export function stamp(ms: number, precision: Precision, extra = 0): string {
	const iso = new Date(ms).toISOString();
	if (precision === 's') return `${iso.slice(0, 19)}Z`;
	if (precision === 'ms') return iso;
	return `${iso.slice(0, 23)}${String(extra % 1000).padStart(3, '0')}Z`;
}

/** Sorts like the instant, for the timestamps `stamp` writes (one precision per server). */
const sortKey = (at: string) => at.replace('Z', '').padEnd(26, '0');

export class FeedServer {
	clock = Date.parse('2026-03-01T08:00:00Z');
	/** The current version of each record; removed when deleted for good. */
	readonly current = new Map<string, Version>();
	readonly versions: Version[] = [];
	requests = 0;
	private walkCount = 0;
	private micro = 0;
	/** Bumped on every change: a walk's sorted listing is reused until the records change (bulk imports of 40,000). */
	private changes = 0;
	private listing: { of: string; rows: Array<{ version: Version; key: string }> } | null = null;

	constructor(readonly profile: ServerProfile) {}

	/** A new version of `id` (created or changed), visible now, its timestamp `lateMs` in the past. */
	commit(id: string, dept: string, lateMs = 0): Version {
		const at = stamp(this.clock - lateMs, this.profile.precision, this.micro++);
		const version: Version = { id, at, content: `${id}#${this.versions.length}`, dept, committedAt: this.clock, lateMs };
		this.current.set(id, version);
		this.versions.push(version);
		this.changes++;
		return version;
	}

	remove(id: string): void {
		this.current.delete(id);
		this.changes++;
	}

	advance(ms: number): void {
		this.clock += ms;
	}

	/** The newest timestamp among the records of the filter (the activation's probe). */
	newest(depts: ReadonlySet<string>): string | null {
		let newest: string | null = null;
		for (const version of this.current.values()) {
			if (depts.has(version.dept) && (newest === null || sortKey(version.at) > sortKey(newest))) newest = version.at;
		}
		return newest;
	}

	/** One page: records of `depts` with timestamp ≥ read.from, oldest first, after the cursor. */
	list(read: FeedRead, depts: ReadonlySet<string>): FeedPage<Version> {
		this.requests++;
		let seed: string;
		let afterKey: string | null = null;
		if (read.after !== undefined) {
			const [cursorSeed, key, issuedAt] = JSON.parse(read.after) as [string, string, number];
			const life = this.profile.cursorLifeMs;
			if (life !== undefined && this.clock - issuedAt > life) throw new CursorRefused('410 cursor expired');
			seed = cursorSeed;
			afterKey = key;
		} else {
			seed = `walk${this.walkCount++}`;
		}
		const fromKey = read.from === null ? null : sortKey(read.from);
		const rows = this.sorted(seed, fromKey, depts);
		// The first row after the cursor (binary search: keys are unique and sorted).
		let start = 0;
		if (afterKey !== null) {
			let high = rows.length;
			while (start < high) {
				const middle = (start + high) >> 1;
				if (rows[middle].key <= afterKey) start = middle + 1;
				else high = middle;
			}
		}
		const page = rows.slice(start, start + this.profile.pageSize);
		const hasNextPage = rows.length > start + page.length;
		const last = page.at(-1);
		return {
			records: page.map((row) => row.version),
			hasNextPage,
			...(hasNextPage && last ? { endCursor: JSON.stringify([seed, last.key, this.clock]) } : {}),
		};
	}

	/** Records of `depts` with timestamp ≥ fromKey in the walk's order (timestamp, then a per-walk rank of the id). */
	private sorted(seed: string, fromKey: string | null, depts: ReadonlySet<string>): Array<{ version: Version; key: string }> {
		const of = JSON.stringify([seed, fromKey, [...depts].sort(), this.changes]);
		if (this.listing?.of === of) return this.listing.rows;
		const rows = [...this.current.values()]
			.filter((version) => depts.has(version.dept) && (fromKey === null || sortKey(version.at) >= fromKey))
			.map((version) => ({ version, key: `${sortKey(version.at)}|${rankOf(seed, version.id)}` }))
			.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
		this.listing = { of, rows };
		return rows;
	}
}
