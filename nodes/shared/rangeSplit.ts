import type { IDataObject } from 'n8n-workflow';

import { PAGE_SIZE_MAX } from './apiChoices';

/** One range: records with lower ≤ timestamp < upper (ms; undefined: unbounded), in the plan's direction. */
export interface Range<T = IDataObject> {
	lower?: number;
	upper?: number;
	records: T[];
	/** The first record the server sent this range (kept or not): the previous range's hand-over. */
	firstSeen?: T;
	/** The record past the range's end that stopped its walk; undefined: the listing ended. */
	stoppedAt?: T;
	/** For the first pages only: stop after this many, keeping the cursor in `after`. */
	pagesLeft?: number;
	after?: string;
	/** The timestamp of the last record read in this range (±Infinity before the first). */
	last: { time: number };
	/** Its walk has ended (past its end, the listing's end, or stopped). */
	done?: boolean;
	/** Where its last page began (timestamp) and the records it had before it: the density it shows. */
	from?: number;
	base?: number;
}

/** Splitting a range costs a request and about one page read twice: only a range with this many pages left is split. */
export const PAGES_WORTH_A_SPLIT = 2;

/** Where a range's walk stands and where it ends, in its direction: the span it has left (ms). */
function remaining<T>(range: Range<T>, asc: boolean, farEnd: number): { position: number; end: number } {
	if (asc) {
		const position = Number.isFinite(range.last.time) ? range.last.time : (range.lower ?? farEnd);
		return { position, end: range.upper ?? farEnd + 1 };
	}
	const position = Number.isFinite(range.last.time) ? range.last.time : (range.upper ?? farEnd + 1) - 1;
	return { position, end: range.lower ?? farEnd };
}

/**
 * Records per ms ahead of a range: what its last page showed, else `prior`
 * (what the listing's count or first pages say). A dense burst (many records in a short span, e.g.
 * an import) is split where the records are.
 */
function densityOf<T>(range: Range<T>, prior: number): number {
	const read = range.records.length - (range.base ?? 0);
	if (range.from === undefined || !Number.isFinite(range.last.time) || read < 2) return prior;
	const span = Math.abs(range.last.time - range.from);
	return span === 0 ? prior : read / span;
}

/**
 * Cuts the range with the most records left to read in two, at the middle of the span it has left:
 * the range keeps the part next to where its walk stands (with the records it read and its cursor),
 * the new one (returned, placed right after it in the hand-over order) takes the rest. Timestamps
 * are whole milliseconds: the cut lies strictly past every record the range has read, and leaves
 * the new range a non-empty span, so no record can belong to both or to neither. Records left are
 * estimated from the density the range has shown, else `prior` (records per ms); a range with fewer
 * than PAGES_WORTH_A_SPLIT pages left is not cut, nor any once there are `most` ranges (a dense burst
 * just read says little of a sparse span ahead: without the bound, each cut of it would cost a
 * request for a range that turns out empty). Undefined: nothing is worth a cut. `pageSize`: the
 * records a page holds; `minPages`: the pages a range must have left to be cut.
 * `farEnd`: the timestamp of the listing's other end (the probe's record).
 */
export function splitLargest<T>(ranges: Array<Range<T>>, asc: boolean, farEnd: number, prior: number, most = Number.POSITIVE_INFINITY, pageSize = PAGE_SIZE_MAX, minPages = PAGES_WORTH_A_SPLIT): Range<T> | undefined {
	if (ranges.length >= most) return undefined;
	let best: { index: number; left: number; cut: number } | undefined;
	ranges.forEach((range, index) => {
		if (range.done || range.stoppedAt !== undefined) return;
		const { position, end } = remaining(range, asc, farEnd);
		// asc: the range keeps [lower, cut), the new one [cut, upper); desc: the range keeps [cut, upper), the new one [lower, cut).
		const cut = asc ? position + Math.floor((end - position) / 2) : end + Math.ceil((position - end) / 2);
		const valid = asc ? cut > position && cut < end : cut > end && cut <= position;
		const left = densityOf(range, prior) * Math.abs(end - position);
		if (!valid || left < minPages * pageSize) return;
		if (best === undefined || left > best.left) best = { index, left, cut };
	});
	if (best === undefined) return undefined;
	const range = ranges[best.index];
	const fresh: Range<T> = asc
		? { lower: best.cut, upper: range.upper, records: [], last: { time: Number.NEGATIVE_INFINITY }, from: best.cut }
		: { lower: range.lower, upper: best.cut, records: [], last: { time: Number.POSITIVE_INFINITY }, from: best.cut };
	if (asc) range.upper = best.cut;
	else range.lower = best.cut;
	ranges.splice(best.index + 1, 0, fresh);
	return fresh;
}
