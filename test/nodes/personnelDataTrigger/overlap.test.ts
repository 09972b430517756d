/**
 * Polls of one trigger that overlap (a slow server, a schedule faster than the server, a
 * workflow turned off and on while a poll runs): each change is emitted once, by one poll; the
 * others return nothing and send no request. A poll never waits past the next one.
 */
import { useTestBed } from '../setup';
import { activateTrigger, changePairs, duplicates, emittedPairs, stateOf } from './helpers';

const EMPLOYEES = { resource: 'employee', event: 'createdOrUpdated', simplify: false };
/** Every five seconds (n8n 2.8 accepts such a cron; the harness does not run the schedule). */
const everyFiveSeconds = { item: [{ mode: 'custom', cronExpression: '0-59/5 * * * * *' }] };

describe('Personnel Data Trigger: overlapping polls', () => {
	const bed = useTestBed({}, { per: 'test' });

	it('polls started while one runs return nothing and send nothing; the running one emits each change once', async () => {
		const { sim } = bed.simulator;
		const { session } = await activateTrigger(bed, EMPLOYEES);
		sim.freezeClock();
		const burst = sim.createRecords('employees', 150);
		sim.unfreezeClock();
		const created = sim.createRecords('employees', 30);
		sim.faults.configure({ latencyMs: 150 });
		sim.resetStats();

		const polls = await Promise.all([session.poll(), session.poll(), session.poll(), session.poll()]);
		sim.faults.configure({ latencyMs: 0 });
		const emitting = polls.filter((poll) => poll.items !== null);
		expect(emitting).toHaveLength(1);
		expect(polls.every((poll) => poll.error === undefined)).toBe(true);
		const pairs = polls.flatMap((poll) => emittedPairs(poll.records));
		expect(duplicates(pairs)).toEqual([]);
		expect(new Set(pairs)).toEqual(new Set(changePairs([...burst, ...created])));
		// One poll's requests only: two pages.
		expect(sim.stats().requests).toBe(2);

		expect((await session.poll()).items).toBeNull();
	});

	it('over many rounds of concurrent polls with changes arriving meanwhile: every change exactly once', async () => {
		const { sim } = bed.simulator;
		const { session } = await activateTrigger(bed, EMPLOYEES);
		sim.faults.configure({ latencyMs: 40 });
		const expected = new Set<string>();
		const emitted: string[] = [];
		for (let round = 0; round < 8; round++) {
			for (const pair of changePairs(sim.createRecords('employees', 5))) expected.add(pair);
			const running = [session.poll(), session.poll()];
			// Changes made while the polls run: some are read by them, the rest by the next round.
			for (const pair of changePairs(sim.createRecords('employees', 7))) expected.add(pair);
			running.push(session.poll());
			for (const poll of await Promise.all(running)) {
				expect(poll.error).toBeUndefined();
				emitted.push(...emittedPairs(poll.records));
			}
		}
		sim.faults.configure({ latencyMs: 0 });
		emitted.push(...emittedPairs((await session.poll()).records));
		expect(duplicates(emitted)).toEqual([]);
		expect(new Set(emitted)).toEqual(expected);
	});

	it('turned off and on while a poll runs: the new activation does not emit what the running poll emits', async () => {
		const { sim } = bed.simulator;
		const { session: before } = await activateTrigger(bed, EMPLOYEES);
		const created = sim.createRecords('employees', 12);
		sim.faults.configure({ latencyMs: 200 });
		const running = before.poll();
		// Meanwhile the workflow is deactivated and activated again: n8n reads the saved static data,
		// which does not yet know what the running poll is about to emit.
		const again = activateTrigger(bed, EMPLOYEES, { activation: 'activate' });
		const [old, reactivated] = await Promise.all([running, again]);
		sim.faults.configure({ latencyMs: 0 });
		expect(emittedPairs(old.records).sort()).toEqual(changePairs(created).sort());
		expect(reactivated.first.items).toBeNull();
		expect((await reactivated.session.poll()).items).toBeNull();
		const later = sim.createRecords('employees', 2);
		expect(emittedPairs((await reactivated.session.poll()).records).sort()).toEqual(changePairs(later).sort());
	});

	it('a Retry-After longer than the time to the next poll ends the poll at once; the next one sends the same changes', async () => {
		const { sim } = bed.simulator;
		const parameters = { ...EMPLOYEES, pollTimes: everyFiveSeconds };
		const { session } = await activateTrigger(bed, parameters);
		const created = sim.createRecords('employees', 4);
		const before = stateOf(bed);
		sim.faults.enqueue({ pathPrefix: '/v1/org/employees', status: 429, count: 1, retryAfterSeconds: 6 });
		sim.resetStats();
		const limited = await session.poll();
		expect(limited.items).toBeUndefined();
		expect(limited.error?.message).toMatch(/429.*next poll, 5 s.*nothing was emitted and the next poll continues from the same point/);
		// Not retried: one request, and nothing stored.
		expect(sim.stats().requests).toBe(1);
		expect(stateOf(bed)).toEqual(before);

		// A shorter Retry-After is waited for within the same poll.
		sim.faults.enqueue({ pathPrefix: '/v1/org/employees', status: 429, count: 1, retryAfterSeconds: 1 });
		sim.resetStats();
		const next = await session.poll();
		expect(emittedPairs(next.records).sort()).toEqual(changePairs(created).sort());
		expect(sim.stats().requests).toBe(2);
	});
});
