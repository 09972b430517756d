import { definedOf } from '../shared/definedOf';
import { compareTimestamps, minusMs, timestampKey } from '../shared/timestamps';
import { MovedRecords, ServerClockReading } from './feedClock';
import { boundMemory, contentKey, eventKey, idKeyOf, loadMemory, storeMemory, timeCode } from './feedMemory';
import type { Delivery, FeedOptions, FeedPage, FeedRead, FeedRecord, FeedState, Pass, Unconfirmed } from './feedState';
import { FEED_VERSION, FeedError, MEMORY_MAX, REFUSALS_MAX } from './feedState';
import { undoneUnlessConfirmed } from './feedUndo';

/**
 * The change feed: one small model that decides what a poll reads, what it sends and what it
 * remembers. Pure (no n8n types, no I/O): the caller fetches the pages this model asks for and
 * hands them back; `test/unit/changeFeed.property.test.ts` checks it against a reference ledger.
 *
 * THE MODEL is written down, with why it is exactly once and the test for each case, in
 * docs/trigger.md ("The change feed: the model"). Its terms, as named here:
 * - a *version*: a record's id, change timestamp `t` and a fingerprint of its content;
 * - the *settle window* S (`settleMs`): a change is visible on the server by `t + S`;
 * - the *position* L (`settled`): every version with `t < L` was sent (or never visible in time);
 * - the *memory*: the versions with `t ≥ L` that were sent (or existed at activation);
 * - a *pass*: reads every record with `t ≥ L` oldest first, over as many polls as it needs, sends
 *   what the memory lacks; once complete, L moves to `passStart − S` on the server's clock
 *   (feedClock.ts), and the memory forgets what is older. n8n's clock is never read: it steps.
 * Nothing depends on the order of a walk, only on the set of versions a pass read. A pass may be
 * read in ranges side by side (feedRanges.ts): the feed still sees one walk, started again at
 * each range's start (`FeedPage.nextFrom`).
 *
 * Restarts: by default a restart repeats nothing (n8n's convention). With `atLeastOnce`, a poll
 * that sends keeps how to undo itself (`unconfirmed`) until a later poll of the same process
 * confirms it; a poll that cannot confirm it (a new process) undoes it and sends it again, each
 * version marked as possibly repeated (feedUndo.ts).
 */

const laterOf = (a: string, b: string) => (compareTimestamps(a, b) >= 0 ? a : b);

/**
 * One poll's work on the feed. The caller asks `nextRead()` for the request to make, hands the
 * answer to `page()` (or says `refused()` when the server refused the cursor), and stops when
 * `nextRead()` says null or its own budget is spent; `finish()` gives what to send and the state.
 */
export class FeedPoll<R extends FeedRecord = FeedRecord> {
	private settled: string | null;
	private pass: Pass | null;
	private readonly memory: Map<string, string>;
	private readonly deliveries: Array<Delivery<R>> = [];
	private readonly changed: Array<[string, string | null]> = [];
	private readonly repeatKeys: Set<string>;
	/** See FeedState.repeatBefore. */
	private readonly repeatBefore: string | undefined;
	/** Versions met in the current walk: the same one twice is a server repeating itself. */
	private walkSeen = new Set<string>();
	/** The newest timestamp of the current walk: a walk comes oldest first. */
	private walkLast: string | null = null;
	private done = false;
	private readonly clock: ServerClockReading;
	private readonly moved: MovedRecords;
	private before: Pick<FeedState, 'settled' | 'pass'>;
	readonly warnings: string[] = [];
	/** Set when the memory reached MEMORY_MAX: versions before this time counted as settled early. */
	settledEarly: string | null = null;

	constructor(
		stored: FeedState,
		private readonly options: FeedOptions,
		/** Whether this process stored `stored` (so the poll that made it was taken by n8n). */
		confirmed: boolean,
	) {
		const { state, repeatKeys, repeatBefore } = undoneUnlessConfirmed(stored, options.atLeastOnce, confirmed);
		this.repeatKeys = repeatKeys;
		this.repeatBefore = repeatBefore;
		this.settled = state.settled;
		this.clock = new ServerClockReading(stored.clock);
		this.before = { settled: state.settled, pass: state.pass === null ? null : { ...state.pass } };
		this.memory = loadMemory(state, state.memoryView === options.contentView);
		this.moved = new MovedRecords(this.memory);
		if (state.pass === null) this.pass = null;
		// Refusals count within a poll: a cursor that expired between polls is read past again here.
		else if (state.pass.view === options.view) this.pass = { ...state.pass, refusals: 0 };
		else {
			// Another query: the pass starts again from L with it (the memory skips what was sent),
			// from the old pass's start: what changed since then (during the activation too) is read.
			const { learnUpTo, startedAt, firstDate, firstLocal, heldAt } = state.pass;
			this.pass = { ...this.fresh(), ...definedOf({ startedAt, firstDate, firstLocal, learnUpTo, heldAt }) } as Pass;
		}
	}

	/** A new pass; its start is taken when its first page comes (`page`). */
	private fresh(): Pass {
		return { startedAt: null, view: this.options.view, from: this.settled, reached: null, requests: 0, refusals: 0, depth: 0, deepest: 0 };
	}

	private get capped(): boolean {
		return this.options.maxChanges !== undefined && this.deliveries.length >= this.options.maxChanges;
	}

	/** The next request, or null when this poll is done (the pass completed, or the cap is reached). */
	nextRead(): FeedRead | null {
		if (this.done || this.capped) return null;
		this.pass ??= this.fresh();
		if (this.pass.requests >= this.options.maxRequests) {
			throw new FeedError(
				`stopped after ${this.pass.requests} requests without reaching the last page (Options → Max Requests is ${this.options.maxRequests}); raise Max Requests if this listing is legitimately that long, or narrow it with filters`,
			);
		}
		return this.pass.after === undefined ? { from: this.pass.from } : { from: this.pass.from, after: this.pass.after };
	}

	/** The server refused the pass's cursor: read again from where the pass got to. */
	refused(): void {
		const pass = this.pass as Pass;
		if (pass.after === undefined) throw new FeedError('the API refused a listing that carried no cursor');
		// Only refusals that leave the pass no deeper into the group at `reached` than before count:
		// a walk that got further is progress, whatever the cursor's life.
		if (pass.depth > pass.deepest) {
			pass.deepest = pass.depth;
			pass.refusals = 1;
		} else {
			pass.refusals++;
		}
		if (pass.refusals >= REFUSALS_MAX) {
			throw new FeedError(
				`the API refused this listing's cursor ${pass.refusals} times in one poll at ${pass.reached ?? 'its start'} without the listing getting further; its cursors expire within seconds`,
			);
		}
		if (pass.refusals > 1 || (pass.deepest > 0 && pass.depth < pass.deepest)) {
			this.warnings.push(
				`the API refused the cursor inside the ${pass.deepest}+ records sharing ${pass.reached ?? 'one time'} before the listing got past them; if this repeats every poll, more records share that time than one poll reads and the cursor does not live until the next poll: raise Time Budget per Poll or poll more often`,
			);
		}
		// After a jump to the next range (`nextFrom`), the walk's start is later than `reached`.
		this.restartWalk(pass.reached === null || pass.from === null ? (pass.reached ?? pass.from) : laterOf(pass.reached, pass.from));
	}

	private restartWalk(from: string | null): void {
		const pass = this.pass as Pass;
		delete pass.after;
		pass.depth = 0;
		pass.from = from === null ? null : this.settled === null ? from : laterOf(from, this.settled);
		this.newWalk();
	}

	private newWalk(): void {
		this.walkSeen = new Set();
		this.walkLast = null;
	}

	/** One page of the read `nextRead()` asked for. */
	page(page: FeedPage<R>): void {
		const pass = this.pass as Pass;
		this.clock.answered(page.serverTime);
		if (pass.startedAt === null && pass.requests === 0) {
			// The pass's first page is its earliest read (every other is asked for after it came):
			// the server's time when it took that request, or the newest time that page lists.
			const newest = page.records.reduce<string | null>((latest, record) => (latest === null ? record.at : laterOf(latest, record.at)), null);
			const known = page.serverTime === undefined ? null : this.clock.nowAt(page.serverTime);
			pass.startedAt = known === null ? newest : newest === null ? known : laterOf(known, newest);
			if (page.serverTime !== undefined) pass.firstDate = page.serverTime.atLeast;
			if (page.serverTime?.sentAt !== undefined) pass.firstLocal = page.serverTime.sentAt;
		}
		pass.requests++;
		const pageAfter = pass.after;
		const pageFrom = pass.from;
		for (const record of page.records) {
			if (page.nextFrom !== undefined && compareTimestamps(record.at, page.nextFrom) >= 0) throw new FeedError(`a range's page holds a record changed at ${record.at}, at or past its end ${page.nextFrom}`);
			if (this.capped) {
				// Cut inside the page: it is read again, and the part sent is skipped then.
				pass.after = pageAfter;
				pass.from = pageFrom;
				if (pageAfter === undefined) delete pass.after;
				// The page is read again: its depth counts again (a poll that sends is progress anyway).
				pass.depth = 0;
				pass.deepest = 0;
				pass.refusals = 0;
				this.newWalk();
				return;
			}
			this.accept(record, pass, page.serverTime);
		}
		if (page.nextFrom !== undefined) {
			// The range ended: a new walk from the next range's start reads on (feedRanges.ts).
			if (pass.from !== null && compareTimestamps(page.nextFrom, pass.from) <= 0) throw new FeedError(`a range ending at ${page.nextFrom} within its own start ${pass.from}`);
			delete pass.after;
			pass.from = page.nextFrom;
			pass.depth = 0;
			this.newWalk();
			return;
		}
		if (!page.hasNextPage) {
			this.complete(pass);
			return;
		}
		if (page.endCursor === undefined || page.endCursor === '') throw new FeedError('the API said there is a next page but gave no end_cursor');
		pass.after = page.endCursor;
	}

	private accept(record: R, pass: Pass, time: FeedPage['serverTime']): void {
		const at = timestampKey(record.at);
		if (this.walkLast !== null && at < timestampKey(this.walkLast)) {
			throw new FeedError(`the API listed a record changed at ${record.at} after one changed at ${this.walkLast}: not oldest first`);
		}
		this.walkLast = record.at;
		this.clock.observe(record.at, time);
		if (pass.reached === null || at > timestampKey(pass.reached)) {
			pass.reached = record.at;
			pass.refusals = 0;
			pass.depth = 0;
			pass.deepest = 0;
		}
		if (at === timestampKey(pass.reached)) pass.depth++;
		if (this.settled !== null && compareTimestamps(record.at, this.settled) < 0) return;
		const entry = `${timeCode(record.at)}${idKeyOf(record.id)}`;
		const content = contentKey(record.content);
		const version = `${entry}|${content}`;
		// Twice in one walk: a cursor that is a position, a record written before it since. Known.
		if (this.walkSeen.has(version)) return;
		this.walkSeen.add(version);
		const known = this.memory.get(entry);
		const sent = known !== undefined && (known === content || known === '');
		if (sent && this.repeatKeys.delete(entry)) {
			// Sent again: a crash after this poll sends it once more.
			this.changed.push([entry, known]);
			this.deliveries.push({ record, key: eventKey(record), possiblyRepeated: true });
			return;
		}
		if (sent) return;
		if (pass.learnUpTo !== undefined) {
			// The activation's pass sends nothing (so no undo ever goes back into it): what exists is
			// remembered, what changed since is left to the next pass, which reads it as a change.
			if (compareTimestamps(record.at, pass.learnUpTo) <= 0) this.memory.set(entry, content);
			return;
		}
		const older = this.moved.olderTimeOf(record);
		if (older !== undefined && (pass.heldAt === undefined || compareTimestamps(older, pass.heldAt) < 0)) pass.heldAt = older;
		this.changed.push([entry, known ?? null]);
		this.memory.set(entry, content);
		const repeated = this.repeatKeys.has(entry) || (this.repeatBefore !== undefined && compareTimestamps(record.at, this.repeatBefore) < 0);
		this.deliveries.push({ record, key: eventKey(record), possiblyRepeated: repeated, ...(known ? { laterInItsTime: true } : {}) });
	}

	private complete(pass: Pass): void {
		const startedAt = this.clock.passStart(pass);
		if (startedAt !== null) {
			const start = minusMs(startedAt, this.options.settleMs);
			const settle = pass.heldAt !== undefined && compareTimestamps(pass.heldAt, start) < 0 ? pass.heldAt : start;
			this.settled = this.settled === null ? settle : laterOf(this.settled, settle);
		}
		this.pass = null;
		this.newWalk();
		this.done = pass.learnUpTo === undefined;
		if (this.done) return;
		// The activation's pass is done: a pass that sends goes on in this poll, and an undo of this
		// poll goes back to here, never into the activation's pass.
		this.before = { settled: this.settled, pass: null };
	}

	/** A lower bound of the server's time now (epoch ms); null: no record read yet. */
	serverTime(): number | null {
		const now = this.clock.now();
		return now === null ? null : Date.parse(minusMs(now, 0));
	}

	/** Requests the pass may still send (Max Requests bounds a whole pass). */
	requestsLeft(): number {
		return this.options.maxRequests - (this.pass?.requests ?? 0);
	}

	/** Pages read ahead in ranges that this poll could not hand over: they count towards Max Requests. */
	discarded(pages: number): void {
		if (this.pass !== null) this.pass.requests += pages;
	}

	/** This poll's budget is spent: the pass goes on next poll from its cursor. */
	stop(): void {
		this.done = true;
	}

	/** What to send, oldest first, and the state to store. */
	finish(): { deliveries: Array<Delivery<R>>; state: FeedState } {
		const sent = this.deliveries.length > 0;
		const unconfirmed: Unconfirmed | null =
			this.options.atLeastOnce && sent ? { settled: this.before.settled, pass: this.before.pass, entries: this.changed } : null;
		// Entries an undo would need stay until a later poll confirms this one.
		const keepFrom = unconfirmed !== null ? this.before.settled : this.settled;
		const { memory, earlyAt } = boundMemory(storeMemory(this.memory, keepFrom));
		if (earlyAt !== null) {
			// Degrade, never fail: the oldest timestamps settle early (late records there are no longer caught).
			this.settled = this.settled === null ? earlyAt : laterOf(this.settled, earlyAt);
			this.settledEarly = earlyAt;
			this.warnings.push(
				`more than ${MEMORY_MAX} changes inside the settle window; changes before ${earlyAt} count as settled early (a record committed later than that with an older time is not sent): lower Options → Settle Window (Minutes) if such bursts are normal`,
			);
		}
		if (unconfirmed !== null && earlyAt !== null) unconfirmed.forgottenBefore = earlyAt; // feedUndo.ts
		const repeat = this.pass === null ? [] : [...this.repeatKeys];
		const repeatBefore = this.pass === null || this.repeatBefore === undefined ? {} : { repeatBefore: this.repeatBefore };
		const state: FeedState = { version: FEED_VERSION, settled: this.settled, memory: memory.join(''), memoryView: this.options.contentView, pass: this.pass, unconfirmed, repeat, ...repeatBefore, clock: this.clock.stored() };
		return { deliveries: this.deliveries, state };
	}
}

