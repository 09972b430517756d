import type { IDataObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { PAGE_SIZE_MAX, QUERY } from './apiChoices';
import type { ApiContext, ApiRequest } from './transport';
import { apiRequest } from './transport';

interface CursorPage {
	data?: IDataObject[];
	pagination?: { end_cursor?: string | null; has_next_page?: boolean };
}

/**
 * The cursors followed lately, to stop a server that loops (A → B → A) as well as one that
 * repeats itself. Bounded, so a walk of any length keeps flat memory.
 */
class RecentCursors {
	private static readonly KEEP = 1000;

	private readonly cursors = new Set<string>();

	has(cursor: string): boolean {
		return this.cursors.has(cursor);
	}

	add(cursor: string): void {
		this.cursors.add(cursor);
		if (this.cursors.size > RecentCursors.KEEP) {
			this.cursors.delete(this.cursors.values().next().value as string);
		}
	}
}

export interface PageOptions {
	/** Stop after this many records; undefined: every record. */
	limit?: number;
	itemIndex?: number;
}

/**
 * Follows `end_cursor` forward until the server says there is no next page. Pages may be short or
 * empty (a condition reads a bounded number of records per request), so only `has_next_page`
 * ends the walk. Yields one page at a time: nothing here grows with the number of pages.
 */
export async function* pagesOf(
	this: ApiContext,
	request: ApiRequest,
	options: PageOptions = {},
): AsyncGenerator<IDataObject[]> {
	const { limit } = options;
	let after: string | undefined;
	let fetched = 0;
	const used = new RecentCursors();
	while (limit === undefined || fetched < limit) {
		const first = limit === undefined ? PAGE_SIZE_MAX : Math.min(PAGE_SIZE_MAX, limit - fetched);
		const page = await apiRequest.call<ApiContext, [ApiRequest], Promise<CursorPage>>(this, {
			...request,
			query: { ...request.query, [QUERY.first]: first, [QUERY.after]: after },
		});
		const records = (page.data ?? []).slice(0, first);
		fetched += records.length;
		yield records;

		if (!page.pagination?.has_next_page) return;
		const next = page.pagination.end_cursor ?? undefined;
		if (!next || used.has(next)) {
			throw new NodeOperationError(
				this.getNode(),
				`The API said more ${request.path} records exist but gave no new cursor (${next ? `pagination[after]=${next} was already used` : 'end_cursor is empty'}); stopped instead of asking for the same pages again`,
				{ itemIndex: options.itemIndex },
			);
		}
		used.add(next);
		after = next;
	}
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
