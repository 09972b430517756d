/**
 * Personnel Data Trigger, Deleted: an organizational unit whose deleted_at becomes set is sent once
 * as a deletion, by the Deleted event and by Created or Updated (never as an update).
 */
import { useTestBed } from '../setup';
import { changePairs, emittedPairs, pollOk } from './helpers';

const DELETED = { resource: 'organizationalUnit', event: 'deleted', simplify: false };
const CHANGED = { resource: 'organizationalUnit', event: 'createdOrUpdated', simplify: false };

describe('Personnel Data Trigger: Deleted event', () => {
	const bed = useTestBed({}, { per: 'test' });

	const liveUnits = () => bed.simulator.sim.getRecords('orgUnits').filter((unit) => unit.deleted_at === null);

	it('sends each unit deleted after activation once, by deleted_at, and nothing for updates or creations', async () => {
		const { sim } = bed.simulator;
		expect((await pollOk(bed, DELETED)).items).toBeNull();

		const [first, second, third] = liveUnits();
		sim.touchRecords('orgUnits', [first.id], { changes: { name: 'Renamed unit' } });
		sim.createRecords('orgUnits', 2);
		expect((await pollOk(bed, DELETED)).items).toBeNull();

		const deleted = sim.softDeleteRecords('orgUnits', [second.id, third.id]);
		const result = await pollOk(bed, DELETED);
		expect(emittedPairs(result.records, 'deleted_at').sort()).toEqual(changePairs(deleted, 'deleted_at').sort());
		for (const record of result.records) {
			expect(record._event).toEqual({ type: 'deleted', resource: 'organizationalUnit', changedAt: record.deleted_at, key: expect.any(String) });
		}
		// A later update of a deleted unit leaves deleted_at alone: not sent again.
		sim.touchRecords('orgUnits', [second.id], { changes: { description: 'closed' } });
		expect((await pollOk(bed, DELETED)).items).toBeNull();
	});

	it('Created or Updated labels the change that set deleted_at "deleted", once', async () => {
		const { sim } = bed.simulator;
		expect((await pollOk(bed, CHANGED)).items).toBeNull();
		const [unit, other] = liveUnits();
		const [deleted] = sim.softDeleteRecords('orgUnits', [unit.id]);
		const [touched] = sim.touchRecords('orgUnits', [other.id], { changes: { phone: '+46 8 000 00 00' } });

		const result = await pollOk(bed, CHANGED);
		const types = Object.fromEntries(result.records.map((record) => [record.id, record._event.type]));
		expect(types).toEqual({ [deleted.id]: 'deleted', [touched.id]: 'updated' });
		expect((await pollOk(bed, CHANGED)).items).toBeNull();
	});

	it('is offered only where records carry deleted_at, and refused elsewhere with the events there are', async () => {
		const result = await bed.runtime.poll({ nodeType: 'personnelDataTrigger', parameters: { resource: 'competence', event: 'deleted' }, mode: 'trigger' });
		expect(result.error?.message).toMatch(/Competences have no timestamp for "deleted"; choose Created or Updated or Created/);
	});
});
