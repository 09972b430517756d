import { type Range, splitLargest } from '../shared/rangeSplit';
import { compareTimestamps, timestampKey } from '../shared/timestamps';
import type { FeedPoll } from './changeFeed';
import type { Delivery, FeedPage, FeedRead, FeedRecord, FeedState } from './feedState';
import { FeedError } from './feedState';

/**
 * The trigger's parallel catch-up: a pass with many pages ahead reads them in ranges of the change
 * timestamp side by side, and the change feed (changeFeed.ts) still sees one walk, oldest first.
 * Pure (no I/O): the caller makes the reads this asks for, as many at once as it likes, and hands
 * each answer back in any order.
 *
 * THE RULE (why nothing changes for the feed's promise)
 * - The first range is the feed's own walk: its reads are exactly what the feed asks for next.
 * - Every other range is a walk `t ≥ start`, with the server's cursor, that ends at the next
 *   range's start: records at or past it are left to that range. A range is cut from the range
 *   with the most left to read (rangeSplit.ts), strictly past every record that range has read.
 * - Pages are handed to the feed in range order only: the first range's pages as they come; when
 *   it ends, its last page says so (`nextFrom`: the feed starts a new walk at the next range's
 *   start, the very query that range walked) and that range's pages follow. So the feed sees a
 *   walk that a refused cursor could have given it: every record before a range's start was read
 *   by the range before it, and the memory skips what was sent.
 * - What was read beyond the first range that has not ended when the poll stops is not handed
 *   over (it comes oldest first in a later poll); its requests count towards Max Requests.
 * - A range whose cursor is refused, or whose read fails, waits until it is the first: the feed
 *   then reads on from it as it always does (a refusal: from the newest time it reached).
 */

/** A read to make: records with `t ≥ from` oldest first, after `after`; the range it is for. */
export interface RangeRead extends FeedRead {
	readonly walk: object;
}

interface Walk<R extends FeedRecord> {
	/** The range as rangeSplit.ts sees it: bounds in ms, the records read, the last time. */
	span: Range<R>;
	from: string | null;
	/** The next range's start: records at or past it are that range's. undefined: the listing's end. */
	stop?: string;
	after?: string;
	/** Pages read while another range was first, with the read that gave each. */
	queue: Array<{ read: FeedRead; page: FeedPage<R> }>;
	pending: boolean;
	ended: boolean;
	/** Its cursor was refused, or a read failed: it waits until it is the first. */
	stalled?: 'refused' | 'failed';
}

/**
 * A range is cut only with this many pages left: its read in flight (about one page) then ends
 * before the cut, so no page is read twice; the shorter a poll, the more a page read twice costs.
 */
const PAGES_LEFT_TO_CUT = 6;

const msOf = (at: string): number => Date.parse(`${timestampKey(at).slice(0, 23)}Z`);
const sameRead = (a: FeedRead, b: FeedRead) => a.from === b.from && a.after === b.after;

export class FeedRanges<R extends FeedRecord = FeedRecord> {
	private readonly walks = new Map<object, Walk<R>>();
	/** The ranges in hand-over order (the first is the feed's walk). */
	private readonly spans: Array<Range<R>> = [];
	private pagesRead = 0;
	private pagesFed = 0;
	/** Ranges cut, and ranges handed over whole to the next one (a jump), this poll. */
	cuts = 0;
	handedOver = 0;
	/** The feed asks for nothing more this poll (its pass completed, or Max Changes per Poll). */
	private over = false;
	private split: { farEnd: number; prior: number; most: number; pageSize: number; enough?: number } | undefined;

	constructor(private readonly feed: FeedPoll<R>) {
		const span: Range<R> = { records: [], last: { time: Number.NEGATIVE_INFINITY } };
		this.spans.push(span);
		this.walks.set(span, { span, from: null, queue: [], pending: false, ended: false });
	}

	/** Records the ranges have read so far (the first range's included). */
	get recordsRead(): number {
		return this.spans.reduce((sum, span) => sum + span.records.length, 0);
	}

	/**
	 * From now on, ranges may be cut, at most `most` of them, for pages of `pageSize` records: over
	 * the span from the first range's last record to `newest` (the newest change of the listing, a
	 * probe's; without it, the server's time now as the feed knows it). Where nothing was read yet,
	 * as many records per ms are expected as `left` (the records the listing holds beyond those
	 * read, when the server counted them) spread evenly, else as the first range showed.
	 * `enough` (Max Changes per Poll): once the ranges hold that many records, only the first range
	 * reads on; what the others would read could not be handed over in this poll.
	 */
	allowRanges(most: number, pageSize: number, newest: string | null = null, left?: number, enough?: number): void {
		const head = this.spans[0];
		const farEnd = newest === null ? this.feed.serverTime() : msOf(newest);
		if (farEnd === null || head.records.length < 2) return;
		const prior = left === undefined ? head.records.length / (head.last.time - msOf(head.records[0].at) + 1) : left / Math.max(1, farEnd - head.last.time);
		this.split = { farEnd, prior, most, pageSize, enough };
	}

	/**
	 * The reads to start now, at most `free`, in hand-over order: the first range's next page, then
	 * the other ranges' (as long as Max Requests leaves room for them and the first range). Every
	 * range worth a cut is cut first (up to `most`): short ranges end within the poll, and the reads
	 * go to the ranges the feed needs first.
	 */
	next(free: number): RangeRead[] {
		const reads: RangeRead[] = [];
		if (this.over) return reads;
		let spare = this.feed.requestsLeft() - (this.pagesRead - this.pagesFed) - [...this.walks.values()].filter((walk) => walk.pending).length - 1;
		while (this.split !== undefined && this.spans.length < spare) {
			const { farEnd, prior, most, pageSize } = this.split;
			const fresh = splitLargest(this.spans, true, farEnd, prior, most, pageSize, PAGES_LEFT_TO_CUT);
			if (fresh === undefined) break;
			const before = this.walks.get(this.spans[this.spans.indexOf(fresh) - 1]) as Walk<R>;
			const from = new Date(fresh.lower as number).toISOString();
			this.walks.set(fresh, { span: fresh, from, stop: before.stop, queue: [], pending: false, ended: false });
			before.stop = from;
			this.cuts++;
		}
		for (const span of this.spans) {
			if (this.over || reads.length >= free) return reads;
			const walk = this.walks.get(span) as Walk<R>;
			const first = span === this.spans[0];
			if (!first && (spare <= 0 || this.recordsRead >= (this.split?.enough ?? Number.POSITIVE_INFINITY))) break;
			const read = this.readOf(walk, first);
			if (read === null) continue;
			reads.push(read);
			if (!first) spare--;
		}
		return reads;
	}

	private readOf(walk: Walk<R>, first: boolean): RangeRead | null {
		if (walk.pending || walk.ended) return null;
		if (!first) {
			if (walk.stalled !== undefined) return null;
			walk.pending = true;
			return { walk: walk.span, from: walk.from, ...(walk.after === undefined ? {} : { after: walk.after }) };
		}
		// The first range's pages go to the feed as they come: nothing of it waits here.
		if (walk.queue.length > 0) return null;
		// A range refused while another was first: the feed now hears of it (and reads on from where it got to).
		if (walk.stalled === 'refused') this.feed.refused();
		walk.stalled = undefined;
		const read = this.feed.nextRead();
		if (read === null) {
			this.over = true;
			return null;
		}
		walk.pending = true;
		walk.from = read.from;
		walk.after = read.after;
		// A cut lies past the walk's start too (a server may list a few records before it: other precision).
		if (read.from !== null) walk.span.last.time = Math.max(walk.span.last.time, msOf(read.from));
		return { walk: walk.span, ...read };
	}

	/** The answer to `read`. */
	page(read: RangeRead, page: FeedPage<R>): void {
		const walk = this.walks.get(read.walk) as Walk<R>;
		walk.pending = false;
		this.pagesRead++;
		if (this.over) return;
		let records = page.records;
		// A range's own start: a server that compares the filter at another precision may list a few
		// records before it, which the range before read (the first range's are the feed's to judge).
		const lower = walk.span.lower === undefined ? undefined : walk.from;
		if (lower !== undefined && lower !== null) {
			const inside = records.findIndex((record) => compareTimestamps(record.at, lower) >= 0);
			records = inside < 0 ? [] : records.slice(inside);
		}
		const past = walk.stop === undefined ? -1 : records.findIndex((record) => compareTimestamps(record.at, walk.stop as string) >= 0);
		if (past >= 0) records = records.slice(0, past);
		walk.ended = past >= 0 || !page.hasNextPage;
		const time = page.serverTime === undefined ? {} : { serverTime: page.serverTime };
		const kept: FeedPage<R> =
			walk.ended && walk.stop !== undefined
				? { records, hasNextPage: false, nextFrom: walk.stop, ...time }
				: { records, hasNextPage: page.hasNextPage, endCursor: page.endCursor, ...time };
		// The density a range shows is its last page's (rangeSplit.ts).
		if (records.length >= 2) [walk.span.from, walk.span.base] = [msOf(records[0].at), walk.span.records.length];
		for (const record of records) walk.span.records.push(record);
		if (records.length > 0) walk.span.last.time = Math.max(walk.span.last.time, msOf(records[records.length - 1].at));
		walk.span.done = walk.ended;
		walk.after = page.endCursor;
		walk.queue.push({ read: { from: read.from, ...(read.after === undefined ? {} : { after: read.after }) }, page: kept });
		this.handOver();
	}

	/**
	 * `read` failed: a refused cursor (`refused`), or another error. True when the failure is the
	 * feed's own (the first range's read, not a refused cursor): the caller decides (the poll's error).
	 */
	failed(read: RangeRead, refused: boolean): boolean {
		const walk = this.walks.get(read.walk) as Walk<R>;
		walk.pending = false;
		if (this.over) return false;
		if (walk.span !== this.spans[0]) {
			// Read on only once it is first (no more cuts of it meanwhile).
			walk.stalled = refused ? 'refused' : 'failed';
			walk.span.done = true;
			return false;
		}
		if (!refused) return true;
		this.feed.refused();
		return false;
	}

	/** Hands the first range's pages to the feed; an ended range gives way to the next one. */
	private handOver(): void {
		while (!this.over) {
			const walk = this.walks.get(this.spans[0]) as Walk<R>;
			const entry = walk.queue.shift();
			if (entry === undefined) return;
			const asked = this.feed.nextRead();
			if (asked === null) {
				this.over = true;
				return;
			}
			if (!sameRead(asked, entry.read)) throw new FeedError(`ranges out of step: the feed reads from ${asked.from ?? 'the start'}, the range's page from ${entry.read.from ?? 'the start'}`);
			this.feed.page(entry.page);
			this.pagesFed++;
			if (walk.ended && walk.queue.length === 0 && this.spans.length > 1) {
				this.walks.delete(this.spans.shift() as Range<R>);
				this.handedOver++;
			}
		}
	}

	/** What to send and the state: pages read but not handed over count as requests of the pass. */
	finish(): { deliveries: Array<Delivery<R>>; state: FeedState } {
		this.feed.discarded(this.pagesRead - this.pagesFed);
		if (!this.over) this.feed.stop();
		return this.feed.finish();
	}
}
