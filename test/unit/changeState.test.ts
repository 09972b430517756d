import type { Change } from '../../nodes/PersonnelDataTrigger/changeState';
import { advance, initialState, noveltyCheck, readFrom } from '../../nodes/PersonnelDataTrigger/changeState';

const T1 = '2026-11-23T08:00:00.000001Z';
const T2 = '2026-11-23T08:00:00.000002Z';
const T3 = '2026-11-23T08:05:00.000000Z';

describe('change state', () => {
	it('does not emit what sat at the watermark at activation', () => {
		const state = initialState('k', T1, [{ id: 'a', at: T1 }], 0);
		const isNew = noveltyCheck(state);
		expect(isNew({ id: 'a', at: T1 })).toBe(false);
		expect(isNew({ id: 'b', at: T1 })).toBe(true);
		expect(isNew({ id: 'a', at: T2 })).toBe(true);
	});

	it('keeps ids at an unchanged watermark and replaces them when it moves', () => {
		const start = initialState('k', T1, [{ id: 'a', at: T1 }], 0);
		const same = advance(start, [{ id: 'b', at: T1 }], 0);
		expect(same.watermark).toBe(T1);
		expect(same.idsAtWatermark.sort()).toEqual(['a', 'b']);
		const moved = advance(same, [{ id: 'c', at: T2 }, { id: 'd', at: T2 }], 0);
		expect(moved.watermark).toBe(T2);
		expect(moved.idsAtWatermark.sort()).toEqual(['c', 'd']);
	});

	it('does not emit the same change twice within one poll', () => {
		const isNew = noveltyCheck(initialState('k', null, [], 0));
		expect(isNew({ id: 'a', at: T1 })).toBe(true);
		expect(isNew({ id: 'a', at: T1 })).toBe(false);
	});

	it('re-reads a look-back window and remembers only the pairs inside it', () => {
		const lookback = 10 * 60_000;
		const start = initialState('k', T3, [{ id: 'x', at: T1 }, { id: 'y', at: T3 }], lookback);
		expect(readFrom(start, lookback)).toBe('2026-11-23T07:55:00.000Z');
		const isNew = noveltyCheck(start);
		expect(isNew({ id: 'x', at: T1 })).toBe(false);
		expect(isNew({ id: 'late', at: T2 })).toBe(true);
		const later: Change = { id: 'z', at: '2026-11-23T09:00:00.000000Z' };
		const next = advance(start, [{ id: 'late', at: T2 }, later], lookback);
		expect(next.recent).toEqual([`z@${later.at}`]);
	});
});

describe('change state with a horizon (a condition hides rejected records)', () => {
	it('moves the watermark to the newest change of all, keeping only emitted ids at it', () => {
		const start = initialState('k', T1, [{ id: 'a', at: T1 }], 0);
		const passed = advance(start, [{ id: 'b', at: T2 }], 0, T3);
		expect(passed.watermark).toBe(T3);
		expect(passed.idsAtWatermark).toEqual([]);
		const tie = advance(start, [{ id: 'c', at: T3 }], 0, T3);
		expect(tie).toMatchObject({ watermark: T3, idsAtWatermark: ['c'] });
		expect(advance(start, [], 0, T1)).toEqual(start);
	});
});
