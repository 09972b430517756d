import type { INodeProperties, IPollFunctions } from 'n8n-workflow';

import { checkWholeNumber } from '../shared/validation';

/**
 * How long one poll may read. n8n's durable scheduler (n8n ≥ 2.33 with
 * N8N_SCHEDULER_POLL_TRIGGERS_ENABLED) abandons a poll still running at its poll timeout
 * (N8N_SCHEDULER_POLL_TIMEOUT, 45 s by default): it keeps no result, commits no state and backs
 * off, while the poll itself goes on in the background. So every poll stops reading in time, hands
 * over what it read, and leaves the rest to the next poll (docs/trigger.md: Time budget).
 *
 * n8n 2.41 tells a poll its budget (`getPollBudgetMs`: the timeout less a margin, 36 s of the
 * default 45 s; five minutes where no scheduler sets one). Older n8n (2.8) has no such method and
 * no poll timeout; the same default keeps its polls, and their executions, bounded too.
 */

/** Reading stops after this long by default: below the 36 s n8n 2.41 gives a poll by default. */
export const DEFAULT_READ_BUDGET_SECONDS = 30;

/** Of the budget n8n gives, the share spent starting page requests; the rest lets the last one end. */
const READ_SHARE = 0.7;

/** A poll may end this much after its read budget (on n8n without a budget of its own): its last page, then the hand-over. */
const LAST_REQUEST_MS = 15_000;

/**
 * Of the time between the end of the read budget and the poll's end, the share a page request
 * may still take; the rest hands over what was read. A page cut there ends the walk with the pages
 * before it, so every poll whose first page fits moves the trigger on: cut at the poll's end
 * instead, a page started late in the read budget on a slow server would make every poll store
 * nothing and the next one read the same pages again, for ever.
 */
export const PAGE_SHARE_OF_SLACK = 0.5;

/** What n8n-core gives a poll when no scheduler sets a budget (PollContext's default). */
const N8N_DEFAULT_BUDGET_MS = 5 * 60_000;

export const timeBudgetOption: INodeProperties = {
	displayName: 'Time Budget per Poll (Seconds)',
	name: 'timeBudgetSeconds',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: DEFAULT_READ_BUDGET_SECONDS },
	default: DEFAULT_READ_BUDGET_SECONDS,
	description: `How long one poll reads before it sends what it has and leaves the rest to the next poll (at most ${DEFAULT_READ_BUDGET_SECONDS}). On n8n's durable scheduler the poll also keeps within the budget n8n gives it, whichever is shorter.`,
};

/** The poll context of n8n ≥ 2.41; n8n-workflow 2.8's types have no such method. */
type WithPollBudget = IPollFunctions & { getPollBudgetMs?: () => number };

export interface PollClock {
	startedAt: number;
	/** No page request starts after this (epoch ms). */
	readUntil: number;
	/** Every page request, retries included, is over by this (epoch ms): the time after it hands over. */
	pagesUntil: number;
	/** The poll is over by this; a poll that ends later stores nothing. */
	hardUntil: number;
	/** The budget n8n gave (ms); undefined on n8n without one (2.8). */
	n8nBudgetMs: number | undefined;
	/**
	 * True on a poll the durable scheduler runs: n8n builds its context for that poll alone, may
	 * abandon it, and commits its state only when it returns in time.
	 */
	scheduled: boolean;
}

export function pollClock(context: IPollFunctions, option: unknown, now = Date.now()): PollClock {
	const seconds = option === undefined || option === '' ? DEFAULT_READ_BUDGET_SECONDS : checkWholeNumber(option, 'Options › Time Budget per Poll (Seconds)', 1, DEFAULT_READ_BUDGET_SECONDS);
	const told = (context as WithPollBudget).getPollBudgetMs;
	const n8nBudgetMs = typeof told === 'function' ? told.call(context) : undefined;
	const known = typeof n8nBudgetMs === 'number' && Number.isFinite(n8nBudgetMs) && n8nBudgetMs > 0 ? n8nBudgetMs : undefined;
	const readMs = Math.min(seconds * 1000, known === undefined ? Infinity : known * READ_SHARE);
	const hardMs = Math.min(readMs + LAST_REQUEST_MS, known ?? Infinity);
	return {
		startedAt: now,
		readUntil: now + readMs,
		pagesUntil: now + readMs + Math.floor((hardMs - readMs) * PAGE_SHARE_OF_SLACK),
		hardUntil: now + hardMs,
		n8nBudgetMs: known,
		scheduled: known !== undefined && known !== N8N_DEFAULT_BUDGET_MS,
	};
}

/** Whether the read budget is used up: the walk hands over what it has instead of reading on. */
export const readBudgetSpent = (clock: PollClock, now = Date.now()): boolean => now >= clock.readUntil;

/** Whether n8n can still take this poll's result (it abandons the poll at its timeout). */
export const stillInTime = (clock: PollClock, now = Date.now()): boolean => now < clock.hardUntil;
