import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { PAGE_SIZE_MAX } from '../shared/apiChoices';
import { toNodeError } from '../shared/errors';
import { readListPage } from '../shared/listPage';
import { canonicalJson } from '../shared/canonicalJson';
import { FeedPoll } from './changeFeed';
import { eventKey } from './feedMemory';
import type { Delivery, FeedRecord, FeedState } from './feedState';
import { FeedError } from './feedState';
import { isCursorRefusal } from './boundedWalk';
import { changeFieldsOf } from './events';
import { readBudgetSpent } from './pollBudget';
import { missingChangeField } from './serverSupport';
import type { PollRun, PollSetup } from './setup';
import { fieldFilter, listRequest, oldestFirst } from './setup';

/**
 * The glue between the change feed (changeFeed.ts, where every decision is made) and the API:
 * it makes the list requests the feed asks for, within the poll's time budget, and hands each
 * checked page back. Nothing here decides what is sent or remembered.
 */

/** A listed record as the feed sees it, with the record itself. */
export interface ListedRecord extends FeedRecord {
	record: IDataObject;
}

export interface FeedReading {
	deliveries: Array<Delivery<ListedRecord>>;
	feed: FeedState;
	warnings: string[];
	/** The memory reached its bound this poll: versions before this time counted as settled early. */
	settledEarly: string | null;
}

/** The event key of a listed record (changeFeed.ts `eventKey`): what Fetch Test Event shows too. */
export function eventKeyOf(context: IPollFunctions, setup: PollSetup, record: IDataObject): string {
	return eventKey(listed(context, setup, record));
}

function listed(context: IPollFunctions, setup: PollSetup, record: IDataObject): ListedRecord {
	const at = record[setup.field];
	const id = record.id;
	// The walk asks only for records with a change time: one without it (or without an id) is a server that lacks the field.
	if (typeof at !== 'string' || at === '' || (typeof id !== 'string' && typeof id !== 'number')) throw missingChangeField(context, setup);
	// Two versions at one update time differ in content (a second change in the same second); a
	// creation or a deletion happens once, whatever changes after it.
	const content = setup.field === changeFieldsOf(setup.resource).updated ? canonicalJson(record) : '';
	return { id: String(id), at, content, record };
}

/**
 * One poll's reading of the feed: `stored` is the feed's state, `confirmed` whether this process
 * stored it (the poll that made it was taken by n8n). Stops reading when the poll's read budget
 * is spent; the feed keeps where it got to.
 */
export async function readFeed(this: IPollFunctions, setup: PollSetup, stored: FeedState, run: PollRun, confirmed: boolean): Promise<FeedReading> {
	const feed = new FeedPoll<ListedRecord>(stored, setup.feed, Date.now(), confirmed);
	const endpoint = `GET ${String(setup.resource.paths.list)}`;
	let pages = 0;
	try {
		for (let read = feed.nextRead(); read !== null; read = feed.nextRead()) {
			if (pages > 0 && readBudgetSpent(run.clock)) {
				feed.stop();
				break;
			}
			const query = { ...setup.query, ...oldestFirst(setup), ...(read.from === null ? {} : fieldFilter(setup, 'gte', read.from)) };
			let page;
			try {
				page = await readListPage.call(this, listRequest(setup, query, run), { first: PAGE_SIZE_MAX, after: read.after });
			} catch (error) {
				if (read.after !== undefined && isCursorRefusal(error)) {
					this.logger.info('Personnel Data Trigger: the API no longer accepts the cursor the last poll stopped at; reading again from where it got to');
					feed.refused();
					continue;
				}
				// A request cut by the poll's deadline ends the poll with what it read.
				if (pages > 0 && readBudgetSpent(run.clock)) {
					feed.stop();
					break;
				}
				throw toNodeError(this.getNode(), error);
			}
			pages++;
			run.lease.progress();
			feed.page({ records: page.records.map((record) => listed(this, setup, record)), endCursor: page.endCursor, hasNextPage: page.hasNextPage });
		}
		const { deliveries, state } = feed.finish();
		return { deliveries, feed: state, warnings: feed.warnings, settledEarly: feed.settledEarly };
	} catch (error) {
		if (error instanceof FeedError) throw new NodeOperationError(this.getNode(), `${endpoint}: ${error.message}`);
		throw toNodeError(this.getNode(), error);
	}
}
