/**
 * Records the API makes visible late (replication lag): they carry a timestamp before the
 * trigger's watermark. A look-back window re-reads that far back and emits them once; without
 * one they are lost, by design (documented here).
 */
import type { ChangeState } from '../../../nodes/PersonnelDataTrigger/changeState';
import type { TestBed } from '../setup';
import { useTestBed } from '../setup';
import { changePairs, duplicates, emittedPairs, pollOk, stateOf } from './helpers';

const withLookback = (minutes: number) => ({
	resource: 'employee',
	event: 'createdOrUpdated',
	simplify: false,
	options: { lookbackMinutes: minutes },
});

function watermarkOf(bed: TestBed): string {
	const state = stateOf(bed).changes as ChangeState;
	if (state.watermark === null) throw new Error('no watermark');
	return state.watermark;
}

/** `watermark` moved back by whole seconds, keeping the simulator's microsecond format. */
function secondsBefore(watermark: string, seconds: number): string {
	const ms = Date.parse(watermark) - seconds * 1000;
	return `${new Date(ms).toISOString().slice(0, 19)}${watermark.slice(19)}`;
}

describe('Personnel Data Trigger: look-back window', () => {
	const bed = useTestBed({}, { per: 'test' });

	it('emits records made visible late once, and re-reads the window without duplicates', async () => {
		const { sim } = bed.simulator;
		const parameters = withLookback(10);
		expect((await pollOk(bed, parameters)).items).toBeNull();
		// Activation looked back too, and emitted none of what it found.
		expect((await pollOk(bed, parameters)).items).toBeNull();

		const early = sim.createRecords('employees', 30);
		const first = await pollOk(bed, parameters);
		expect(emittedPairs(first.records).sort()).toEqual(changePairs(early).sort());

		// Replication lag: written two minutes before the watermark, visible only later.
		const late = sim.createLateRecords('employees', 4, secondsBefore(watermarkOf(bed), 120));
		const touched = sim.touchRecords('employees', [early[0].id]);
		const second = await pollOk(bed, parameters);
		expect(emittedPairs(second.records)).toEqual(changePairs(touched));

		sim.revealRecords('employees');
		const third = await pollOk(bed, parameters);
		expect(emittedPairs(third.records).sort()).toEqual(changePairs(late).sort());
		expect(third.records.every((r) => r._event.type === 'created')).toBe(true);

		// The window still covers all of the above: re-read, none emitted again.
		const all = [...first.records, ...second.records, ...third.records].map((r) => `${r.id}@${r._event.changedAt}`);
		expect(duplicates(all)).toEqual([]);
		expect((await pollOk(bed, parameters)).items).toBeNull();
		const more = sim.createRecords('employees', 2);
		const fourth = await pollOk(bed, parameters);
		expect(emittedPairs(fourth.records).sort()).toEqual(changePairs(more).sort());
	});

	it('reads the window from the watermark, not from the local clock', async () => {
		const { sim } = bed.simulator;
		const parameters = withLookback(5);
		await pollOk(bed, parameters);
		const created = sim.createRecords('employees', 1);
		await pollOk(bed, parameters);
		const watermark = watermarkOf(bed);
		expect(watermark).toBe(created[0].updated_at);

		const from = sim.requests(1)[0].seq;
		await pollOk(bed, parameters);
		const [request] = sim.requests().filter((entry) => entry.seq > from);
		const filter = (request.query as { filters: { updated_at: { op: string; value: string } } }).filters.updated_at;
		expect(filter.op).toBe('gte');
		expect(Date.parse(watermark) - Date.parse(filter.value)).toBe(5 * 60_000);
	});

	it('loses records made visible later than the window (documented limit)', async () => {
		const { sim } = bed.simulator;
		const parameters = withLookback(1);
		await pollOk(bed, parameters);
		sim.createRecords('employees', 1);
		await pollOk(bed, parameters);

		const tooLate = sim.createLateRecords('employees', 2, secondsBefore(watermarkOf(bed), 120));
		const inWindow = sim.createLateRecords('employees', 2, secondsBefore(watermarkOf(bed), 30));
		sim.revealRecords('employees');
		const result = await pollOk(bed, parameters);
		expect(emittedPairs(result.records).sort()).toEqual(changePairs(inWindow).sort());
		expect(result.records.map((r) => r.id)).not.toContain(tooLate[0].id);
	});

	it('without a look-back window, a record made visible late is lost (documented limit)', async () => {
		const { sim } = bed.simulator;
		const parameters = withLookback(0);
		await pollOk(bed, parameters);
		const created = sim.createRecords('employees', 3);
		await pollOk(bed, parameters);

		sim.createLateRecords('employees', 2, secondsBefore(watermarkOf(bed), 1));
		sim.revealRecords('employees');
		expect((await pollOk(bed, parameters)).items).toBeNull();

		// What is at or after the watermark is still seen.
		const touched = sim.touchRecords('employees', [created[1].id]);
		expect(emittedPairs((await pollOk(bed, parameters)).records)).toEqual(changePairs(touched));
		expect((stateOf(bed).changes as ChangeState).recent).toEqual([]);
	});

	it('changing the window resumes from the watermark: later changes once, nothing sent before again', async () => {
		const { sim } = bed.simulator;
		await pollOk(bed, withLookback(0));
		const before = sim.createRecords('employees', 3);
		expect(emittedPairs((await pollOk(bed, withLookback(0))).records).sort()).toEqual(changePairs(before).sort());
		const meanwhile = sim.createRecords('employees', 2);
		// A wider window: the three sent without a window lie inside it and are not sent again.
		expect(emittedPairs((await pollOk(bed, withLookback(10))).records).sort()).toEqual(changePairs(meanwhile).sort());
		expect((await pollOk(bed, withLookback(10))).items).toBeNull();
		// Wider still: what was sent before is not sent again.
		expect((await pollOk(bed, withLookback(30))).items).toBeNull();
		const after = sim.createRecords('employees', 1);
		expect(emittedPairs((await pollOk(bed, withLookback(0))).records)).toEqual(changePairs(after));
	});
});
