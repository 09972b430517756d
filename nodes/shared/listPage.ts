import type { IDataObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { QUERY } from './apiChoices';
import type { ApiContext, ApiRequest } from './transport';
import { apiRequest } from './transport';

/**
 * One page of a list endpoint, as far as the server can be believed. Every listing reads its pages
 * here: the paginator (Get Many, the trigger's page walks), the trigger's single-page probes and
 * the record locator's list search.
 */
export interface ListPage {
	/** The records, at most as many as were asked for. */
	records: IDataObject[];
	hasNextPage: boolean;
	/** Where the next page starts; set exactly when `hasNextPage` is. */
	endCursor: string | undefined;
	/**
	 * How many records the whole list holds, when the server says so believably (see `believableCount`);
	 * undefined otherwise (the spec gives none under a condition).
	 */
	totalCount: number | undefined;
}

export interface PageWanted {
	/** `pagination[first]`: how many records at most. */
	first: number;
	/** `pagination[after]`: the previous page's end cursor; undefined for the first page. */
	after?: string;
	/** The item an error belongs to (Get Many in a loop of items). */
	itemIndex?: number;
}

const isObject = (value: unknown): value is IDataObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** What a value is, for messages: never the value itself (it may be anything the server sent). */
function describe(value: unknown): string {
	if (value === undefined) return 'missing';
	if (value === null) return 'null';
	if (typeof value === 'string') return value === '' ? 'an empty string' : 'a string';
	return Array.isArray(value) ? 'an array' : `${typeof value === 'object' ? 'an object' : `a ${typeof value}`}`;
}

/**
 * The spec never says where `total_count` lives: servers put it in `pagination` or at the top of
 * the body. A count is believed only when it is a whole number that fits the page (no fewer than
 * the records on it; more exactly when another page follows) and, when both places give one, they
 * agree. Anything else counts as no count: the trigger then reads exactly, page by page.
 */
function believableCount(body: IDataObject, pagination: IDataObject, records: number, hasNextPage: boolean): number | undefined {
	const given = [pagination.total_count, body.total_count].filter((count) => count !== undefined && count !== null);
	const [count] = given;
	if (typeof count !== 'number' || given.some((other) => other !== count)) return undefined;
	if (!Number.isInteger(count) || count < records) return undefined;
	return (hasNextPage ? count > records : count === records) ? count : undefined;
}

/**
 * Sends one list request for `wanted` and checks the answer: the transport has made sure of a JSON
 * object with a `data` array of records; here a `pagination` object must say with true or false
 * whether more pages exist and, when they do, give a cursor to them. Otherwise the listing stops
 * with an error naming the endpoint, rather than guess whether records are missing.
 */
export async function readListPage(this: ApiContext, request: ApiRequest, wanted: PageWanted): Promise<ListPage> {
	const stop = (why: string) => new NodeOperationError(this.getNode(), `${request.method} ${request.path}: ${why}`, { itemIndex: wanted.itemIndex });
	const body: unknown = await apiRequest.call(this, {
		...request,
		expect: 'list',
		query: { ...request.query, [QUERY.first]: wanted.first, [QUERY.after]: wanted.after },
	});
	const data = isObject(body) ? body.data : undefined;
	if (!isObject(body) || !Array.isArray(data) || !data.every(isObject)) {
		throw stop(`the answer has no "data" array of records (got ${describe(data)}); stopped instead of guessing`);
	}
	const { pagination } = body;
	if (!isObject(pagination)) {
		throw stop(`the answer has no "pagination" object (got ${describe(pagination)}); stopped instead of guessing whether more pages exist`);
	}
	const { has_next_page: hasNextPage, end_cursor: endCursor } = pagination;
	if (typeof hasNextPage !== 'boolean') {
		throw stop(`"pagination.has_next_page" is ${describe(hasNextPage)}, expected true or false; stopped instead of guessing`);
	}
	const cursor = typeof endCursor === 'string' && endCursor !== '' ? endCursor : undefined;
	if (hasNextPage && cursor === undefined) {
		throw stop(
			`the API said more records exist but "pagination.end_cursor" is ${describe(endCursor)}, expected a cursor; stopped instead of asking for the same pages again`,
		);
	}
	// At most `first`: a server that ignores it must not make a listing longer than its limit.
	const records = data.slice(0, wanted.first);
	return {
		records,
		hasNextPage,
		endCursor: hasNextPage ? cursor : undefined,
		totalCount: believableCount(body, pagination, records.length, hasNextPage),
	};
}
