/**
 * What a poll costs and what the trigger keeps: an idle poll is one list request and no token
 * request; the static data does not grow with the number of changes.
 */
import type { ChangeState } from '../../../nodes/PersonnelDataTrigger/changeState';
import { useTestBed } from '../setup';
import { changePairs, emittedPairs, lastSeq, listRequestsSince, pollOk, stateBytes, stateOf, useServer, withoutTotalCount } from './helpers';

const EMPLOYEES = { resource: 'employee', event: 'createdOrUpdated', simplify: false };

describe('Personnel Data Trigger: cost of a poll and size of its state', () => {
	const bed = useTestBed({}, { per: 'test' });

	it('an idle poll costs exactly one list request and no token request while the token is valid', async () => {
		const { sim } = bed.simulator;
		await pollOk(bed, EMPLOYEES);
		sim.createRecords('employees', 5);
		await pollOk(bed, EMPLOYEES);

		for (let i = 0; i < 3; i++) {
			sim.resetStats();
			const from = lastSeq(sim);
			expect((await pollOk(bed, EMPLOYEES)).items).toBeNull();
			const stats = sim.stats();
			expect(stats.requests).toBe(1);
			expect(stats.provisioning).toEqual({ begin: 0, refresh: 0 });
			const [request] = listRequestsSince(sim, from);
			expect(request).toMatchObject({ method: 'GET', path: '/v1/org/employees', status: 200 });
		}

		// A revoked or expired token costs one provisioning (begin + refresh); the new one is reused.
		for (const invalidate of [() => sim.revokeTokens(), () => sim.advanceClock(3601)]) {
			invalidate();
			sim.resetStats();
			expect((await pollOk(bed, EMPLOYEES)).items).toBeNull();
			expect(sim.stats().provisioning).toEqual({ begin: 1, refresh: 1 });
			sim.resetStats();
			expect((await pollOk(bed, EMPLOYEES)).items).toBeNull();
			expect(sim.stats().requests).toBe(1);
		}
	});

	it.each([0, 1, 99, 100, 101, 350])('an idle poll costs one request right after a burst of %i records at the watermark', async (size) => {
		const { sim } = bed.simulator;
		await pollOk(bed, EMPLOYEES);
		sim.freezeClock();
		const burst = sim.createRecords('employees', size);
		expect((await pollOk(bed, EMPLOYEES)).records).toHaveLength(size);
		sim.unfreezeClock();
		for (let i = 0; i < 2; i++) {
			sim.resetStats();
			expect((await pollOk(bed, EMPLOYEES)).items).toBeNull();
			expect(sim.stats().requests).toBe(1);
		}
		// More at the very same timestamp: found (the count at the watermark grew), each once.
		sim.freezeClock(burst[0]?.updated_at as string | undefined);
		const more = sim.createRecords('employees', 2);
		sim.unfreezeClock();
		expect(emittedPairs((await pollOk(bed, EMPLOYEES)).records).sort()).toEqual(changePairs(more).sort());
		// A few changes after a burst: the same single request holds them.
		const touched = sim.touchRecords('employees', burst.slice(0, 3).map((r) => r.id));
		sim.resetStats();
		expect(emittedPairs((await pollOk(bed, EMPLOYEES)).records).sort()).toEqual(changePairs(touched).sort());
		expect(sim.stats().requests).toBe(1);
	});

	it('without total_count from the server, falls back to reading every record at the watermark, exactly', async () => {
		const { sim } = bed.simulator;
		const proxy = await withoutTotalCount(bed.simulator.baseUrl);
		try {
			useServer(bed, proxy.baseUrl);
			await pollOk(bed, EMPLOYEES);
			sim.freezeClock();
			const burst = sim.createRecords('employees', 250);
			expect(emittedPairs((await pollOk(bed, EMPLOYEES)).records).sort()).toEqual(changePairs(burst).sort());
			sim.unfreezeClock();
			sim.resetStats();
			expect((await pollOk(bed, EMPLOYEES)).items).toBeNull();
			// The probe, then the three pages at the watermark.
			expect(sim.stats().requests).toBe(4);
			const touched = sim.touchRecords('employees', [burst[7].id]);
			expect(emittedPairs((await pollOk(bed, EMPLOYEES)).records)).toEqual(changePairs(touched));
		} finally {
			await proxy.close();
		}
	});

	it('an idle poll with a condition costs one request (the newest change of all), however many it rejected or a burst holds', async () => {
		const { sim } = bed.simulator;
		const parameters = { ...EMPLOYEES, condition: { __rl: true, mode: 'id', value: sim.conditionId('Nobody') } };
		await pollOk(bed, parameters);
		// Changes no record of which passes: nothing is emitted, and they need not be read again.
		for (let i = 0; i < 3; i++) {
			sim.createRecords('employees', 300);
			expect((await pollOk(bed, parameters)).items).toBeNull();
		}
		sim.resetStats();
		expect((await pollOk(bed, parameters)).items).toBeNull();
		expect(sim.stats().requests).toBe(1);

		// A burst larger than a page at one timestamp, none passing: still one request afterwards.
		sim.freezeClock();
		sim.createRecords('employees', 350);
		sim.unfreezeClock();
		expect((await pollOk(bed, parameters)).items).toBeNull();
		sim.resetStats();
		expect((await pollOk(bed, parameters)).items).toBeNull();
		expect(sim.stats().requests).toBe(1);
	});

	it('keeps a small state: it does not grow with the number of changes', async () => {
		const { sim } = bed.simulator;
		await pollOk(bed, EMPLOYEES);
		const sizes: number[] = [];
		let emitted = 0;
		for (let round = 0; round < 40; round++) {
			// Records that exist already: a record created and touched before a poll is one change.
			const ids = sim.getRecords('employees').slice(round * 5, round * 5 + 30).map((r) => r.id);
			sim.touchRecords('employees', ids);
			sim.createRecords('employees', 20);
			emitted += (await pollOk(bed, EMPLOYEES)).records.length;
			sizes.push(stateBytes(bed));
		}
		expect(emitted).toBe(40 * 50);
		// One watermark and the ids at it: a few hundred bytes, the same after 2,000 changes as after 50.
		expect(Math.max(...sizes)).toBeLessThan(1_000);
		expect(sizes[sizes.length - 1]).toBeLessThanOrEqual(sizes[0] + 50);
		const state = stateOf(bed).changes as ChangeState;
		expect(Object.keys(state).sort()).toEqual([
			'countAtWatermark',
			'countView',
			'groupCheck',
			'handOver',
			'idsAtWatermark',
			'knownAtWatermark',
			'origin',
			'recent',
			'recentFrom',
			'resume',
			'revision',
			'stream',
			'version',
			'watch',
			'watermark',
		]);
		expect(state.version).toBe(3);
		expect(state.watch).toBeNull();
		expect(state.resume).toBeNull();
	});

	it('with a look-back window, keeps only what lies inside the window', async () => {
		const { sim } = bed.simulator;
		const parameters = { ...EMPLOYEES, options: { lookbackMinutes: 1 } };
		await pollOk(bed, parameters);
		const sizes: number[] = [];
		for (let round = 0; round < 30; round++) {
			sim.createRecords('employees', 50);
			await pollOk(bed, parameters);
			sizes.push(stateBytes(bed));
			// Two minutes pass between polls: earlier changes leave the one-minute window.
			sim.advanceClock(120);
		}
		// 50 pairs of ~65 bytes in the window, not 1,500.
		expect(Math.max(...sizes)).toBeLessThan(50 * 80 + 1_000);
		expect((stateOf(bed).changes as ChangeState).recent).toHaveLength(50);
	});
});
