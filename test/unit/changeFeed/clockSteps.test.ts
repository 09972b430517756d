/**
 * The change feed when a clock steps (named regressions beside the model test's generated ones):
 * the server's Date clock or n8n's, forward or back, between polls and inside a pass. The time
 * since a record was read is believed on whichever clock shows less, and a pass's start on
 * whichever shows more (feedClock.ts), so a step of one clock costs reads at most, never a change.
 */
import type { Step, Timeline } from './timeline';
import { memorySize, TimelineRun } from './timeline';

const HOUR = 3_600_000;
const commit = (record: number, lateMs = 0): Step => ({ kind: 'commit', record, dept: 0, lateMs });
const poll: Step = { kind: 'poll', fate: 'taken', during: [] };
const advance = (ms: number): Step => ({ kind: 'advance', ms });
const stepClock = (clock: 'date' | 'n8n', ms: number): Step => ({ kind: 'stepClock', clock, ms });

function timeline(steps: Step[], overrides: Partial<Timeline> = {}): Timeline {
	return {
		profile: { precision: 'ms', pageSize: 1, dateOffsetMs: 0, cursor: 'keyset' },
		settleMs: 60_000,
		pagesPerPoll: 1,
		inFlight: 1,
		order: 0,
		flaky: false,
		atLeastOnce: false,
		initial: 0,
		skewMs: 0,
		steps,
		...overrides,
	};
}

/** Runs the steps, then quiet polls: every change once, nothing unmarked twice, no state left. */
function holds(t: Timeline): void {
	const run = new TimelineRun(t);
	for (const step of t.steps) run.apply(step);
	run.settle(200);
	expect(run.violations()).toEqual([]);
	expect(memorySize(run.state)).toBe(0);
}

describe('change feed: a clock that steps', () => {
	it.each(['date', 'n8n'] as const)('the %s clock steps forward two hours between polls: a change after it is sent', (clock) => {
		holds(timeline([commit(0), poll, stepClock(clock, 2 * HOUR), poll, commit(1), advance(2_000), poll, commit(2, 50_000), poll]));
	});

	it.each(['date', 'n8n'] as const)('the %s clock steps back an hour between polls: nothing is lost, and the state empties once quiet', (clock) => {
		holds(timeline([commit(0), poll, stepClock(clock, -HOUR), advance(5_000), commit(1), poll, commit(2, 30_000), poll]));
	});

	it('the Date clock steps forward, then n8n\'s after a poll between them: each step is measured against the clock that had not stepped', () => {
		holds(timeline([commit(0), poll, stepClock('date', HOUR), poll, advance(1_000), stepClock('n8n', HOUR), poll, commit(1), advance(2_000), poll, commit(2, 50_000), poll]));
	});

	it('the Date clock steps back inside a pass that reads a new record at its end: the pass starts where its first page was, and a late commit before it is sent', () => {
		// One record a page, one page a poll: the pass over five records spans polls. A record
		// committed 40 s late lands behind the walk; the next pass must read it from the first
		// page's time less the window, not from the time of the record read at the pass's end.
		const records = [1, 2, 3, 4, 5].map((record) => commit(record));
		holds(timeline([poll, ...records, advance(25_000), poll, advance(10_000), commit(9, 40_000), advance(25_000), stepClock('date', -HOUR), commit(10), poll, poll, poll, poll, poll, poll, poll, poll]));
	});
});
