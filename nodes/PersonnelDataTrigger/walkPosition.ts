import { idKey } from '../shared/ids';

/**
 * Where a page walk that a poll stopped in goes on (`Resume`), and a pending listing of the group
 * at the watermark (`GroupCheck`): the parts of the trigger's state that hold the server's
 * cursors, and how a stored one is read back (anything unreadable is dropped: the next poll then
 * reads again from the watermark).
 */

/** Where a stopped page walk goes on (see `ChangeState.resume`). */
export interface Resume {
	/** `changes`: its records are sent; `skip`: an activation learning what already exists at the watermark. */
	purpose: 'changes' | 'skip';
	/** The walk's filter on the change field. */
	op: 'eq' | 'gt' | 'gte';
	/** The value of that filter; null: the walk has no filter (nothing was seen before it). */
	from: string | null;
	/** The server's cursor after the last page handed over. */
	after: string;
	/** The query the cursor belongs to (a digest); another query cannot use it. */
	view: string;
	/**
	 * Under a condition: how many records (the filters, no condition) the server listed at the
	 * watermark when the walk stopped; more there later may sit behind the cursor. null: unknown.
	 */
	countAtCut?: number | null;
	/** Requests this listing has sent in earlier polls: Max Requests bounds the whole listing. */
	requests?: number;
	/** The group at the watermark was listed after this cursor was stored (changeWalk.ts): not again. */
	groupListed?: boolean;
}

/** A pending listing of the records at `at` (see `ChangeState.groupCheck`). */
export interface GroupCheck {
	at: string;
	/** The listing's cursor after the pages already checked; undefined: not started. */
	after?: string;
	requests: number;
}

export const wholeCount = (value: unknown): number | undefined => (typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined);

export function readGroupCheck(value: unknown): GroupCheck | null {
	if (value === null || typeof value !== 'object') return null;
	const { at, after, requests } = value as Record<string, unknown>;
	if (typeof at !== 'string' || !(after === undefined || (typeof after === 'string' && after !== ''))) return null;
	return { at, ...(after === undefined ? {} : { after }), requests: wholeCount(requests) ?? 0 };
}

export function readResume(value: unknown): Resume | null {
	if (value === null || typeof value !== 'object') return null;
	const { purpose, op, from, after, view, countAtCut, requests, groupListed } = value as Record<string, unknown>;
	if (purpose !== 'changes' && purpose !== 'skip') return null;
	if (op !== 'eq' && op !== 'gt' && op !== 'gte') return null;
	if (!(from === null || typeof from === 'string') || typeof after !== 'string' || after === '' || typeof view !== 'string') return null;
	const count = wholeCount(countAtCut) === undefined ? {} : { countAtCut: countAtCut as number };
	const spent = wholeCount(requests) === undefined ? {} : { requests: requests as number };
	return { purpose, op, from, after, view, ...count, ...spent, ...(groupListed === true ? { groupListed } : {}) };
}


/**
 * Where the trigger stood before the last poll that handed changes over on n8n's default scheduler
 * (handOver.ts): its position fields, enough to read that poll's changes again.
 */
export interface HandOver {
	watermark: string | null;
	idsAtWatermark: string[];
	knownAtWatermark: number;
	countAtWatermark: number | null;
	resume: Resume | null;
	groupCheck: GroupCheck | null;
	/** When the poll handed its changes over (epoch ms). */
	at: number;
}

export function readHandOver(value: unknown): HandOver | null {
	if (value === null || typeof value !== 'object') return null;
	const given = value as Record<string, unknown>;
	const { watermark, idsAtWatermark } = given;
	if (!(watermark === null || typeof watermark === 'string')) return null;
	if (!Array.isArray(idsAtWatermark) || !idsAtWatermark.every((id) => typeof id === 'string')) return null;
	if (wholeCount(given.at) === undefined) return null;
	return {
		watermark,
		idsAtWatermark: (idsAtWatermark as string[]).map(idKey),
		knownAtWatermark: Math.max(wholeCount(given.knownAtWatermark) ?? 0, idsAtWatermark.length),
		countAtWatermark: wholeCount(given.countAtWatermark) ?? null,
		resume: readResume(given.resume),
		groupCheck: readGroupCheck(given.groupCheck),
		at: given.at as number,
	};
}
