import { compareTimestamps, minusMs } from '../shared/timestamps';

/**
 * What the trigger keeps between polls (n8n's static data): the newest change timestamp seen,
 * taken from the server's records, and the ids already emitted at exactly that timestamp, so the
 * inclusive `gte` filter neither loses nor repeats records that share it. With a look-back window
 * it also keeps the (id, timestamp) pairs emitted inside the window. Everything else is derived.
 */
export interface ChangeState {
	/** Identifies the trigger's configuration; another one starts afresh. */
	configKey: string;
	watermark: string | null;
	idsAtWatermark: string[];
	/** `${id}@${timestamp}` emitted within the look-back window before the watermark. */
	recent: string[];
}

/** Upper bound on remembered pairs: state must not grow with the history. */
export const RECENT_MAX = 20_000;

export interface Change {
	id: string;
	at: string;
}

const pairKey = (change: Change) => `${change.id}@${change.at}`;

/**
 * Decides, record by record during one poll, whether a change is new: not emitted by an earlier
 * poll (same id at the watermark, or the same pair inside the look-back window) nor earlier in
 * this poll. Sets are built once so a poll of thousands of changes stays linear.
 */
export function noveltyCheck(state: ChangeState): (change: Change) => boolean {
	const idsAtWatermark = new Set(state.idsAtWatermark);
	const seen = new Set(state.recent);
	return (change) => {
		const key = pairKey(change);
		if (seen.has(key)) return false;
		if (state.watermark !== null) {
			const order = compareTimestamps(change.at, state.watermark);
			if (order === 0 && idsAtWatermark.has(change.id)) return false;
		}
		seen.add(key);
		return true;
	};
}

/** Where the next poll starts reading: the watermark, or earlier by the look-back window. */
export function readFrom(state: ChangeState, lookbackMs: number): string | null {
	if (state.watermark === null) return null;
	return lookbackMs > 0 ? minusMs(state.watermark, lookbackMs) : state.watermark;
}

/**
 * The state after a poll that read every page; `changes` are the ones it emitted. `horizon`, when
 * given, is the newest change timestamp the server had before the pages were read, whether or not
 * a record at it was emitted: with a condition the server hides the records it rejects, so the
 * emitted changes alone would leave the watermark behind them and every poll would read them again.
 */
export function advance(state: ChangeState, changes: readonly Change[], lookbackMs: number, horizon: string | null = null): ChangeState {
	let watermark = state.watermark;
	for (const change of changes) {
		if (watermark === null || compareTimestamps(change.at, watermark) > 0) watermark = change.at;
	}
	if (horizon !== null && (watermark === null || compareTimestamps(horizon, watermark) > 0)) watermark = horizon;
	const moved = watermark !== state.watermark;
	const atWatermark = changes.filter((change) => watermark !== null && compareTimestamps(change.at, watermark) === 0).map((c) => c.id);
	const idsAtWatermark = [...new Set([...(moved ? [] : state.idsAtWatermark), ...atWatermark])];

	let recent: string[] = [];
	if (lookbackMs > 0 && watermark !== null) {
		const windowStart = minusMs(watermark, lookbackMs);
		const inWindow = (key: string) => compareTimestamps(key.slice(key.indexOf('@') + 1), windowStart) >= 0;
		recent = [...new Set([...state.recent, ...changes.map(pairKey)])].filter(inWindow).slice(-RECENT_MAX);
	}
	return { configKey: state.configKey, watermark, idsAtWatermark, recent };
}

/**
 * The state at activation: everything up to the newest existing change counts as already seen,
 * so nothing old is emitted. `existing` are the records at the newest timestamp and, with a
 * look-back window, those inside the window before it.
 */
export function initialState(configKey: string, newest: string | null, existing: readonly Change[], lookbackMs: number): ChangeState {
	const start: ChangeState = { configKey, watermark: newest, idsAtWatermark: [], recent: [] };
	if (newest === null) return start;
	return advance(start, existing, lookbackMs);
}
