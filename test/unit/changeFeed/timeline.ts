/**
 * Runs one timeline of the change feed against the in-process server (feedServer.ts) the way n8n
 * drives a polling trigger, and keeps the reference ledger: every version committed, every item
 * n8n ran, what each restart or crash excuses. `check()` states the feed's promise.
 */
import { FeedPoll } from '../../../nodes/PersonnelDataTrigger/changeFeed';
import type { RangeRead } from '../../../nodes/PersonnelDataTrigger/feedRanges';
import { FeedRanges } from '../../../nodes/PersonnelDataTrigger/feedRanges';
import { MEMORY_ENTRY_CHARS } from '../../../nodes/PersonnelDataTrigger/feedMemory';
import type { Delivery, FeedOptions, FeedState } from '../../../nodes/PersonnelDataTrigger/feedState';
import { activationState, FeedError, MEMORY_MAX } from '../../../nodes/PersonnelDataTrigger/feedState';
import type { ServerProfile, Version } from './feedServer';
import { CursorRefused, FeedServer } from './feedServer';

/** What happens to a poll's result: n8n takes it, or stops around its hand-over. */
export type Fate =
	| 'taken'
	/** n8n restarted between polls (an upgrade): state and execution both saved. */
	| 'planned'
	/** n8n died after saving the state, before the execution: the items are lost. */
	| 'crashLose'
	/** n8n died after starting the execution, before saving the state. */
	| 'crashRepeat'
	/** The durable scheduler abandoned the poll (timeout): nothing is kept. */
	| 'abandoned';

export type Step =
	| { kind: 'commit'; record: number; dept: number; lateMs: number }
	| { kind: 'burst'; size: number; dept: number }
	| { kind: 'remove'; record: number }
	| { kind: 'advance'; ms: number }
	/** The server's Date clock or n8n's steps (an NTP correction), forward or back. */
	| { kind: 'stepClock'; clock: 'date' | 'n8n'; ms: number }
	| { kind: 'edit'; depts: number[] }
	| { kind: 'poll'; fate: Fate; during: Array<{ record: number; dept: number }> };

export interface Timeline {
	profile: ServerProfile;
	settleMs: number;
	maxChanges?: number;
	pagesPerPoll: number;
	/**
	 * Reads a poll keeps out at once (feedRanges.ts): 1 reads one page after another; more reads
	 * the pass in ranges side by side once its first page is read, the answers coming back in an
	 * order drawn from `order`.
	 */
	inFlight: number;
	order: number;
	/** Some reads fail (a server error after the transport's retries): the first range's fails the poll. */
	flaky: boolean;
	atLeastOnce: boolean;
	initial: number;
	steps: Step[];
	/** How far n8n's clock is ahead of the server's (negative: behind): the feed never reads it, so any value. */
	skewMs: number;
}

interface Executed {
	key: string;
	possiblyRepeated: boolean;
	version: Version;
}

const DEPTS = ['a', 'b', 'c'];

export class TimelineRun {
	readonly server: FeedServer;
	private depts = new Set(DEPTS);
	/** The filter of every edit, in order. */
	private readonly edits: Array<Set<string>> = [];
	/** Per version: whether it matched the filter in force when committed, and how many edits came before it. */
	private readonly atCommit = new Map<string, { matched: boolean; edits: number }>();
	private stored: FeedState;
	private storedBy = 0;
	private process = 0;
	readonly executed: Executed[] = [];
	private readonly dupExcused = new Set<string>();
	private readonly lostExcused = new Set<string>();
	/**
	 * The server's clock at the activation's probe: every change committed after it is owed (one
	 * committed during the activation's pass too, whatever options are edited meanwhile), but a
	 * late one stamped at or before the probe's newest time, which the activation takes for a
	 * record that existed.
	 */
	activatedAt = Number.POSITIVE_INFINITY;
	private activationNewest: string | null = null;
	/** How far the clocks were set back in all: a quiet feed may see no time pass until they have caught up. */
	private clockSetBackMs = 0;
	polls = 0;
	readonly failures: string[] = [];
	private nextId = 0;
	largestMemory = 0;
	/** Ranges cut and handed over whole in this timeline's polls (the test checks it exercised them). */
	rangesCut = 0;
	rangesHandedOver = 0;
	/** Draws the order answers come back in. */
	private turn = 0;

	constructor(private readonly timeline: Timeline) {
		this.server = new FeedServer(timeline.profile, timeline.skewMs);
		for (let index = 0; index < timeline.initial; index++) {
			this.commit(this.idOf(index), DEPTS[index % DEPTS.length]);
			if (index % 7 === 0) this.server.advance(400);
		}
		this.server.advance(1000);
		this.activationNewest = this.server.newest(this.depts);
		this.activatedAt = this.server.clock;
		this.stored = activationState(this.activationNewest, { settleMs: timeline.settleMs, view: this.view(), contentView: 'all fields' });
	}

	/** A change on the server, noted with the filter in force then (a later, wider filter does not make it an event). */
	private commit(id: string, dept: string, lateMs = 0): void {
		const version = this.server.commit(id, dept, lateMs);
		this.atCommit.set(versionKey(version), { matched: this.depts.has(dept), edits: this.edits.length });
	}

	private idOf(index: number): string {
		return `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`;
	}

	private view(): string {
		return [...this.depts].sort().join(',');
	}

	private options(): FeedOptions {
		const { settleMs, maxChanges, atLeastOnce } = this.timeline;
		return { settleMs, maxChanges, maxRequests: 1_000_000, view: this.view(), contentView: 'all fields', atLeastOnce };
	}

	apply(step: Step): void {
		switch (step.kind) {
			case 'commit':
				this.commit(this.idOf(step.record), DEPTS[step.dept], step.lateMs);
				break;
			case 'burst':
				// A bulk import: many new records at one clock reading.
				for (let index = 0; index < step.size; index++) this.commit(this.idOf(1000 + this.nextId++), DEPTS[step.dept]);
				break;
			case 'remove':
				this.server.remove(this.idOf(step.record));
				break;
			case 'advance':
				this.server.advance(step.ms);
				break;
			case 'stepClock':
				if (this.server.stepClock(step.clock, step.ms)) this.clockSetBackMs += Math.max(0, -step.ms);
				break;
			case 'edit':
				this.depts = new Set(step.depts.map((index) => DEPTS[index]));
				this.edits.push(new Set(this.depts));
				break;
			case 'poll':
				this.poll(step.fate, step.during);
				break;
		}
	}

	/**
	 * The department a record changed during a walk moves to. On a server whose cursors are
	 * positions, a record that leaves the listing during a walk can make the walk skip the record
	 * after its old place, and nothing in the listing shows it (docs/trigger.md, "What the feed
	 * assumes": a known limit, like a record deleted during a walk). There such a change keeps the
	 * record inside the filter in force; every other change during a walk is drawn as it comes.
	 */
	private duringDept(dept: string): string {
		if (this.timeline.profile.cursor !== 'position' || this.depts.has(dept)) return dept;
		return [...this.depts][0];
	}

	/** One poll as n8n runs it; returns whether the pass was complete at its end. */
	poll(fate: Fate, during: Array<{ record: number; dept: number }> = []): boolean {
		this.polls++;
		const feed = new FeedPoll<Version>(this.stored, this.options(), this.storedBy === this.process);
		let deliveries: Array<Delivery<Version>>;
		let state: FeedState;
		try {
			const ranges = new FeedRanges<Version>(feed);
			const out: RangeRead[] = [];
			let pages = 0;
			for (;;) {
				const free = Math.min(this.timeline.inFlight, this.timeline.pagesPerPoll - pages) - out.length;
				const started = free > 0 ? ranges.next(free) : [];
				pages += started.length;
				out.push(...started);
				if (out.length === 0) break;
				// Answers come back in any order; the server answers each when it comes.
				this.turn = (this.turn * 1103515245 + 12345 + this.timeline.order) % 2147483648;
				const [read] = out.splice(this.turn % out.length, 1);
				if (this.timeline.flaky && this.turn % 11 === 0) {
					if (!ranges.failed(read, false)) continue;
					// The feed's own read failed: the poll fails, n8n keeps nothing of it.
					this.failures.push('a read failed');
					return false;
				}
				let page;
				try {
					page = this.server.list(read, this.depts);
				} catch (error) {
					if (!(error instanceof CursorRefused)) throw error;
					if (ranges.failed(read, true)) throw error;
					continue;
				}
				ranges.page(read, page);
				if (pages === 1 && out.length === 0) {
					for (const change of during) this.commit(this.idOf(change.record), this.duringDept(DEPTS[change.dept]));
					if (this.timeline.inFlight > 1) ranges.allowRanges(2 * this.timeline.inFlight, this.timeline.profile.pageSize, null, undefined, this.timeline.maxChanges);
				}
				this.server.advance(20);
			}
			({ deliveries, state } = ranges.finish());
			this.rangesCut += ranges.cuts;
			this.rangesHandedOver += ranges.handedOver;
		} catch (error) {
			if (!(error instanceof FeedError) || !/refused this listing's cursor/.test(error.message)) throw error;
			// A failed poll: n8n keeps nothing of it.
			this.failures.push(error.message);
			return false;
		}
		this.largestMemory = Math.max(this.largestMemory, memorySize(state));
		const take = () => {
			for (const delivery of deliveries) this.executed.push({ key: delivery.key, possiblyRepeated: delivery.possiblyRepeated, version: delivery.record });
		};
		const sent = deliveries.length > 0;
		// n8n saves the state when a poll sends, and after the activation poll (here: any poll that sends nothing, in-process).
		switch (sent ? fate : fate === 'abandoned' ? 'abandoned' : 'taken') {
			case 'taken':
				take();
				this.save(state);
				break;
			case 'planned':
				take();
				this.save(state);
				this.process++;
				break;
			case 'crashLose':
				// Lost by default (the stated window); at least once, the next poll sends them again.
				if (!this.timeline.atLeastOnce) for (const delivery of deliveries) this.lostExcused.add(versionKey(delivery.record));
				this.save(state);
				this.process++;
				break;
			case 'crashRepeat':
				take();
				for (const delivery of deliveries) this.dupExcused.add(delivery.key);
				this.process++;
				break;
			case 'abandoned':
				break;
		}
		return this.stored.pass === null;
	}

	private save(state: FeedState): void {
		this.stored = JSON.parse(JSON.stringify(state)) as FeedState;
		this.storedBy = this.process;
	}

	get state(): FeedState {
		return this.stored;
	}

	/**
	 * Quiet: no changes for longer than the settle window (and than the clocks were set back), then polls until a pass completes with
	 * nothing to send; twice, since the server's time is known from the records read (a lower
	 * bound that catches up once they are read). Returns the polls it took.
	 */
	settle(maxPolls: number): number {
		let polls = 0;
		for (let round = 0; round < 2; round++) {
			this.server.advance(this.timeline.settleMs + 2000 + (round === 0 ? this.clockSetBackMs : 0));
			let quiet = 0;
			while (quiet < 2) {
				if (++polls > maxPolls) throw new Error(`the feed did not settle within ${maxPolls} polls`);
				const before = this.executed.length;
				const complete = this.poll('taken');
				// Quiet: passes that complete without sending (a poll inside a pass says nothing yet).
				if (this.executed.length !== before) quiet = 0;
				else if (complete) quiet++;
				this.server.advance(1000);
			}
		}
		return polls;
	}

	/**
	 * Versions the feed must have sent: the final version of every record, committed after
	 * activation, late by less than the window, that matched every filter in force from its commit
	 * on. (One that matched only a filter set later may be sent, if the edit came within the window:
	 * "changes since the position that match the new settings".)
	 */
	required(): Version[] {
		const margin = 1000;
		return [...this.server.current.values()].filter((version) => {
			const atCommit = this.atCommit.get(versionKey(version));
			return (
				atCommit !== undefined &&
				atCommit.matched &&
				this.edits.slice(atCommit.edits).every((depts) => depts.has(version.dept)) &&
				version.committedAt >= this.activatedAt &&
				!(this.activationNewest !== null && sortableAt(version.at) <= sortableAt(this.activationNewest)) &&
				version.lateMs + margin <= this.timeline.settleMs &&
				!this.lostExcused.has(versionKey(version))
			);
		});
	}

	/** The promise, as a list of violations (empty: kept). */
	violations(): string[] {
		const found: string[] = [];
		const sent = new Map<string, number>();
		for (const item of this.executed) {
			if (item.possiblyRepeated && this.timeline.atLeastOnce) continue;
			const times = (sent.get(item.key) ?? 0) + 1;
			sent.set(item.key, times);
			if (times > 1 && !this.dupExcused.has(item.key)) found.push(`sent twice unmarked: ${item.version.id} at ${item.version.at} (${item.version.content})`);
		}
		const delivered = new Set(this.executed.map((item) => versionKey(item.version)));
		for (const version of this.required()) {
			if (!delivered.has(versionKey(version))) found.push(`lost: ${version.id} at ${version.at} (${version.content}, late ${version.lateMs} ms)`);
		}
		return found;
	}
}

/** Sorts like the instant, for the timestamps the test server writes (one precision per server). */
const sortableAt = (at: string) => at.replace('Z', '').padEnd(26, '0');

/** One version in the ledger (its content names it: the server numbers every version). */
const versionKey = (version: Version) => `${version.id}|${version.content}`;

export function memorySize(state: FeedState): number {
	return state.memory.length / MEMORY_ENTRY_CHARS;
}

export { MEMORY_MAX };
