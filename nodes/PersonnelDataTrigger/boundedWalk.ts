import type { IPollFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { toNodeError } from '../shared/errors';
import type { WalkedPage } from '../shared/pagination';
import { walkPages } from '../shared/pagination';
import type { Query } from '../shared/transport';
import { readBudgetSpent } from './pollBudget';
import type { PollRun, PollSetup } from './setup';
import { fieldFilter, listRequest, oldestFirst } from './setup';

/**
 * A page walk of one poll that stops when the poll's read budget is spent (or when its reader
 * stops it), at a point the next poll goes on from: the server's cursor after the last page the
 * poll used. So a long reading (a burst of changes, a group of thousands sharing one timestamp,
 * an activation or a backfill) spreads over several bounded polls, and each of them costs the
 * pages still to read, not the pages already read.
 */

/** What a walk reads: its filter on the change field (`from` null: none). */
export interface WalkPlan {
	op: 'eq' | 'gt' | 'gte';
	from: string | null;
}

/** The query of a walk over the changes, oldest first (a resumed walk must repeat it exactly). */
export function walkQuery(setup: PollSetup, base: Query, plan: WalkPlan): Query {
	return { ...base, ...oldestFirst(setup), ...(plan.from === null ? {} : fieldFilter(setup, plan.op, plan.from)) };
}

/** The server refused a stored cursor (expired, or from another deployment): read afresh. */
export function isCursorRefusal(error: unknown): boolean {
	return error instanceof NodeApiError && ['400', '404', '410', '422'].includes(error.httpCode ?? '');
}

export class BoundedWalk {
	/** True once the server said there is no next page. */
	complete = false;
	/** The cursor after the last page used; undefined: none yet (the walk starts over). */
	private resumeAfter: string | undefined;
	private currentAfter: string | undefined;
	private pagesRead = 0;

	constructor(
		private readonly context: IPollFunctions,
		private readonly setup: PollSetup,
		private readonly run: PollRun,
		private readonly query: Query,
		/** Go on after this cursor (a stored `Resume`). */
		private readonly after?: string,
		/** Requests the walk sent in earlier polls: Max Requests bounds the whole walk, not each poll. */
		private readonly spent = 0,
	) {
		this.resumeAfter = after;
	}

	/** Whether this walk goes on from a stored cursor: it may show again what was sent before the watermark. */
	get resumed(): boolean {
		return this.after !== undefined;
	}

	/** The cursor the next poll goes on after; undefined when the walk got to the end or has none yet. */
	get stoppedAfter(): string | undefined {
		return this.complete ? undefined : this.resumeAfter;
	}

	/** Requests of this walk so far, earlier polls' included. */
	get requests(): number {
		return this.spent + this.pagesRead;
	}

	/** The reader stops inside the page it was given: the next poll reads that page again. */
	stopInPage(): void {
		this.resumeAfter = this.currentAfter;
	}

	/**
	 * The pages, until the last one or until the read budget is spent. A request that fails once the
	 * budget is spent (the poll's deadline cut it short) ends the walk where it stands, so the pages
	 * read so far are handed over; any earlier failure is the poll's error.
	 */
	async *pages(): AsyncGenerator<WalkedPage> {
		const request = listRequest(this.setup, this.query, this.run);
		const iterator = walkPages.call(this.context, request, { maxRequests: this.setup.maxRequests, after: this.after, spent: this.spent });
		try {
			for (;;) {
				let next: IteratorResult<WalkedPage>;
				try {
					next = await iterator.next();
				} catch (error) {
					if (this.pagesRead === 0 || !readBudgetSpent(this.run.clock)) throw toNodeError(this.context.getNode(), error);
					this.context.logger.info(`Personnel Data Trigger: a page request ran past this poll's time budget; the next poll goes on from the last page read`);
					return;
				}
				if (next.done) {
					this.complete = true;
					return;
				}
				const page = next.value;
				this.pagesRead++;
				this.run.lease.progress();
				this.currentAfter = page.after;
				yield page;
				if (!page.hasNextPage) {
					this.complete = true;
					return;
				}
				this.resumeAfter = page.endCursor;
				if (readBudgetSpent(this.run.clock)) return;
			}
		} finally {
			await iterator.return(undefined);
		}
	}
}
