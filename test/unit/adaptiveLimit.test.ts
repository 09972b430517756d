import { AdaptiveLimit } from '../../nodes/shared/transport/adaptiveLimit';

/** The writes' limit alone, fed the attempts' answers as the transport reports them. */
describe('AdaptiveLimit', () => {
	const ok = (ms: number, startedAt = Date.now()) => ({ status: 200, startedAt, ms });

	it('starts at 4, grows by one per clean answer (doubling per round trip) up to the ceiling, and never past it', () => {
		const limit = new AdaptiveLimit(64);
		expect(limit.current()).toBe(4);
		// One round trip: the 4 requests in flight answer.
		for (let index = 0; index < 4; index++) limit.report(ok(150));
		expect(limit.current()).toBe(8);
		for (let index = 0; index < 8; index++) limit.report(ok(160));
		expect(limit.current()).toBe(16);
		for (let index = 0; index < 60; index++) limit.report(ok(150));
		expect(limit.current()).toBe(64);
		expect(new AdaptiveLimit(2).current()).toBe(2);
	});

	it('after a rise in latency alone: halves, doubles back to where it rose within a round trip, then grows by one per round', () => {
		const limit = new AdaptiveLimit(64);
		for (let index = 0; index < 12; index++) limit.report(ok(150));
		expect(limit.current()).toBe(16);
		for (let index = 0; index < 10 && limit.current() === 16; index++) limit.report(ok(1500));
		expect(limit.current()).toBe(8);
		const later = Date.now() + 1;
		for (let index = 0; index < 8; index++) limit.report(ok(150, later));
		expect(limit.current()).toBe(16);
		for (let index = 0; index < 15; index++) limit.report(ok(150, later));
		expect(limit.current()).toBe(16);
		limit.report(ok(150, later));
		expect(limit.current()).toBe(17);
	});

	it('after a refusal, a rise in latency does not bring quick growth back', () => {
		const limit = new AdaptiveLimit(64);
		for (let index = 0; index < 12; index++) limit.report(ok(150));
		limit.report({ status: 429, startedAt: Date.now(), ms: 5 });
		expect(limit.current()).toBe(8);
		const later = Date.now() + 1;
		for (let index = 0; index < 10 && limit.current() === 8; index++) limit.report(ok(1500, later));
		expect(limit.current()).toBe(4);
		const after = Date.now() + 2;
		for (let index = 0; index < 4; index++) limit.report(ok(150, after));
		expect(limit.current()).toBe(5);
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

	it('after a rise in latency, the smaller limit is judged by a round of its own answers: a first slow one neither halves it again nor grows it', () => {
		const limit = new AdaptiveLimit(64);
		for (let index = 0; index < 12; index++) limit.report(ok(150));
		for (let index = 0; index < 10 && limit.current() === 16; index++) limit.report(ok(1500));
		expect(limit.current()).toBe(8);
		const later = Date.now() + 1;
		// Answers that queued behind the slow ones (in the server or the node's event loop): 7 of a round of 8.
		for (let index = 0; index < 7; index++) limit.report(ok(600, later));
		expect(limit.current()).toBe(8);
		// The round's last answer is as slow: the smaller limit is slow too, and halves.
		limit.report(ok(600, later));
		expect(limit.current()).toBe(4);
	});

	it('never goes below 1', () => {
		const limit = new AdaptiveLimit(16);
		for (let index = 0; index < 10; index++) limit.report({ status: 429, startedAt: Date.now() + 10, ms: 1 });
		expect(limit.current()).toBe(1);
	});

	it('staying below a refusal (the ranged reads): refused with 2 out, it drops to 1 at once and never grows back to 2', () => {
		const limit = new AdaptiveLimit(32, 4, true);
		limit.report({ status: 429, startedAt: Date.now(), ms: 5 }, 2);
		// Half of 4 would be 2: the very number the server refused.
		expect(limit.current()).toBe(1);
		const later = Date.now() + 1;
		for (let index = 0; index < 50; index++) limit.report(ok(150, later));
		expect(limit.current()).toBe(1);
	});

	it('staying below a refusal: refused with 6 out while the limit had grown to 16, it halves to 5 and grows no further', () => {
		const limit = new AdaptiveLimit(32, 4, true);
		for (let index = 0; index < 12; index++) limit.report(ok(150));
		expect(limit.current()).toBe(16);
		limit.report({ status: 429, startedAt: Date.now(), ms: 5 }, 6);
		expect(limit.current()).toBe(5);
		const later = Date.now() + 1;
		for (let index = 0; index < 100; index++) limit.report(ok(150, later));
		expect(limit.current()).toBe(5);
	});

	it('staying below a refusal: each further refusal of the requests that were out together lowers it by one more (8 out, 5 refused: 3)', () => {
		const limit = new AdaptiveLimit(32, 4, true);
		for (let index = 0; index < 4; index++) limit.report(ok(150));
		expect(limit.current()).toBe(8);
		const sentTogether = Date.now() - 1;
		limit.report({ status: 429, startedAt: sentTogether, ms: 5 }, 8);
		expect(limit.current()).toBe(4);
		for (let index = 0; index < 4; index++) limit.report({ status: 429, startedAt: sentTogether, ms: 5 }, 8);
		expect(limit.current()).toBe(3);
		const later = Date.now() + 1;
		for (let index = 0; index < 50; index++) limit.report(ok(150, later));
		expect(limit.current()).toBe(3);
	});
});
