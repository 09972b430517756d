import type { Change, ChangeState } from '../../nodes/PersonnelDataTrigger/changeState';
import { advance, IDS_KEPT_MAX, idsComplete, initialState, noveltyCheck, readFrom, readState, RECENT_MAX } from '../../nodes/PersonnelDataTrigger/changeState';
import { leaseKey, PollLease, SAVE_WAIT_MS } from '../../nodes/PersonnelDataTrigger/pollLease';

const T1 = '2026-11-23T08:00:00.000001Z';
const T2 = '2026-11-23T08:00:00.000002Z';
const T3 = '2026-11-23T08:05:00.000000Z';
const VIEW = 'filters';

const start = (newest: string | null, existing: Change[], lookbackMs = 0) =>
	initialState(0, 'employee:updated_at', newest, existing, { lookbackMs, countAtWatermark: existing.length, countView: VIEW });
const step = (state: ChangeState, changes: Change[], lookbackMs = 0, horizon: string | null = null) =>
	advance(state, changes, { lookbackMs, horizon, countAtWatermark: null, countView: VIEW });

describe('change state', () => {
	it('does not emit what sat at the watermark at activation', () => {
		const state = start(T1, [{ id: 'a', at: T1 }]);
		const isNew = noveltyCheck(state);
		expect(isNew({ id: 'a', at: T1 })).toBe(false);
		expect(isNew({ id: 'b', at: T1 })).toBe(true);
		expect(isNew({ id: 'a', at: T2 })).toBe(true);
	});

	it('keeps ids at an unchanged watermark and replaces them when it moves; every stored state is a new revision', () => {
		const first = start(T1, [{ id: 'a', at: T1 }]);
		const same = step(first, [{ id: 'b', at: T1 }]);
		expect(same.watermark).toBe(T1);
		expect(same.idsAtWatermark.sort()).toEqual(['a', 'b']);
		const moved = step(same, [{ id: 'c', at: T2 }, { id: 'd', at: T2 }]);
		expect(moved.watermark).toBe(T2);
		expect(moved.idsAtWatermark.sort()).toEqual(['c', 'd']);
		expect([first.revision, same.revision, moved.revision]).toEqual([1, 2, 3]);
	});

	it('does not emit the same change twice within one poll', () => {
		const isNew = noveltyCheck(start(null, []));
		expect(isNew({ id: 'a', at: T1 })).toBe(true);
		expect(isNew({ id: 'a', at: T1 })).toBe(false);
	});

	it('re-reads a look-back window and remembers only the pairs inside it', () => {
		const lookback = 10 * 60_000;
		const first = start(T3, [{ id: 'x', at: T1 }, { id: 'y', at: T3 }], lookback);
		expect(readFrom(first, lookback)).toBe('2026-11-23T07:55:00.000Z');
		const isNew = noveltyCheck(first);
		expect(isNew({ id: 'x', at: T1 })).toBe(false);
		expect(isNew({ id: 'late', at: T2 })).toBe(true);
		const later: Change = { id: 'z', at: '2026-11-23T09:00:00.000000Z' };
		const next = step(first, [{ id: 'late', at: T2 }, later], lookback);
		expect(next.recent).toEqual([`z@${later.at}`]);
	});

	it('a window made wider re-reads no further back than the pairs it knows', () => {
		const noWindow = step(start(T1, [{ id: 'a', at: T1 }]), [{ id: 'b', at: T3 }]);
		const wide = 60 * 60_000;
		// Nothing before the watermark was remembered: the first poll with the window reads from it.
		expect(readFrom(noWindow, wide)).toBe(T3);
		const later = '2026-11-23T08:10:00.000000Z';
		const next = step(noWindow, [{ id: 'c', at: later }], wide);
		expect(next.recentFrom).toBe(T3);
		expect(next.recent.sort()).toEqual([`b@${T3}`, `c@${later}`]);
		expect(readFrom(next, wide)).toBe(T3);
	});

	it('keeps at most RECENT_MAX pairs and says from when they are complete', () => {
		const lookback = 24 * 3_600_000;
		const many: Change[] = Array.from({ length: RECENT_MAX + 10 }, (_, i) => ({ id: `r${i}`, at: new Date(Date.parse(T3) + i * 1000).toISOString() }));
		const next = step(start(T3, [], lookback), many, lookback);
		expect(next.recent).toHaveLength(RECENT_MAX);
		expect(next.recentFrom).toBe(many[10].at);
	});
});

describe('change state versions', () => {
	it('reads version 1 (configKey) as the current version of the same stream, resuming from its watermark', () => {
		const v1 = {
			configKey: JSON.stringify({ resource: 'employee', field: 'updated_at', watched: {}, lookbackMinutes: 5 }),
			watermark: T3,
			idsAtWatermark: ['a'],
			recent: [`a@${T3}`],
		};
		expect(readState(v1)).toEqual({
			version: 3,
			revision: 0,
			stream: 'employee:updated_at',
			watermark: T3,
			idsAtWatermark: ['a'],
			knownAtWatermark: 1,
			countAtWatermark: null,
			countView: '',
			recent: [`a@${T3}`],
			recentFrom: '2026-11-23T08:00:00.000Z',
			watch: null,
			resume: null,
			groupCheck: null,
			handOver: null,
			origin: null,
		});
	});

	it('reads version 2 as version 3 without watched fields, and keeps a readable watch state of version 3', () => {
		const v2 = { version: 2, revision: 4, stream: 's', watermark: T1, idsAtWatermark: ['a'], countAtWatermark: 1, countView: 'v', recent: [], recentFrom: null };
		expect(readState(v2)).toEqual({ ...v2, version: 3, knownAtWatermark: 1, watch: null, resume: null, groupCheck: null, handOver: null, origin: null });
		const watch = { key: 'k', records: { a: ['"x"'] } };
		expect(readState({ ...v2, version: 3, watch })?.watch).toEqual(watch);
		// A watch state it cannot read is dropped (a new baseline is read), the rest resumes.
		expect(readState({ ...v2, version: 3, watch: { key: 'k', records: { a: [1] } } })).toMatchObject({ watermark: T1, watch: null });
	});

	it('does not trust a state it cannot read', () => {
		for (const stored of [undefined, null, 'x', { version: 99, stream: 's', watermark: T1, idsAtWatermark: [], recent: [] }, { version: 2, watermark: 5 }]) {
			expect(readState(stored)).toBeUndefined();
		}
	});
});

describe('change state with a horizon (a condition hides rejected records)', () => {
	it('moves the watermark to the newest change of all, keeping only emitted ids at it', () => {
		const first = start(T1, [{ id: 'a', at: T1 }]);
		const passed = step(first, [{ id: 'b', at: T2 }], 0, T3);
		expect(passed.watermark).toBe(T3);
		expect(passed.idsAtWatermark).toEqual([]);
		const tie = step(first, [{ id: 'c', at: T3 }], 0, T3);
		expect(tie).toMatchObject({ watermark: T3, idsAtWatermark: ['c'] });
		expect(step(first, [], 0, T1)).toMatchObject({ watermark: T1, idsAtWatermark: ['a'] });
	});
});

describe('a stopped walk in the state (resume)', () => {
	const v3 = { version: 3, revision: 2, stream: 's', watermark: T1, idsAtWatermark: ['a'], countAtWatermark: null, countView: 'v', recent: [], recentFrom: null, watch: null };
	it('keeps a readable one, with or without a filter value', () => {
		const resume = { purpose: 'changes', op: 'gte', from: T1, after: 'cursor-1', view: 'q' };
		expect(readState({ ...v3, resume, origin: T1 })).toMatchObject({ resume, origin: T1 });
		expect(readState({ ...v3, resume: { ...resume, from: null } })?.resume).toEqual({ ...resume, from: null });
	});
	it.each([
		['another purpose', { purpose: 'emit' }],
		['another filter', { op: 'lt' }],
		['an empty cursor', { after: '' }],
		['no query digest', { view: 1 }],
	])('drops one with %s: the next poll reads again from the watermark', (_, wrong) => {
		const resume = { purpose: 'skip', op: 'eq', from: T1, after: 'c', view: 'q', ...wrong };
		expect(readState({ ...v3, resume })?.resume).toBeNull();
	});
});

describe('a large group at one timestamp (IDS_KEPT_MAX)', () => {
	const many = (count: number, at: string, from = 0): Change[] => Array.from({ length: count }, (_, i) => ({ id: `r${from + i}`, at }));
	it('keeps the most recent ids only, and counts every record known there', () => {
		const start = initialState(0, 's', T1, [], { lookbackMs: 0, countAtWatermark: null, countView: VIEW });
		let state = advance(start, many(700, T2), { lookbackMs: 0, countAtWatermark: null, countView: VIEW });
		state = advance(state, many(700, T2, 700), { lookbackMs: 0, countAtWatermark: null, countView: VIEW });
		expect(state.idsAtWatermark).toHaveLength(IDS_KEPT_MAX);
		expect(state.idsAtWatermark[IDS_KEPT_MAX - 1]).toBe('r1399');
		expect(state.knownAtWatermark).toBe(1_400);
		expect(idsComplete(state)).toBe(false);
		// Sent again (a page read again): not counted twice.
		expect(advance(state, many(5, T2, 1_395), { lookbackMs: 0, countAtWatermark: null, countView: VIEW }).knownAtWatermark).toBe(1_400);
		const moved = advance(state, many(3, T3), { lookbackMs: 0, countAtWatermark: null, countView: VIEW });
		expect(moved).toMatchObject({ watermark: T3, knownAtWatermark: 3 });
		expect(idsComplete(moved)).toBe(true);
	});
	it('reads a stored group check and a listing\'s request count, and drops unreadable ones', () => {
		const v3 = { version: 3, revision: 2, stream: 's', watermark: T1, idsAtWatermark: ['a'], countAtWatermark: null, countView: 'v', recent: [], recentFrom: null, watch: null };
		expect(readState({ ...v3, groupCheck: { at: T1, after: 'c', requests: 4 } })?.groupCheck).toEqual({ at: T1, after: 'c', requests: 4 });
		expect(readState({ ...v3, groupCheck: { at: 5 } })?.groupCheck).toBeNull();
		const resume = { purpose: 'changes', op: 'gte', from: T1, after: 'c', view: 'q', requests: 12, groupListed: true };
		expect(readState({ ...v3, resume })?.resume).toEqual(resume);
	});
	it('keys ids stored before ids were compared without regard to case (shared/ids.ts)', () => {
		const v3 = { version: 3, revision: 2, stream: 's', watermark: T1, idsAtWatermark: ['AB-1'], countAtWatermark: null, countView: 'v', recent: [`AB-1@${T1}`], recentFrom: T1, watch: null };
		expect(readState(v3)).toMatchObject({ idsAtWatermark: ['ab-1'], recent: [`ab-1@${T1}`] });
	});
});

describe('waiting for n8n to store an emitted state (PollLease.awaitsSave)', () => {
	const state = (revision: number) => ({ revision }) as ChangeState;
	it('waits while the stored state is older, up to SAVE_WAIT_MS, then reads again (the items were dropped)', () => {
		const lease = PollLease.acquire(leaseKey('wf-save', 'node'), 0) as PollLease;
		expect(lease.awaitsSave(state(4), 0)).toBe(false);
		lease.expectSave(state(5), 1_000);
		expect(lease.awaitsSave(state(4), 2_000)).toBe(true);
		expect(lease.awaitsSave(undefined, 2_000)).toBe(true);
		expect(lease.awaitsSave(state(4), 1_000 + SAVE_WAIT_MS + 1)).toBe(false);
		// Once it has stopped waiting it does not wait again for the same state.
		expect(lease.awaitsSave(state(4), 2_000)).toBe(false);
		lease.expectSave(state(6), 3_000);
		expect(lease.awaitsSave(state(6), 3_500)).toBe(false);
		lease.release();
	});
});
