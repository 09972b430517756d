/**
 * Personnel Data Trigger: activation, "Fetch Test Event", one poll's reading and output, and a
 * basic create → poll → emit round for every watchable resource.
 */
import type { TriggerState } from '../../../nodes/PersonnelDataTrigger/triggerState';
import { WATCHABLE } from '../../../nodes/PersonnelDataTrigger/description';
import type { ProductEvent } from '../../../nodes/PersonnelDataTrigger/events';
import { defaultEventOf, eventsOf } from '../../../nodes/PersonnelDataTrigger/events';
import { compareTimestamps } from '../../../nodes/shared/timestamps';
import { collectionOf } from '../../../scripts/simulator/collections';
import { startTestBed, useTestBed } from '../setup';
import {
	changePairs,
	duplicates,
	emittedPairs,
	lastSeq,
	listRequestsSince,
	pollOk,
	stateOf,
} from './helpers';

const EMPLOYEES = { resource: 'employee', event: 'createdOrUpdated', simplify: false };

describe('Personnel Data Trigger: activation and one poll', () => {
	const bed = useTestBed({}, { per: 'test' });

	it('emits nothing old at activation and remembers "now" from the server\'s newest timestamp', async () => {
		const { sim } = bed.simulator;
		// A server clock far from the machine's clock: the watermark must come from the data.
		sim.setClock('2031-05-01T10:00:00.000001Z');
		const [newest] = sim.createRecords('employees', 1);

		const first = await pollOk(bed, EMPLOYEES);
		expect(first.items).toBeNull();
		const state = stateOf(bed).changes as unknown as TriggerState;
		// The server's time is known from its newest record, and what exists is remembered (the first pass is done).
		expect(state.feed.clock?.at).toBe(newest.updated_at);
		expect(state.feed.pass).toBeNull();
		expect(state.feed.memory.length).toBeGreaterThan(0);

		// Nothing changed: still nothing, the 250 seeded employees are never emitted.
		const second = await pollOk(bed, EMPLOYEES);
		expect(second.items).toBeNull();
	});

	it('"Fetch Test Event" returns a few most recent records and leaves the state alone', async () => {
		const { sim } = bed.simulator;
		await pollOk(bed, EMPLOYEES);
		const before = stateOf(bed);

		const created = sim.createRecords('employees', 5);
		const manual = await pollOk(bed, EMPLOYEES, 'manual');
		const newestFirst = [...created].reverse().slice(0, manual.records.length);
		expect(manual.records.length).toBeGreaterThanOrEqual(1);
		expect(manual.records.length).toBeLessThanOrEqual(5);
		expect(manual.records.map((r) => r.id)).toEqual(newestFirst.map((r) => r.id));
		for (const record of manual.records) expect(record._event).toEqual({ type: 'created', resource: 'employee', changedAt: record.updated_at, key: expect.any(String) });
		expect(stateOf(bed)).toEqual(before);

		// A manual run before any activation does not activate either.
		const fresh = await startTestBed();
		try {
			const sample = await pollOk(fresh, EMPLOYEES, 'manual');
			expect(sample.records.length).toBeGreaterThan(0);
			expect(stateOf(fresh)).toEqual({});
		} finally {
			await fresh.simulator.close();
		}

		// The five are still emitted by the next real poll.
		const next = await pollOk(bed, EMPLOYEES);
		expect(next.records.map((r) => r.id).sort()).toEqual(created.map((r) => r.id).sort());
	});

	it('reads every page of changes since the watermark, ordered by the change field ascending, each once', async () => {
		const { sim } = bed.simulator;
		await pollOk(bed, EMPLOYEES);

		const created = sim.createRecords('employees', 130);
		const seeded = sim.getRecords('employees').filter((r) => !created.some((c) => c.id === r.id)).slice(0, 120);
		const touched = sim.touchRecords('employees', seeded.map((r) => r.id));
		const touchedAgain = sim.touchRecords('employees', created.slice(0, 10).map((r) => r.id));
		const expected = new Set(changePairs([...created.slice(10), ...touched, ...touchedAgain]));

		const from = lastSeq(sim);
		const result = await pollOk(bed, EMPLOYEES);
		const pairs = emittedPairs(result.records);
		expect(duplicates(pairs)).toEqual([]);
		expect(new Set(pairs)).toEqual(expected);

		// Ascending by updated_at, across page boundaries.
		const stamps = result.records.map((r) => String(r.updated_at));
		for (let i = 1; i < stamps.length; i++) expect(compareTimestamps(stamps[i - 1], stamps[i])).toBeLessThanOrEqual(0);

		// The settle window from the activation on (changeFeed.ts): every page of at most 100, each
		// asking for updated_at ascending from the settled point.
		const requests = listRequestsSince(sim, from);
		expect(requests).toHaveLength(Math.ceil((created.length + touched.length) / 100));
		for (const request of requests) {
			expect(request.path).toBe('/v1/org/employees');
			expect(request.query).toMatchObject({
				order: { field: 'updated_at', direction: 'asc' },
				filters: { updated_at: { op: 'gte' } },
				pagination: { first: '100' },
			});
		}

		// `_event` tells a creation from an update.
		const byId = new Map(result.records.map((r) => [r.id, r]));
		expect(byId.get(created[20].id)?._event.type).toBe('created');
		expect(byId.get(touched[0].id)?._event).toEqual({ type: 'updated', resource: 'employee', changedAt: touched[0].updated_at, key: expect.any(String) });
		expect(byId.get(touchedAgain[0].id)?._event.type).toBe('updated');

		expect((await pollOk(bed, EMPLOYEES)).items).toBeNull();
	});

	it('emits a burst of records sharing one timestamp once, also when more arrive at that timestamp later', async () => {
		const { sim } = bed.simulator;
		await pollOk(bed, EMPLOYEES);
		sim.freezeClock();
		const burst = sim.createRecords('employees', 250);
		const first = await pollOk(bed, EMPLOYEES);
		expect(new Set(emittedPairs(first.records))).toEqual(new Set(changePairs(burst)));
		expect(first.records).toHaveLength(250);

		// Same microsecond, after the poll: the watermark's ids keep the first 250 out.
		const more = sim.createRecords('employees', 3);
		const touched = sim.touchRecords('employees', [burst[0].id]);
		expect(touched[0].updated_at).toBe(burst[0].updated_at);
		const second = await pollOk(bed, EMPLOYEES);
		expect(emittedPairs(second.records).sort()).toEqual(changePairs(more).sort());
		sim.unfreezeClock();
	});

	// Every resource the trigger offers, with its default event (the first every server supports), served by its
	// simulator collection (scripts/simulator/collections.ts).
	const watched = WATCHABLE.map((resource) => {
		const first = eventsOf(resource).find((event) => event.value === defaultEventOf(resource)) as ProductEvent;
		return [resource.value, first.value, String(first.changeField(resource))] as const;
	});
	it.each(watched)('%s: a created record is emitted once with _event', async (resource, event, field) => {
		const { sim } = bed.simulator;
		const collection = collectionOf(resource);
		const parameters = { resource, event, simplify: false };

		expect((await pollOk(bed, parameters)).items).toBeNull();
		const created = sim.createRecords(collection, 3, { restricted: false });
		const result = await pollOk(bed, parameters);
		expect(emittedPairs(result.records, field).sort()).toEqual(changePairs(created, field).sort());
		for (const record of result.records) {
			expect(record._event).toEqual({ type: 'created', resource, changedAt: record[field], key: expect.any(String) });
		}
		expect((await pollOk(bed, parameters)).items).toBeNull();

		if (field === 'updated_at') {
			const touched = sim.touchRecords(collection, [created[0].id]);
			const update = await pollOk(bed, parameters);
			expect(emittedPairs(update.records)).toEqual(changePairs(touched));
			expect(update.records[0]._event.type).toBe('updated');
		}
	});

	it('"Created" ignores updates and emits new records by inserted_at', async () => {
		const { sim } = bed.simulator;
		const parameters = { resource: 'competence', event: 'created', simplify: false };
		await pollOk(bed, parameters);
		sim.touchRecords('competences', sim.getRecords('competences').slice(0, 5).map((r) => r.id));
		expect((await pollOk(bed, parameters)).items).toBeNull();
		const created = sim.createRecords('competences', 2);
		const result = await pollOk(bed, parameters);
		expect(emittedPairs(result.records, 'inserted_at').sort()).toEqual(changePairs(created, 'inserted_at').sort());
		expect(result.records.every((r) => r._event.type === 'created')).toBe(true);
	});
});
