import { compareTimestamps, minusMs } from '../shared/timestamps';
import { idKeyOf, TIME_CHARS, timeCode, timeOf } from './feedMemory';
import type { FeedRecord, Pass, ServerClock, ServerTime } from './feedState';

/**
 * The server's time as one poll learns it from the answers (the change feed's model, "The
 * server's time"): never n8n's clock, which may step, and which a slow poll would make wrong.
 */
export class ServerClockReading {
	private clock: ServerClock | null;
	/** The latest `ServerTime.atLeast` of a page this poll: the server's Date clock was at least this. */
	private dateNow: number | undefined;

	constructor(stored: ServerClock | null) {
		// `local` (n8n's clock, stored by earlier versions) is dropped.
		this.clock = stored === null ? null : { at: stored.at, ...(typeof stored.seenBy === 'number' ? { seenBy: stored.seenBy } : {}) };
	}

	/**
	 * A lower bound of the server's time when it took a request it answered no earlier than
	 * `dateAtLeast` on its Date clock: the newest `t` read plus the Date clock's time since that
	 * answer (an offset between the Date clock and the clock `t` is written with cancels out);
	 * without Dates, the newest `t` alone. null: nothing read yet.
	 */
	now(dateAtLeast = this.dateNow): string | null {
		if (this.clock === null) return null;
		const { at, seenBy } = this.clock;
		if (dateAtLeast === undefined || seenBy === undefined) return at;
		return minusMs(at, -Math.max(0, dateAtLeast - seenBy));
	}

	/**
	 * A lower bound of the server's time at a pass's first page, once the pass is read: the one
	 * taken at that page, or the newest `t` read since less the Date clock's time from that page to
	 * the answer that showed it, whichever is later (a backfill's first page holds its oldest records).
	 */
	passStart({ startedAt, firstDate }: Pick<Pass, 'startedAt' | 'firstDate'>): string | null {
		if (firstDate === undefined || this.clock === null || this.clock.seenBy === undefined) return startedAt;
		const then = minusMs(this.clock.at, Math.max(0, this.clock.seenBy - firstDate));
		return startedAt === null || compareTimestamps(then, startedAt) > 0 ? then : startedAt;
	}

	/** A page came, answered at `time` (absent: no Date header). */
	answered(time: ServerTime | undefined): void {
		if (time === undefined) return;
		this.dateNow = Math.max(this.dateNow ?? time.atLeast, time.atLeast);
		// A clock without a Date yet (the activation's): its time was reached by this answer too.
		if (this.clock !== null && this.clock.seenBy === undefined) this.clock = { at: this.clock.at, seenBy: time.atMost };
	}

	/** A record read in a page answered at `time` shows the server's time is at least its timestamp. */
	observe(at: string, time: ServerTime | undefined): void {
		const now = this.now();
		if (now === null || compareTimestamps(at, now) > 0) this.clock = { at, ...(time === undefined ? {} : { seenBy: time.atMost }) };
	}

	stored(): ServerClock | null {
		return this.clock;
	}
}

/**
 * Records that changed again while the memory holds an older version of them (`t_old ≥ L`): the
 * record may have changed during a walk that had read it. On a server whose cursor is a position,
 * it then moved from its place to the end, and the walk's next page skipped the record after its
 * old place. A pass does not settle past the earliest such `t_old`, so the next pass reads that
 * record (changeFeed.ts `heldAt`).
 */
export class MovedRecords {
	/** The memory's earliest time code of each id key (built on first use). */
	private earliestById: Map<string, string> | undefined;

	constructor(private readonly memory: ReadonlyMap<string, string>) {}

	/** The older time of `record` in the memory, when this is a new version of a remembered record. */
	olderTimeOf(record: FeedRecord): string | undefined {
		if (this.earliestById === undefined) {
			this.earliestById = new Map();
			for (const key of this.memory.keys()) {
				const id = key.slice(TIME_CHARS);
				const time = key.slice(0, TIME_CHARS);
				const earliest = this.earliestById.get(id);
				if (earliest === undefined || time < earliest) this.earliestById.set(id, time);
			}
		}
		const id = idKeyOf(record.id);
		const time = timeCode(record.at);
		const earlier = this.earliestById.get(id);
		if (earlier === undefined || time < earlier) this.earliestById.set(id, time);
		return earlier !== undefined && earlier < time ? timeOf(earlier) : undefined;
	}
}
