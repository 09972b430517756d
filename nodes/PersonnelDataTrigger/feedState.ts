import { minusMs } from '../shared/timestamps';

/**
 * The change feed's state and vocabulary (the model itself: changeFeed.ts): what is stored between
 * polls, what the caller tells the model, and where a feed starts.
 */

export const FEED_VERSION = 1;

/** The settle window by default: 10 minutes (docs/trigger.md: why). */
export const SETTLE_DEFAULT_MS = 10 * 60_000;

/** Versions the memory may hold; beyond it the oldest settle early (reported, never a failing poll). */
export const MEMORY_MAX = 200_000;

/** Refusals of a pass's cursor at the same point before the pass gives up with an error. */
export const REFUSALS_MAX = 3;

/** A record as the feed sees it: id, change timestamp and its content (canonical JSON or a digest of it). */
export interface FeedRecord {
	id: string;
	at: string;
	content: string;
}

/** See FeedState.clock. (`local`, n8n's clock as earlier versions stored it, is ignored.) */
export interface ServerClock {
	at: string;
	seenBy?: number;
	/** n8n's clock when the answer that showed `at` came (epoch ms; ServerTime.receivedAt). */
	seenLocal?: number;
	local?: number;
}

/**
 * When the server took and answered one request, on its Date clock (epoch ms): it took it no
 * earlier than `atLeast` (the Date header less the exchange's duration) and answered no later than
 * `atMost` (the Date header, to the second, plus a second).
 */
export interface ServerTime {
	atLeast: number;
	atMost: number;
	/** n8n's clock (epoch ms) when the request was sent and when its answer came; absent: not known. */
	sentAt?: number;
	receivedAt?: number;
}

/** A pass over the records from `settled` on (see the model). */
export interface Pass {
	/**
	 * The server's time (a lower bound) when the pass started, taken at its first page; when it
	 * completes, everything older than this less S is settled. null: unknown (not read yet, or
	 * a server that gave neither a Date nor a record to tell it).
	 */
	startedAt: string | null;
	/**
	 * The server's Date clock when it answered the pass's first page (at least this, epoch ms).
	 * When the pass completes, the newest record read and the Date clock's time since tell the
	 * server's time at that first page better than the first page alone: a backfill's first page
	 * holds its oldest records (changeFeed.ts `complete`).
	 */
	firstDate?: number;
	/** n8n's clock when the pass's first page was asked for (ServerTime.sentAt), beside `firstDate`. */
	firstLocal?: number;
	/** The query the pass reads with (a digest): another query starts the pass again from L. */
	view: string;
	/** The filter value of the walk the cursor belongs to (`t ≥ from`); null: no filter. */
	from: string | null;
	/** The server's cursor to go on after; undefined: start a walk at `from`. */
	after?: string;
	/** The newest timestamp the pass has processed: every version older than it was read. */
	reached: string | null;
	/** Requests the pass has sent (Max Requests bounds a whole pass). */
	requests: number;
	/** Cursor refusals at `reached` in a row that did not get deeper into its group than the one before. */
	refusals: number;
	/** Records at `reached` the current walk has read (a walk started again at `reached` reads its group from the start). */
	depth: number;
	/** The deepest a refused walk got into the group at `reached`. */
	deepest: number;
	/** Activation: versions at or before this are remembered; the pass sends nothing. */
	learnUpTo?: string;
	/** The earliest old time of a record that changed again during the pass: it settles no further (changeFeed.ts `holdForMove`). */
	heldAt?: string;
}

/** How to undo the last poll that sent (atLeastOnce only). */
export interface Unconfirmed {
	settled: string | null;
	pass: Pass | null;
	/** Memory entries the poll set: [entry key, the value before (null: none)]. */
	entries: Array<[string, string | null]>;
	/** The memory's bound dropped the versions before this time in that poll: an undo cannot tell them from new ones. */
	forgottenBefore?: string;
}

export interface FeedState {
	version: typeof FEED_VERSION;
	settled: string | null;
	/** Entries of 28 characters, oldest first: time (12), id key (11), content key (5; `~~~~~`: taken in another view). */
	memory: string;
	/** The fields the memory's content keys were taken with (`contentView`); with others, only id and time compare. */
	memoryView: string;
	pass: Pass | null;
	unconfirmed: Unconfirmed | null;
	/** Memory entry keys of an undone poll (atLeastOnce): sent again marked, until the pass that reads them again completes. */
	repeat: string[];
	/** After an undo whose poll had dropped versions to the memory's bound: versions before this time, sent again, are marked. */
	repeatBefore?: string;
	/**
	 * The newest change timestamp read, and (`seenBy`) the latest the server's Date clock can have
	 * read when that answer left (epoch ms; absent: the answer had no Date), with n8n's clock when
	 * it came (`seenLocal`): the server's time is at least `at` plus the time since on whichever of
	 * the two clocks shows less (feedClock.ts: either may step).
	 */
	clock: ServerClock | null;
}

export interface FeedOptions {
	settleMs: number;
	/** Max Changes per Poll; undefined: no cap. */
	maxChanges?: number;
	/** Max Requests of one pass. */
	maxRequests: number;
	/** Digest of the list query (filters, condition, fields): what a pass's cursor belongs to. */
	view: string;
	/** Digest of the fields the records carry (Fields to Return): what content keys can be compared in. */
	contentView: string;
	atLeastOnce: boolean;
}

/** What a poll sends: the record, its event key, and whether an earlier poll may have sent it (atLeastOnce). */
export interface Delivery<R extends FeedRecord = FeedRecord> {
	record: R;
	key: string;
	possiblyRepeated: boolean;
	/**
	 * An earlier version of this record at the same timestamp was sent before (a server that keeps
	 * seconds: two changes in one second). It is a later change, never the creation again.
	 */
	laterInItsTime?: boolean;
}

/** A request the caller makes for the feed: records with `t ≥ from` (none: no filter), oldest first, after `after`. */
export interface FeedRead {
	from: string | null;
	after?: string;
}

export interface FeedPage<R extends FeedRecord = FeedRecord> {
	records: readonly R[];
	/** The cursor for the next page, when `hasNextPage`. */
	endCursor?: string;
	hasNextPage: boolean;
	/** When the server took and answered the page's request (its Date header); absent: no Date. */
	serverTime?: ServerTime;
	/**
	 * A range's walk ends here (feedRanges.ts): the pass goes on with a new walk from this
	 * timestamp, the next range's start, later than every record of the page.
	 */
	nextFrom?: string;
}

/** An answer the model cannot believe, or a bound reached: the poll fails naming it. */
export class FeedError extends Error {}

/**
 * The state at activation: `newest` is the server's newest change timestamp (null: no records).
 * Everything visible up to it is remembered, not sent; the first pass lists it.
 */
export function activationState(newest: string | null, options: Pick<FeedOptions, 'settleMs' | 'view' | 'contentView'>): FeedState {
	const settled = newest === null ? null : minusMs(newest, options.settleMs);
	const pass: Pass | null = newest === null ? null : { startedAt: newest, view: options.view, from: settled, reached: null, requests: 0, refusals: 0, depth: 0, deepest: 0, learnUpTo: newest };
	const clock = newest === null ? null : { at: newest };
	return { version: FEED_VERSION, settled, memory: '', memoryView: options.contentView, pass, unconfirmed: null, repeat: [], clock };
}

/** On Activation → Start From a Date: nothing counts as sent from `from` on. */
export function backfillState(from: string, options: Pick<FeedOptions, 'contentView'>): FeedState {
	return { version: FEED_VERSION, settled: from, memory: '', memoryView: options.contentView, pass: null, unconfirmed: null, repeat: [], clock: null };
}
