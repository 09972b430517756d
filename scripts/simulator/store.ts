import type { ResourceName, SimRecord } from './types';

/**
 * How many cached views a collection keeps; past it, the least recently used goes. Not all at once:
 * a listing read in many ranges side by side asks for one filtered view per range, and dropping
 * every view would drop the sorted one they are all filtered from (a sort of every record).
 */
export const MAX_CACHED_VIEWS = 64;

/**
 * One collection of records, kept sorted by id so that the default order needs no sorting and
 * cursors can be found by binary search. Views (filtered and ordered copies) are cached per key and
 * dropped on every mutation through `version`.
 */
export class Collection {
	private readonly byId = new Map<string, SimRecord>();
	private sorted: SimRecord[] = [];
	private readonly views = new Map<string, readonly SimRecord[]>();
	/** Records whose seed index % 10 === 3: forbidden for the limited role. */
	readonly restricted = new Set<string>();
	/** Records that exist but are not yet visible ("replication lag"), see Simulator.createLate. */
	readonly hidden = new Set<string>();
	/** Position of the next record, used for the restricted rule. */
	nextIndex = 0;
	version = 0;

	constructor(readonly name: ResourceName) {}

	get size(): number {
		return this.sorted.length;
	}

	get(id: string): SimRecord | undefined {
		return this.byId.get(id);
	}

	/** All records, sorted by id, including hidden ones. */
	all(): readonly SimRecord[] {
		return this.sorted;
	}

	/** Loads many records at once (seeding): one sort instead of one splice per record. */
	load(records: readonly SimRecord[]): void {
		for (const record of records) {
			this.byId.set(record.id, record);
			if (this.nextIndex++ % 10 === 3) this.restricted.add(record.id);
		}
		// Sorting the id strings natively is much faster than sorting records with a comparator.
		this.sorted = [...this.byId.keys()].sort().map((id) => this.byId.get(id) as SimRecord);
		this.changed();
	}

	/** Inserts a new record; by default it is restricted when its index % 10 === 3. */
	insert(record: SimRecord, restricted?: boolean): void {
		const index = this.nextIndex++;
		if (restricted ?? index % 10 === 3) this.restricted.add(record.id);
		const existing = this.byId.get(record.id);
		this.byId.set(record.id, record);
		if (existing) {
			this.sorted[this.position(record.id)] = record;
		} else {
			this.sorted.splice(this.position(record.id), 0, record);
		}
		this.changed();
	}

	/** Replaces a stored record with a new object of the same id (records are treated as immutable). */
	replace(record: SimRecord): void {
		if (!this.byId.has(record.id)) throw new Error(`no ${this.name} record ${record.id}`);
		this.byId.set(record.id, record);
		this.sorted[this.position(record.id)] = record;
		this.changed();
	}

	remove(id: string): boolean {
		if (!this.byId.delete(id)) return false;
		this.sorted.splice(this.position(id), 1);
		this.restricted.delete(id);
		this.hidden.delete(id);
		this.changed();
		return true;
	}

	clear(): void {
		this.byId.clear();
		this.sorted = [];
		this.restricted.clear();
		this.hidden.clear();
		this.nextIndex = 0;
		this.changed();
	}

	/** Marks that visibility changed (hidden or revealed records) without changing records. */
	changed(): void {
		this.version++;
		this.views.clear();
	}

	/** Returns the cached view for `key`, computing it once per version. */
	view(key: string, compute: () => readonly SimRecord[]): readonly SimRecord[] {
		const cached = this.views.get(key);
		if (cached) {
			// A Map keeps insertion order: re-inserted, the view is the most recently used.
			this.views.delete(key);
			this.views.set(key, cached);
			return cached;
		}
		const fresh = compute();
		// After compute: a view computed from another (filtered from the sorted one) must not evict it first.
		while (this.views.size >= MAX_CACHED_VIEWS) this.views.delete(this.views.keys().next().value as string);
		this.views.set(key, fresh);
		return fresh;
	}

	/** Index of the first record whose id is >= `id`. */
	private position(id: string): number {
		let lo = 0;
		let hi = this.sorted.length;
		while (lo < hi) {
			const mid = (lo + hi) >>> 1;
			if (this.sorted[mid].id < id) lo = mid + 1;
			else hi = mid;
		}
		return lo;
	}
}
