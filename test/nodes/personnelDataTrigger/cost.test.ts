/**
 * What a poll costs and what the trigger keeps: an idle poll is one list request and no token
 * request; the static data does not grow with the number of changes.
 */
import type { ChangeState } from '../../../nodes/PersonnelDataTrigger/changeState';
import { useTestBed } from '../setup';
import { lastSeq, listRequestsSince, pollOk, stateBytes, stateOf } from './helpers';

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

	it('an idle poll with a condition costs two requests (newest change, then the changes), however many it rejected', async () => {
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
		expect(sim.stats().requests).toBe(2);
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
		expect(Object.keys(state).sort()).toEqual(['configKey', 'idsAtWatermark', 'recent', 'watermark']);
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
