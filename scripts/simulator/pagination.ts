import { badRequest } from './errors';
import { isQueryObject, type QueryValue } from './query';
import type { ServerVariation } from './variations';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** A validated page request: forward (`first`/`after`) or backward (`last`/`before`). */
export interface PageRequest {
	direction: 'forward' | 'backward';
	size: number;
	cursor?: string;
	/** Name of the cursor parameter, for error messages. */
	cursorParameter: string;
}

export interface PaginationResult {
	end_cursor: string | null;
	start_cursor: string | null;
	has_next_page: boolean;
	has_previous_page: boolean;
	total_count?: number;
}

function paginationError(reason: string, message: string): Error {
	return badRequest('pagination', reason, message);
}

/** `sizes`: the server's default and maximum page size (variations.ts); the spec's 20 and 100 without. */
export function parsePagination(
	raw: QueryValue | undefined,
	sizes: Pick<ServerVariation, 'defaultPageSize' | 'maxPageSize'> = { defaultPageSize: DEFAULT_PAGE_SIZE, maxPageSize: MAX_PAGE_SIZE },
): PageRequest {
	if (raw === undefined) return { direction: 'forward', size: sizes.defaultPageSize, cursorParameter: 'pagination[after]' };
	if (!isQueryObject(raw)) throw paginationError('invalid_pagination', 'pagination: expected pagination[first] etc.');
	for (const key of Object.keys(raw)) {
		if (!['first', 'after', 'last', 'before'].includes(key)) {
			throw paginationError('unknown_parameter', `pagination[${key}]: unknown; expected first, after, last or before`);
		}
	}
	const backward = raw.last !== undefined || raw.before !== undefined;
	if (backward && (raw.first !== undefined || raw.after !== undefined)) {
		throw paginationError(
			'invalid_pagination',
			'pagination: use pagination[first] with pagination[after], or pagination[last] with pagination[before], not both',
		);
	}
	const sizeName = backward ? 'last' : 'first';
	const cursorName = backward ? 'before' : 'after';
	const size = parseSize(`pagination[${sizeName}]`, raw[sizeName], sizes);
	const cursor = raw[cursorName];
	if (cursor !== undefined && (typeof cursor !== 'string' || cursor === '')) {
		throw paginationError('invalid_cursor', `pagination[${cursorName}]: expected a cursor string`);
	}
	return {
		direction: backward ? 'backward' : 'forward',
		size,
		cursor,
		cursorParameter: `pagination[${cursorName}]`,
	};
}

/** Page sizes above the cap (100, the spec says) are capped silently. */
function parseSize(name: string, raw: QueryValue | undefined, sizes: Pick<ServerVariation, 'defaultPageSize' | 'maxPageSize'>): number {
	if (raw === undefined) return sizes.defaultPageSize;
	if (typeof raw !== 'string' || !/^\d+$/.test(raw) || Number(raw) < 1) {
		throw paginationError('invalid_value', `${name}: ${JSON.stringify(raw)} is not a positive integer`);
	}
	return Math.min(Number(raw), sizes.maxPageSize);
}
