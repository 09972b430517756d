import { createHash } from 'node:crypto';
import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { HTTP, PAGE_SIZE_MAX } from './apiChoices';
import { idKey } from './ids';
import type { ListPage } from './listPage';
import { readListPage } from './listPage';
import type { ApiContext, ApiRequest } from './transport';
import { redactShapes } from './transport/redact';
import { checkWholeNumber } from './validation';

/** Options → Max Requests of the list operations and the trigger. */
export const maxRequestsOption: INodeProperties = {
	displayName: 'Max Requests',
	name: 'maxRequests',
	type: 'number',
	typeOptions: { minValue: 1 },
	default: 30000,
	description:
		'The most requests one listing may send before it stops with an error. Pages under a condition can be short or empty, so a large organization may need many; raise it if a legitimate listing reaches it.',
};

export interface PageOptions {
	/** Stop after this many records; undefined: every record. */
	limit?: number;
	/** Requests this walk may send (Options → Max Requests, checked by readMaxRequests); the package's default when undefined. */
	maxRequests?: number;
	itemIndex?: number;
	/** Start after this cursor (a walk a trigger poll stopped in); undefined: from the first page. */
	after?: string;
	/** Requests the same listing sent before (earlier polls of a trigger): they count against `maxRequests`. */
	spent?: number;
}

/** One page of a walk, and the cursor it was asked for with (undefined: the first page). */
export interface WalkedPage extends ListPage {
	after: string | undefined;
}

/** A cursor for messages: the server's text, shortened and free of anything token-shaped. */
function shown(cursor: string): string {
	const text = redactShapes(cursor);
	return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}

/** The most a user may set: bounded, so a typo cannot turn a runaway walk into an endless one. */
const MAX_REQUESTS_CEILING = 10_000_000;

/** Options → Max Requests as given (an expression may give text): a whole number, or a named error. */
export function readMaxRequests(value: unknown): number {
	return value === undefined || value === '' ? HTTP.walkMaxRequests : checkWholeNumber(value, 'Options › Max Requests', 1, MAX_REQUESTS_CEILING);
}

/**
 * Follows `end_cursor` forward until the server says there is no next page. Pages may be short or
 * empty (a condition reads a bounded number of records per request), so only `has_next_page`
 * ends the walk, and the server is not trusted to end it: each page is checked by `readListPage`,
 * and the walk stops with an error naming the endpoint when a cursor comes back that it already
 * followed (any cycle; cursors are remembered as digests), when a record comes twice, or when the
 * request budget runs out. Yields one page at a time, with its cursors.
 */
export async function* walkPages(
	this: ApiContext,
	request: ApiRequest,
	options: PageOptions = {},
): AsyncGenerator<WalkedPage> {
	const { limit, itemIndex } = options;
	const budget = options.maxRequests ?? HTTP.walkMaxRequests;
	const endpoint = `${request.method} ${request.path}`;
	const stop = (why: string) => new NodeOperationError(this.getNode(), `${endpoint}: ${why}`, { itemIndex });
	const digestOf = (cursor: string) => createHash('sha256').update(cursor).digest('base64');
	const followed = new Set<string>(options.after === undefined ? [] : [digestOf(options.after)]);
	const ids = new Set<string>();
	let after = options.after;
	let fetched = 0;
	let requests = options.spent ?? 0;
	while (limit === undefined || fetched < limit) {
		if (requests >= budget) {
			throw stop(
				`stopped after ${requests} requests without reaching the last page (Options → Max Requests is ${budget}); raise Max Requests if this listing is legitimately that long, or narrow it with filters`,
			);
		}
		const first = limit === undefined ? PAGE_SIZE_MAX : Math.min(PAGE_SIZE_MAX, limit - fetched);
		requests++;
		const page = await readListPage.call(this, request, { first, after, itemIndex });
		for (const record of page.records) {
			const id = record.id;
			if (typeof id !== 'string' && typeof id !== 'number') continue;
			if (ids.has(idKey(id))) {
				throw stop(`the API sent record ${redactShapes(String(id))} twice in one listing; stopped instead of returning it twice`);
			}
			ids.add(idKey(id));
		}
		fetched += page.records.length;
		yield { ...page, after };

		if (page.endCursor === undefined) return;
		const next = page.endCursor;
		const digest = digestOf(next);
		if (followed.has(digest)) {
			throw stop(`the API sent cursor ${shown(next)} again after ${requests} requests (pages in a loop); stopped instead of asking for the same pages again`);
		}
		followed.add(digest);
		after = next;
	}
}

/** The records of `walkPages`, one page at a time. */
export async function* pagesOf(this: ApiContext, request: ApiRequest, options: PageOptions = {}): AsyncGenerator<IDataObject[]> {
	for await (const page of walkPages.call(this, request, options)) yield page.records;
}

export async function collectRecords(
	this: ApiContext,
	request: ApiRequest,
	options: PageOptions = {},
): Promise<IDataObject[]> {
	const records: IDataObject[] = [];
	for await (const page of pagesOf.call(this, request, options)) {
		for (const record of page) records.push(record);
	}
	return records;
}
