/**
 * An in-process server for the change feed's model-based test: the list endpoint's behaviour the
 * spec allows, reduced to what the feed depends on. Records carry a change timestamp kept at the
 * server's precision (seconds, milliseconds or microseconds), ties come in a new order on every
 * walk (a keyset cursor over the timestamp and a per-walk rank), a version may become visible
 * later than its timestamp (a late commit), cursors may expire, records change between
 * pages. Every version ever committed is kept for the reference ledger.
 */
import type { FeedPage, FeedRead, FeedRecord } from '../../../nodes/PersonnelDataTrigger/feedState';

export type Precision = 's' | 'ms' | 'us';

export interface ServerProfile {
	precision: Precision;
	pageSize: number;
	/** A cursor older than this (server clock, ms) is refused as expired; undefined: cursors never expire. */
	cursorLifeMs?: number;
	/** How far the server's Date header runs ahead of the clock it writes timestamps with; undefined: no Date header. */
	dateOffsetMs?: number;
	/** How long each list request takes, server side (a slow server: a poll as long as its budget). */
	pageMs?: number;
	/**
	 * What `end_cursor` is: a keyset (the last record's place in the order: a record that changes
	 * moves nothing), or a position (how many records came before: one that changes during a walk
	 * moves to the end, and the records after its old place move one up, so the next page skips one).
	 */
	cursor?: 'keyset' | 'position';
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

/** FNV-1a over the text's UTF-16 units: a 32-bit hash, no cryptography (the model test hashes millions). */
function hash32(text: string): number {
	let hash = 0x811c9dc5;
	for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
	return hash >>> 0;
}

/** MurmurHash3's finalizer: every bit of the input moves every bit of the output. */
function mix32(value: number): number {
	let h = value;
	h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
	h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
	return (h ^ (h >>> 16)) >>> 0;
}

/** The walk's rank of a record among those sharing a timestamp: a new order for each walk's seed. */
const rankOf = (seedHash: number, idHash: number): string => mix32(seedHash ^ idHash).toString(16).padStart(8, '0');

/** An ISO timestamp at the profile's precision; `us` adds a microsecond digit group from `extra`. */
export function stamp(ms: number, precision: Precision, extra = 0): string {
	const iso = new Date(ms).toISOString();
	if (precision === 's') return `${iso.slice(0, 19)}Z`;
	if (precision === 'ms') return iso;
	return `${iso.slice(0, 23)}${String(extra % 1000).padStart(3, '0')}Z`;
}

/** Above this many records, walks take one of LARGE_LISTING_ORDERS orders of ties in turn. */
const LARGE_LISTING = 1_000;
const LARGE_LISTING_ORDERS = 4;

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
	private readonly listings = new Map<string, Array<{ version: Version; key: string }>>();
	private listingsOf = -1;

	/** `n8nOffsetMs`: how far n8n's clock runs ahead of the server's record clock. */
	constructor(
		readonly profile: ServerProfile,
		n8nOffsetMs = 0,
	) {
		this.dateOffset = profile.dateOffsetMs;
		this.n8nOffset = n8nOffsetMs;
	}

	/**
	 * The server's Date clock (its HTTP front): the record clock off by `dateOffsetMs` (another
	 * machine's clock), stepped by `stepClock`. undefined: the server sends no Date header.
	 */
	private dateOffset: number | undefined;
	/** n8n's clock, off from the server's record clock by this (stepped by `stepClock`). */
	private n8nOffset = 0;
	/** Which clock stepped forward since the last answer (the feed assumes not both: docs/trigger.md). */
	private forwardSinceAnswer: 'date' | 'n8n' | undefined;

	/**
	 * One clock steps (an NTP correction on the server's front, or on n8n's machine), forward or
	 * back. A step forward of one clock after the other's, with no answer between them, is not
	 * made: the feed assumes the two never both step forward between two answers. Returns whether
	 * the step was made.
	 */
	stepClock(clock: 'date' | 'n8n', ms: number): boolean {
		if (ms > 0 && this.forwardSinceAnswer !== undefined && this.forwardSinceAnswer !== clock) return false;
		if (clock === 'date') {
			if (this.dateOffset === undefined) return false;
			this.dateOffset += ms;
		} else this.n8nOffset += ms;
		if (ms > 0) this.forwardSinceAnswer = clock;
		return true;
	}

	/** When this server took and answered a request taking `ms` (the Date header's view of it), and n8n's clock around it. */
	private serverTime(ms: number): FeedPage['serverTime'] {
		this.forwardSinceAnswer = undefined;
		if (this.dateOffset === undefined) return undefined;
		const answeredAt = this.clock + ms + this.dateOffset;
		const date = Math.floor(answeredAt / 1000) * 1000;
		const sentAt = this.clock + this.n8nOffset;
		return { atLeast: date - ms, atMost: date + 1000, sentAt, receivedAt: sentAt + ms };
	}

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
		let position: number | null = null;
		if (read.after !== undefined) {
			const [cursorSeed, key, issuedAt, at] = JSON.parse(read.after) as [string, string, number, number];
			const life = this.profile.cursorLifeMs;
			if (life !== undefined && this.clock - issuedAt > life) throw new CursorRefused('410 cursor expired');
			seed = cursorSeed;
			afterKey = key;
			position = at;
		} else {
			// A new order of ties for every walk; over many records, one of a few orders in turn
			// (consecutive walks still differ), so that a walk reuses a sorted listing instead of
			// sorting tens of thousands of records again.
			const walk = this.walkCount++;
			seed = this.current.size > LARGE_LISTING ? `order${walk % LARGE_LISTING_ORDERS}` : `walk${walk}`;
		}
		const rows = this.sorted(seed, depts);
		// The first row at or after `from`, then after the cursor (binary searches: keys are unique
		// and sorted, and begin with the fixed-width timestamp key).
		const firstAfter = (from: number, inclusive: boolean, key: string): number => {
			let low = from;
			let high = rows.length;
			while (low < high) {
				const middle = (low + high) >> 1;
				if (inclusive ? rows[middle].key < key : rows[middle].key <= key) low = middle + 1;
				else high = middle;
			}
			return low;
		};
		let start = read.from === null ? 0 : firstAfter(0, true, sortKey(read.from));
		if (afterKey !== null) start = this.profile.cursor === 'position' && position !== null ? start + position : firstAfter(start, false, afterKey);
		const walkStart = read.from === null ? 0 : firstAfter(0, true, sortKey(read.from));
		const page = rows.slice(start, start + this.profile.pageSize);
		const hasNextPage = rows.length > start + page.length;
		const last = page.at(-1);
		// The listing is read as the request arrives; the answer leaves `pageMs` later.
		const took = this.profile.pageMs ?? 0;
		const serverTime = this.serverTime(took);
		this.clock += took;
		return {
			records: page.map((row) => row.version),
			hasNextPage,
			...(hasNextPage && last ? { endCursor: JSON.stringify([seed, last.key, this.clock, start + page.length - walkStart]) } : {}),
			...(serverTime === undefined ? {} : { serverTime }),
		};
	}

	private readonly sortKeys = new WeakMap<Version, string>();
	private readonly idHashes = new Map<string, number>();

	private sortKeyOf(version: Version): string {
		let key = this.sortKeys.get(version);
		if (key === undefined) this.sortKeys.set(version, (key = sortKey(version.at)));
		return key;
	}

	private idHash(id: string): number {
		let hash = this.idHashes.get(id);
		if (hash === undefined) this.idHashes.set(id, (hash = hash32(id)));
		return hash;
	}

	/** Records of `depts` in the walk's order (timestamp, then a per-walk rank of the id), kept until the records change. */
	private sorted(seed: string, depts: ReadonlySet<string>): Array<{ version: Version; key: string }> {
		if (this.listingsOf !== this.changes) {
			this.listings.clear();
			this.listingsOf = this.changes;
		}
		const of = `${seed}|${[...depts].sort().join(',')}`;
		const cached = this.listings.get(of);
		if (cached) return cached;
		const seedHash = hash32(seed);
		const rows: Array<{ version: Version; key: string }> = [];
		for (const version of this.current.values()) {
			const at = this.sortKeyOf(version);
			if (!depts.has(version.dept)) continue;
			// The id last: keys stay unique (the cursor's binary search needs it) whatever the ranks.
			rows.push({ version, key: `${at}|${rankOf(seedHash, this.idHash(version.id))}|${version.id}` });
		}
		rows.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
		// Small listings come with a new seed each walk: only the last few are worth keeping.
		if (this.listings.size >= 2 * LARGE_LISTING_ORDERS) this.listings.clear();
		this.listings.set(of, rows);
		return rows;
	}
}
