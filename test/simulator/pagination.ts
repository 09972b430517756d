import { badRequest } from './errors';
import { isQueryObject, type QueryValue } from './query';

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

export function parsePagination(raw: QueryValue | undefined): PageRequest {
	if (raw === undefined) return { direction: 'forward', size: DEFAULT_PAGE_SIZE, cursorParameter: 'pagination[after]' };
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
	const size = parseSize(`pagination[${sizeName}]`, raw[sizeName]);
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

/** Page sizes above 100 are capped silently, as the spec says. */
function parseSize(name: string, raw: QueryValue | undefined): number {
	if (raw === undefined) return DEFAULT_PAGE_SIZE;
	if (typeof raw !== 'string' || !/^\d+$/.test(raw) || Number(raw) < 1) {
		throw paginationError('invalid_value', `${name}: ${JSON.stringify(raw)} is not a positive integer`);
	}
	return Math.min(Number(raw), MAX_PAGE_SIZE);
}
