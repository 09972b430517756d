import { LEASE_STALE_MS, PollLease } from '../../nodes/PersonnelDataTrigger/pollLease';

const stateAt = (revision: number) => ({ revision });

describe('poll lease', () => {
	it('one holder per key; released, it can be taken again', () => {
		const lease = PollLease.acquire('w1\u0000Trigger', 0) as PollLease;
		expect(lease.held).toBe(true);
		expect(PollLease.acquire('w1\u0000Trigger', 1)).toBeUndefined();
		expect(PollLease.acquire('w2\u0000Trigger', 1)).toBeDefined();
		lease.release();
		expect(PollLease.acquire('w1\u0000Trigger', 2)).toBeDefined();
	});

	it('a holder without progress for LEASE_STALE_MS is overtaken and then stores nothing', () => {
		const hung = PollLease.acquire('hung', 0) as PollLease;
		hung.progress(1000);
		expect(PollLease.acquire('hung', 1000 + LEASE_STALE_MS - 1)).toBeUndefined();
		const next = PollLease.acquire('hung', 1000 + LEASE_STALE_MS) as PollLease;
		expect(next.held).toBe(true);
		expect(hung.held).toBe(false);
		hung.commit(stateAt(9));
		hung.release();
		expect(next.held).toBe(true);
		expect(next.newest(undefined)).toBeUndefined();
	});

	it('the newest state is the higher revision of the stored one and the last one committed here', () => {
		const lease = PollLease.acquire('revisions', 0) as PollLease;
		expect(lease.newest(stateAt(3))).toEqual(stateAt(3));
		lease.commit(stateAt(5));
		expect(lease.newest(stateAt(3))).toEqual(stateAt(5));
		// Stored by another main instance (a new leader) later: the database copy wins.
		expect(lease.newest(stateAt(8))).toEqual(stateAt(8));
		lease.release();
	});
});
