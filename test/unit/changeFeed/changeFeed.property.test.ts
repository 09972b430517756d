/**
 * The change feed's model-based test: generated timelines (creates, updates also several in one
 * second, bulk imports at one timestamp, deletions, late commits inside and beyond the settle
 * window, changes during walks, refused cursors, filter edits, planned restarts and crashes at a
 * hand-over, abandoned polls, polls cut by their page budget and Max Changes per Poll, passes read
 * in ranges side by side with answers in any order and reads that fail: feedRanges.ts) against
 * servers of every precision and page size, checked against the reference ledger (timeline.ts):
 * nothing lost, nothing repeated unmarked, the state empty once nothing can change any more, and
 * every timeline settled within a bound computed from the pages it needs.
 *
 * `FEED_RUNS` sets how many timelines (default 1,500); a failure prints fast-check's seed and path,
 * and `FEED_SEED=<seed> FEED_PATH=<path>` replays exactly that timeline, shrunk.
 */
import fc from 'fast-check';

import type { Fate, Step, Timeline } from './timeline';
import { MEMORY_MAX, memorySize, TimelineRun } from './timeline';

const SETTLE_MS = 60_000;

const lateMs = fc.oneof(
	{ weight: 6, arbitrary: fc.constant(0) },
	// Up to the window's end (the ledger's margin is a second): a commit 47 s late in a 60 s window is owed.
	{ weight: 2, arbitrary: fc.integer({ min: 1, max: SETTLE_MS - 1_000 }) },
	{ weight: 1, arbitrary: fc.integer({ min: SETTLE_MS + 5_000, max: 4 * SETTLE_MS }) },
);

const fate: fc.Arbitrary<Fate> = fc.oneof(
	{ weight: 8, arbitrary: fc.constant<Fate>('taken') },
	{ weight: 1, arbitrary: fc.constantFrom<Fate>('planned', 'crashLose', 'crashRepeat', 'abandoned') },
);

const stepWith = (burstSize: fc.Arbitrary<number>): fc.Arbitrary<Step> => fc.oneof(
	{ weight: 8, arbitrary: fc.record({ kind: fc.constant('commit' as const), record: fc.nat(40), dept: fc.nat(2), lateMs }) },
	{ weight: 1, arbitrary: fc.record({ kind: fc.constant('burst' as const), size: burstSize, dept: fc.nat(2) }) },
	{ weight: 1, arbitrary: fc.record({ kind: fc.constant('remove' as const), record: fc.nat(40) }) },
	{ weight: 4, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.oneof(fc.integer({ min: 0, max: 3_000 }), fc.integer({ min: 20_000, max: 150_000 })) }) },
	{ weight: 1, arbitrary: fc.record({ kind: fc.constant('edit' as const), depts: fc.uniqueArray(fc.nat(2), { minLength: 1, maxLength: 3 }) }) },
	// The server's Date clock or n8n's steps, seconds to hours, either way; the clock the server writes timestamps with does not.
	{
		weight: 2,
		arbitrary: fc.record({
			kind: fc.constant('stepClock' as const),
			clock: fc.constantFrom('date' as const, 'n8n' as const),
			ms: fc.oneof(fc.integer({ min: -7_200_000, max: 7_200_000 }), fc.integer({ min: -8_000, max: 8_000 })),
		}),
	},
	{
		weight: 6,
		arbitrary: fc.record({ kind: fc.constant('poll' as const), fate, during: fc.array(fc.record({ record: fc.nat(40), dept: fc.nat(2) }), { maxLength: 3 }) }),
	},
);

const step = stepWith(fc.integer({ min: 1, max: 150 }));

/**
 * The server's Date header: its front's clock off from the clock it writes timestamps with (by up
 * to an hour either way), or none at all. n8n's clock is off from both (`skewMs` below), and either steps (`stepClock`).
 */
const dateOffsetMs = fc.oneof(
	{ weight: 4, arbitrary: fc.constant(0) },
	{ weight: 3, arbitrary: fc.integer({ min: -3_600_000, max: 3_600_000 }) },
	{ weight: 1, arbitrary: fc.constant(undefined) },
);
/** Server time per list request: instant, or slow enough that a walk takes as long as a poll's budget. */
const pageMs = fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 8_000 }) });

const timeline: fc.Arbitrary<Timeline> = fc.record({
	profile: fc.record({
		precision: fc.constantFrom('s' as const, 'ms' as const, 'us' as const),
		pageSize: fc.integer({ min: 1, max: 8 }),
		cursorLifeMs: fc.constantFrom(undefined, undefined, 30_000),
		dateOffsetMs,
		pageMs,
		cursor: fc.constantFrom('keyset' as const, 'keyset' as const, 'position' as const),
	}),
	settleMs: fc.constant(SETTLE_MS),
	maxChanges: fc.option(fc.integer({ min: 1, max: 15 }), { nil: undefined }),
	pagesPerPoll: fc.integer({ min: 1, max: 6 }),
	inFlight: fc.oneof(fc.constant(1), fc.integer({ min: 2, max: 4 })),
	order: fc.nat(1000),
	flaky: fc.boolean(),
	atLeastOnce: fc.boolean(),
	initial: fc.nat(30),
	steps: fc.array(step, { maxLength: 60 }),
	skewMs: fc.oneof(fc.constant(0), fc.integer({ min: -3_600_000, max: 3_600_000 })),
});

/**
 * Bulk imports at one timestamp up to 40,000, on servers with the API's page size, with polls
 * (of every fate) between the parts of an import that share one second, changes during walks,
 * filter edits and cursors that expire inside the group.
 */
const importSize = fc.oneof(fc.integer({ min: 1_000, max: 20_000 }), fc.constant(40_000));
const burst = fc.record({ kind: fc.constant('burst' as const), size: importSize, dept: fc.nat(2) });
const bulkStep = stepWith(fc.integer({ min: 1, max: 5_000 }));

const bulkTimeline: fc.Arbitrary<Timeline> = fc.record({
	profile: fc.record({
		precision: fc.constantFrom('s' as const, 'ms' as const, 'us' as const),
		pageSize: fc.constant(100),
		cursorLifeMs: fc.constantFrom(undefined, 30_000),
		// With a Date header (a server without one re-reads its window of 40,000 every idle poll: the
		// small timelines cover it).
		dateOffsetMs: fc.oneof(fc.constant(0), fc.integer({ min: -3_600_000, max: 3_600_000 })),
		pageMs: fc.constant(0),
		cursor: fc.constantFrom('keyset' as const, 'position' as const),
	}),
	settleMs: fc.constant(SETTLE_MS),
	// A poll reads thousands here (tens of pages, a cap in the thousands): fewer polls per pass keep a run short.
	maxChanges: fc.option(fc.integer({ min: 1_000, max: 10_000 }), { nil: undefined }),
	pagesPerPoll: fc.integer({ min: 20, max: 100 }),
	inFlight: fc.oneof(fc.constant(1), fc.integer({ min: 2, max: 16 })),
	order: fc.nat(1000),
	flaky: fc.constant(false),
	atLeastOnce: fc.boolean(),
	initial: fc.nat(30),
	// Always an import, and a poll while it is half done: its second part shares the first one's second.
	steps: fc
		.tuple(
			fc.array(bulkStep, { maxLength: 4 }),
			burst,
			fc.record({ kind: fc.constant('poll' as const), fate, during: fc.array(fc.record({ record: fc.nat(40), dept: fc.nat(2) }), { maxLength: 3 }) }),
			fc.record({ kind: fc.constant('burst' as const), size: fc.integer({ min: 1, max: 5_000 }), dept: fc.nat(2) }),
			fc.array(bulkStep, { maxLength: 6 }),
		)
		.map(([before, first, poll, second, after]) => [...before, first, poll, second, ...after]),
	skewMs: fc.oneof(fc.constant(0), fc.integer({ min: -3_600_000, max: 3_600_000 })),
});

/** Polls a quiet timeline may need: every record read once per pass, a pass every few polls, refusals and the cap included. */
function settleBound(run: TimelineRun, t: Timeline): number {
	const records = run.server.current.size + 1;
	const pages = Math.ceil(records / t.profile.pageSize) + 1;
	// Ranges side by side may spend a poll's pages on reads it cannot hand over yet: the first range gets one in `inFlight`.
	const perPass = Math.ceil((pages * t.inFlight) / t.pagesPerPoll) + (t.maxChanges === undefined ? 0 : Math.ceil(records / t.maxChanges));
	// A read that fails (one in 11) fails a poll when it is the first range's: twice the polls covers it.
	// Without a Date header the window never shrinks while quiet: every pass reads all of it.
	return (t.flaky ? 2 : 1) * (t.profile.dateOffsetMs === undefined ? 2 : 1) * (4 * (perPass + 2) + 10);
}

const replay = process.env.FEED_SEED === undefined ? {} : { seed: Number(process.env.FEED_SEED), path: process.env.FEED_PATH };

const runs = Number(process.env.FEED_RUNS ?? 1500);

/** Timelines whose polls cut ranges and handed one over whole: the ranges were exercised, not only generated. */
const exercised = { timelines: 0, cut: 0, handedOver: 0 };

function holds(t: Timeline): void {
	const run = new TimelineRun(t);
	exercised.timelines++;
	for (const s of t.steps) run.apply(s);
	run.settle(settleBound(run, t));
	if (run.rangesCut > 0) exercised.cut++;
	if (run.rangesHandedOver > 0) exercised.handedOver++;
	const violations = run.violations();
	if (violations.length > 0) throw new Error(`${violations.length} violations, first: ${violations.slice(0, 3).join('; ')}`);
	// Nothing can change any more: the memory holds nothing (bounded by the window, never by
	// history). A server without a Date header never shows the time passing: the window up to
	// the newest change stays remembered (and re-read) until a newer change comes.
	if (t.profile.dateOffsetMs !== undefined) expect(memorySize(run.state)).toBe(0);
	else expect(memorySize(run.state)).toBeLessThanOrEqual(run.server.versions.length + t.initial);
	expect(run.state.pass).toBeNull();
	// While changes could still come, it held no more than the versions of the window (and its bound).
	expect(run.largestMemory).toBeLessThanOrEqual(Math.min(MEMORY_MAX, run.server.versions.length + t.initial));
}

describe('change feed: generated timelines against the reference ledger', () => {
	it('sends every change once (marked when possibly repeated), and keeps no state once nothing can change', () => {
		Object.assign(exercised, { timelines: 0, cut: 0, handedOver: 0 });
		fc.assert(fc.property(timeline, holds), { numRuns: runs, ...replay });
		console.log(`[change feed] ${exercised.timelines} timelines: ranges cut in ${exercised.cut}, one handed over whole in ${exercised.handedOver}`);
		if (replay.seed === undefined) expect(exercised.handedOver).toBeGreaterThan(runs / 20);
	});

	it('bulk imports of up to 40,000 at one timestamp, read over many polls: every change once, state within its bound', () => {
		// Each timeline reads tens of thousands of records several times: one in 250 of the runs above.
		fc.assert(fc.property(bulkTimeline, holds), { numRuns: Math.max(4, Math.ceil(runs / 250)), ...replay });
	});
});
