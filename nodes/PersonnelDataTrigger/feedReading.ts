import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { PAGE_SIZE_MAX } from '../shared/apiChoices';
import { toNodeError } from '../shared/errors';
import { type ListPage, readListPage } from '../shared/listPage';
import { MAX_IN_FLIGHT_DEFAULT, rangeTiming, WaitingMeter } from '../shared/rangeWorth';
import { ADAPTIVE_START, AdaptiveLimit } from '../shared/transport/adaptiveLimit';
import { type AttemptReport, gateFor } from '../shared/transport/rateGate';
import { FeedPoll } from './changeFeed';
import type { RangeRead } from './feedRanges';
import { FeedRanges } from './feedRanges';
import { eventKey } from './feedMemory';
import type { Delivery, FeedRecord, FeedState, ServerTime } from './feedState';
import { FeedError } from './feedState';
import { isCursorRefusal } from './boundedWalk';
import { changeFieldsOf } from './events';
import { readBudgetSpent } from './pollBudget';
import { missingChangeField } from './serverSupport';
import { versionContent } from './versionContent';
import type { PollRun, PollSetup } from './setup';
import { fieldFilter, listRequest, newestOverall, oldestFirst } from './setup';

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
	const content = setup.field === changeFieldsOf(setup.resource).updated ? versionContent(setup.resource, record) : '';
	return { id: String(id), at, content, record };
}

/**
 * One poll's reading of the feed: `stored` is the feed's state, `confirmed` whether this process
 * stored it (the poll that made it was taken by n8n). Stops reading when the poll's read budget
 * is spent; the feed keeps where it got to. A pass with pages ahead, read while the node mostly
 * waited for them (rangeWorth.ts), is read in ranges side by side (feedRanges.ts), as many at
 * once as the API answers as quickly, adapting as Return All's ranges do.
 */
export async function readFeed(this: IPollFunctions, setup: PollSetup, stored: FeedState, run: PollRun, confirmed: boolean): Promise<FeedReading> {
	const feed = new FeedPoll<ListedRecord>(stored, setup.feed, confirmed);
	const ranges = new FeedRanges<ListedRecord>(feed);
	const endpoint = `GET ${String(setup.resource.paths.list)}`;
	// It starts where the writes' limit does: a server that takes few at once refuses no more than writes would.
	const limit = new AdaptiveLimit(MAX_IN_FLIGHT_DEFAULT, ADAPTIVE_START, true);
	const gate = gateFor(this);
	const observer = (report: AttemptReport) => limit.report(report, out.size);
	const out = new Set<Promise<void>>();
	let inRanges = false;
	// How much of the first page's time the node waited (for the network and the server): ranges pay when it mostly waited.
	const meter = new WaitingMeter();
	let pages = 0;
	let spent = false;
	let probing = false;
	let failure: { error: unknown } | undefined;

	const onPage = (read: RangeRead, page: ListPage, serverTime: ServerTime | undefined) => {
		pages++;
		run.lease.progress();
		const records = page.records.map((record) => listed(this, setup, record));
		ranges.page(read, { records, endCursor: page.endCursor, hasNextPage: page.hasNextPage, ...(serverTime === undefined ? {} : { serverTime }) });
		if (pages === 1 && page.hasNextPage && meter.stop() >= rangeTiming.worthWaitingShare) probeNewest(page.totalCount === undefined ? undefined : page.totalCount - page.records.length);
	};
	// Where the listing ends (one request beside the first range's next page): ranges are cut over the span left.
	const probeNewest = (left: number | undefined) => {
		const probe: Promise<void> = newestOverall
			.call(this, setup, run)
			.then(
				(newest) => ranges.allowRanges(MAX_IN_FLIGHT_DEFAULT, PAGE_SIZE_MAX, newest, left, setup.feed.maxChanges),
				() => ranges.allowRanges(MAX_IN_FLIGHT_DEFAULT, PAGE_SIZE_MAX, null, undefined, setup.feed.maxChanges),
			)
			.then(() => {
				inRanges = true;
				gate.observe(observer);
			})
			.finally(() => {
				out.delete(probe);
				probing = false;
			});
		probing = true;
		out.add(probe);
	};
	const onFailure = (read: RangeRead, error: unknown) => {
		const refused = read.after !== undefined && isCursorRefusal(error);
		if (refused) this.logger.info('Personnel Data Trigger: the API no longer accepts the cursor a listing stopped at; reading again from where it got to');
		if (!ranges.failed(read, refused)) return;
		// A request cut by the poll's deadline ends the poll with what it read.
		if (pages > 0 && readBudgetSpent(run.clock)) spent = true;
		else failure ??= { error };
	};
	const start = (read: RangeRead) => {
		const query = { ...setup.query, ...oldestFirst(setup), ...(read.from === null ? {} : fieldFilter(setup, 'gte', read.from)) };
		// A page refused with 429 and no delay goes again once another read ends (retryPolicy.ts):
		// it stays counted among those out, so the limit holds while it waits.
		const retryOnASlot = async () => {
			const others = [...out].filter((other) => other !== request);
			if (others.length === 0) return false;
			await Promise.race(others);
			return true;
		};
		// The server's own clock, from the answer's Date header (changeFeed.ts: never n8n's).
		let serverTime: ServerTime | undefined;
		const onServerTime = (time: ServerTime | undefined) => void (serverTime = time);
		const request: Promise<void> = readListPage
			.call(this, { ...listRequest(setup, query, run), retryOnASlot, onServerTime }, { first: PAGE_SIZE_MAX, after: read.after })
			.then(
				(page) => onPage(read, page, serverTime),
				(error: unknown) => onFailure(read, error),
			)
			.catch((error: unknown) => void (failure ??= { error }))
			.finally(() => out.delete(request));
		out.add(request);
	};

	try {
		for (;;) {
			if (pages > 0 && readBudgetSpent(run.clock)) spent = true;
			if (!spent && failure === undefined) {
				// The probe goes beside the first range's next page, not instead of it.
				const free = (inRanges ? limit.current() : 1) - (out.size - (probing ? 1 : 0));
				if (free > 0) for (const read of ranges.next(free)) start(read);
			}
			if (out.size === 0) break;
			await Promise.race(out);
		}
		if (failure !== undefined) throw failure.error;
		const { deliveries, state } = ranges.finish();
		return { deliveries, feed: state, warnings: feed.warnings, settledEarly: feed.settledEarly };
	} catch (error) {
		if (error instanceof FeedError) throw new NodeOperationError(this.getNode(), `${endpoint}: ${error.message}`);
		throw toNodeError(this.getNode(), error);
	} finally {
		gate.unobserve(observer);
	}
}
