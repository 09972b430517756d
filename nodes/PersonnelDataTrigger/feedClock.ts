import { compareTimestamps, minusMs } from '../shared/timestamps';
import { idKeyOf, TIME_CHARS, timeCode, timeOf } from './feedMemory';
import type { FeedRecord, Pass, ServerClock, ServerTime } from './feedState';

/**
 * A change in the offset between the server's Date clock and n8n's larger than this (beyond the
 * exchange's own duration and the Date header's second) is a step of one of them.
 */
export const CLOCK_STEP_MS = 5_000;

/** Where a clock reading stands on both clocks: the answer that showed it. */
function readingOf(time: ServerTime): Pick<ServerClock, 'seenBy' | 'seenLocal'> {
	return { seenBy: time.atMost, ...(time.receivedAt === undefined ? {} : { seenLocal: time.receivedAt }) };
}

/** Whether one of the two clocks stepped between the reading and `time` (unknown without n8n's times: no). */
function stepped(clock: ServerClock, time: ServerTime): boolean {
	if (clock.seenBy === undefined || clock.seenLocal === undefined || time.receivedAt === undefined) return false;
	const exchangeMs = time.receivedAt - (time.sentAt ?? time.receivedAt);
	return Math.abs(time.atMost - time.receivedAt - (clock.seenBy - clock.seenLocal)) > CLOCK_STEP_MS + exchangeMs;
}

/**
 * The server's time as one poll learns it from the answers (the change feed's model, "The
 * server's time"). The time since a record was read is counted on two clocks, the server's Date
 * header and n8n's own, and the one that shows less is believed: either may step (an NTP
 * correction, a virtual machine resumed, another n8n main taking over), and a step forward of one
 * would move the settle point past changes the server has not shown yet. Where one of them
 * stepped, the reading starts again from that answer, so that a later step of the other is
 * measured against a clock that has not stepped since.
 */
export class ServerClockReading {
	private clock: ServerClock | null;
	/** The answer of this poll with the latest Date (`ServerTime.atLeast`): where `now()` reads the clocks. */
	private latest: ServerTime | undefined;

	constructor(stored: ServerClock | null) {
		// `local` (n8n's clock as earlier versions stored it) is dropped.
		this.clock = stored === null ? null : { at: stored.at, ...(stored.seenBy === undefined ? {} : { seenBy: stored.seenBy }), ...(stored.seenLocal === undefined ? {} : { seenLocal: stored.seenLocal }) };
	}

	/** A lower bound of the server's time when it took the latest request it answered this poll; null: nothing read yet. */
	now(): string | null {
		return this.nowAt(this.latest);
	}

	/**
	 * A lower bound of the server's time when it took the request answered at `time`: the newest
	 * `t` read plus the time since that answer on whichever clock shows less (an offset between
	 * the Date clock and the clock `t` is written with cancels out); without Dates, the newest `t`
	 * alone. null: nothing read yet.
	 */
	nowAt(time: ServerTime | undefined): string | null {
		if (this.clock === null) return null;
		const { at, seenBy, seenLocal } = this.clock;
		if (time === undefined || seenBy === undefined) return at;
		const onDate = time.atLeast - seenBy;
		const onN8n = time.sentAt === undefined || seenLocal === undefined ? onDate : time.sentAt - seenLocal;
		const since = Math.min(onDate, onN8n);
		return since > 0 ? minusMs(at, -since) : at;
	}

	/**
	 * A lower bound of the server's time at a pass's first page, once the pass is read: the one
	 * taken at that page, or the newest `t` read since less the time from that page to the answer
	 * that showed it, whichever is later (a backfill's first page holds its oldest records). That
	 * time is taken on whichever clock shows more: a clock set back during the pass shows too little.
	 */
	passStart({ startedAt, firstDate, firstLocal }: Pick<Pass, 'startedAt' | 'firstDate' | 'firstLocal'>): string | null {
		if (firstDate === undefined || this.clock === null || this.clock.seenBy === undefined) return startedAt;
		const onDate = this.clock.seenBy - firstDate;
		const onN8n = firstLocal === undefined || this.clock.seenLocal === undefined ? onDate : this.clock.seenLocal - firstLocal;
		const then = minusMs(this.clock.at, Math.max(0, onDate, onN8n));
		return startedAt === null || compareTimestamps(then, startedAt) > 0 ? then : startedAt;
	}

	/** A page came, answered at `time` (absent: no Date header). */
	answered(time: ServerTime | undefined): void {
		if (time === undefined) return;
		if (this.latest === undefined || time.atLeast > this.latest.atLeast) this.latest = time;
		if (this.clock === null) return;
		// A clock without a Date yet (the activation's): its time was reached by this answer too.
		if (this.clock.seenBy === undefined) this.clock = { at: this.clock.at, ...readingOf(time) };
		else if (stepped(this.clock, time)) this.clock = { at: this.nowAt(time) as string, ...readingOf(time) };
	}

	/** A record read in a page answered at `time` shows the server's time is at least its timestamp. */
	observe(at: string, time: ServerTime | undefined): void {
		const now = this.now();
		if (now === null || compareTimestamps(at, now) > 0) this.clock = { at, ...(time === undefined ? {} : readingOf(time)) };
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
