/**
 * Where a list's `total_count` lives: the spec does not say. The trigger believes a count inside
 * `pagination` or at the top of the body (`{data, pagination, total_count}`), so an idle poll
 * right after a burst at one timestamp costs one request either way. A count it cannot believe
 * is ignored: the trigger then reads the watermark's records exactly, page by page.
 */
import { evaluateRule } from '../../../scripts/simulator/conditions';
import type { SimRecord } from '../../../scripts/simulator/types';
import type { TestBedAccessor } from '../setup';
import { useTestBed } from '../setup';
import type { ListBody } from './helpers';
import { changePairs, emittedPairs, pollOk, reshapingProxy, totalCountAtTopLevel, useServer } from './helpers';

const EMPLOYEES = { resource: 'employee', event: 'createdOrUpdated', simplify: false };
const BURSTS = [1, 100, 101, 250];

type Proxy = { baseUrl: string; close: () => Promise<void> };

/** Puts the bed's credential behind the proxy `start` makes, for each test of the suite. */
function behind(bed: TestBedAccessor, start: ((target: string) => Promise<Proxy>) | undefined): void {
	let proxy: Proxy | undefined;
	beforeEach(async () => {
		if (!start) return;
		proxy = await start(bed.simulator.baseUrl);
		useServer(bed, proxy.baseUrl);
	});
	afterEach(async () => {
		await proxy?.close();
		proxy = undefined;
	});
}

/** A burst of `size` new employees at one frozen timestamp, then the clock runs on. */
function burstAtOneTime(bed: TestBedAccessor, size: number): SimRecord[] {
	const { sim } = bed.simulator;
	sim.freezeClock();
	const burst = sim.createRecords('employees', size);
	sim.unfreezeClock();
	return burst;
}

describe.each([
	['inside pagination', undefined],
	['at the top level of the body', totalCountAtTopLevel],
] as const)('Personnel Data Trigger: total_count %s', (_, proxy) => {
	const bed = useTestBed({}, { per: 'test' });
	behind(bed, proxy);

	it.each(BURSTS)('after a burst of %i changes at one timestamp: each sent once, then an idle poll costs 1 request', async (size) => {
		const { sim } = bed.simulator;
		await pollOk(bed, EMPLOYEES);
		const burst = burstAtOneTime(bed, size);
		expect(emittedPairs((await pollOk(bed, EMPLOYEES)).records).sort()).toEqual(changePairs(burst).sort());
		for (let i = 0; i < 2; i++) {
			sim.resetStats();
			expect((await pollOk(bed, EMPLOYEES)).items).toBeNull();
			expect(sim.stats().requests).toBe(1);
		}
		// More at that very timestamp: the count grew, so they are read and sent, each once.
		sim.freezeClock(String(burst[0].updated_at));
		const more = sim.createRecords('employees', 2);
		sim.unfreezeClock();
		expect(emittedPairs((await pollOk(bed, EMPLOYEES)).records).sort()).toEqual(changePairs(more).sort());
		sim.resetStats();
		expect((await pollOk(bed, EMPLOYEES)).items).toBeNull();
		expect(sim.stats().requests).toBe(1);
	});

	it.each(BURSTS)('with a condition, after a burst of %i: exactly the passing changes once, then an idle poll costs 1 request', async (size) => {
		const { sim } = bed.simulator;
		// A generated condition (a hash of the id): some of each burst pass, the rest are hidden.
		const [condition] = sim.createRecords('conditions', 1);
		const passes = (record: SimRecord) => evaluateRule(condition.data_engine, record, sim.clock.today());
		const parameters = { ...EMPLOYEES, condition: { __rl: true, mode: 'id', value: condition.id } };
		await pollOk(bed, parameters);
		const burst = burstAtOneTime(bed, size);
		expect(emittedPairs((await pollOk(bed, parameters)).records).sort()).toEqual(changePairs(burst.filter(passes)).sort());
		for (let i = 0; i < 2; i++) {
			sim.resetStats();
			expect((await pollOk(bed, parameters)).items).toBeNull();
			expect(sim.stats().requests).toBe(1);
		}
	});
});

/** Counts no server should be believed, each placed as a server might place it. */
const UNBELIEVABLE: Array<[string, (body: ListBody, count: number) => void]> = [
	['negative, at the top level', (body) => (body.total_count = -1)],
	['not a whole number, at the top level', (body, count) => (body.total_count = count + 0.5)],
	['smaller than the records on the page, at the top level', (body) => (body.total_count = Math.max(0, (body.data as unknown[]).length - 1))],
	['a string, at the top level', (body, count) => (body.total_count = String(count))],
	['negative, inside pagination', (body) => (body.pagination = { ...body.pagination, total_count: -1 })],
	['given in both places, disagreeing', (body, count) => {
		body.pagination = { ...body.pagination, total_count: count };
		body.total_count = count + 1;
	}],
];

describe.each(UNBELIEVABLE)('Personnel Data Trigger: a total_count that is %s', (_, place) => {
	const bed = useTestBed({}, { per: 'test' });
	behind(bed, (target) =>
		reshapingProxy(target, (body) => {
			const count = body.pagination?.total_count;
			if (typeof count !== 'number') return;
			delete body.pagination?.total_count;
			place(body, count);
		}),
	);

	it('is ignored: the watermark is read exactly, page by page, and each change is sent once', async () => {
		const { sim } = bed.simulator;
		await pollOk(bed, EMPLOYEES);
		const burst = burstAtOneTime(bed, 250);
		expect(emittedPairs((await pollOk(bed, EMPLOYEES)).records).sort()).toEqual(changePairs(burst).sort());
		sim.resetStats();
		expect((await pollOk(bed, EMPLOYEES)).items).toBeNull();
		// The probe, then the three pages at the watermark.
		expect(sim.stats().requests).toBe(4);
		const touched = sim.touchRecords('employees', [burst[7].id]);
		expect(emittedPairs((await pollOk(bed, EMPLOYEES)).records)).toEqual(changePairs(touched));
	});
});
