import { AdaptiveLimit } from '../../nodes/PersonnelData/actions/adaptiveLimit';

/** The writes' limit alone, fed the attempts' answers as the transport reports them. */
describe('AdaptiveLimit', () => {
	const ok = (ms: number, startedAt = Date.now()) => ({ status: 200, startedAt, ms });

	it('starts at 4, grows by one per success up to the ceiling, and never past it', () => {
		const limit = new AdaptiveLimit(16);
		expect(limit.current()).toBe(4);
		for (let index = 0; index < 40; index++) limit.report(ok(150));
		expect(limit.current()).toBe(16);
		expect(new AdaptiveLimit(2).current()).toBe(2);
	});

	it('halves on 429 and 503, once for all the requests that were in flight together', () => {
		const limit = new AdaptiveLimit(16);
		for (let index = 0; index < 12; index++) limit.report(ok(20));
		expect(limit.current()).toBe(16);
		const before = Date.now() - 1;
		limit.report({ status: 429, startedAt: before, ms: 20 });
		expect(limit.current()).toBe(8);
		// The other requests sent under the old limit answer 429 too: no further halving.
		for (let index = 0; index < 10; index++) limit.report({ status: 429, startedAt: before, ms: 20 });
		expect(limit.current()).toBe(8);
		limit.report({ status: 503, startedAt: Date.now() + 1, ms: 20 });
		expect(limit.current()).toBe(4);
		// After a sign of load it grows by one per round (as many successes as the limit), not per success.
		for (let index = 0; index < 4; index++) limit.report(ok(20, Date.now() + 1));
		expect(limit.current()).toBe(5);
	});

	it('backs off when the answers slow down well beyond the fastest (a server queueing the requests)', () => {
		const limit = new AdaptiveLimit(16);
		for (let index = 0; index < 12; index++) limit.report(ok(150));
		expect(limit.current()).toBe(16);
		// Jitter within twice the fastest plus 100 ms is no sign of load.
		for (let index = 0; index < 10; index++) limit.report(ok(index % 2 === 0 ? 150 : 300));
		expect(limit.current()).toBe(16);
		for (let index = 0; index < 10 && limit.current() === 16; index++) limit.report(ok(1500));
		expect(limit.current()).toBe(8);
	});

	it('never goes below 1', () => {
		const limit = new AdaptiveLimit(16);
		for (let index = 0; index < 10; index++) limit.report({ status: 429, startedAt: Date.now() + 10, ms: 1 });
		expect(limit.current()).toBe(1);
	});
});
