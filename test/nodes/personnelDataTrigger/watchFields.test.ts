/**
 * Personnel Data Trigger, Options → Watch Fields: an update is sent only when a watched field
 * changed, with `_event.changedFields` and (Include Previous Values) `_event.previous`; the
 * baseline is read once at activation, with only the fields it needs.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { TriggerState } from '../../../nodes/PersonnelDataTrigger/triggerState';
import { WATCH_SWEEP_MS } from '../../../nodes/PersonnelDataTrigger/watchBaseline';
import type { JsonObject, SimRecord } from '../../../scripts/simulator/types';
import { useTestBed } from '../setup';
import { lastSeq, listRequestsSince, pollOk, stateOf } from './helpers';

const WATCHED = ['email', 'properties.manager_id', 'custom_properties.shirt_size'];

const watching = (options: IDataObject = {}, watchFields: unknown = WATCHED): INodeParameters => ({
	resource: 'employee',
	event: 'createdOrUpdated',
	simplify: false,
	options: { watchFields, ...options } as INodeParameters,
});

type History = JsonObject[];

const propertiesOf = (record: SimRecord) => record.properties as JsonObject & { manager_id: History; custom_properties: JsonObject };

describe('Personnel Data Trigger: Watch Fields', () => {
	const bed = useTestBed({}, { per: 'test' });

	it('reads the baseline once at activation: ⌈N/100⌉ requests selecting only the id, the change field and the watched fields', async () => {
		const { sim } = bed.simulator;
		const total = sim.getRecords('employees').length;
		const from = lastSeq(sim);
		expect((await pollOk(bed, watching())).items).toBeNull();
		const walk = listRequestsSince(sim, from).filter((request) => (request.query?.select as string[] | undefined)?.includes('email'));
		expect(walk).toHaveLength(Math.ceil(total / 100));
		for (const request of walk) expect([...(request.query?.select as string[])].sort()).toEqual(['email', 'id', 'properties', 'updated_at']);
		const state = stateOf(bed).changes as unknown as TriggerState;
		expect(Object.keys(state.watch?.records ?? {})).toHaveLength(total);
		// Never again: the next polls read changes only.
		sim.touchRecords('employees', [sim.getRecords('employees')[0].id], { changes: { phone1: '+46 70 000 00 00' } });
		const next = lastSeq(sim);
		await pollOk(bed, watching());
		expect(listRequestsSince(sim, next).length).toBeLessThanOrEqual(1);
	});

	it('sends exactly the changes of watched fields, with the previous values and the history entries added and removed', async () => {
		const { sim } = bed.simulator;
		await pollOk(bed, watching({ includePreviousValues: true }));
		const [a, b, c, d, e] = sim.getRecords('employees');

		// Unwatched changes only: nothing is sent.
		sim.touchRecords('employees', [a.id, b.id], { changes: { phone1: '+46 70 111 11 11', last_name: 'Other' } });
		sim.touchRecords('employees', [c.id], { changes: { properties: { ...propertiesOf(c), title: [{ valid_from: null, value: 'Chief' }] } } });
		expect((await pollOk(bed, watching({ includePreviousValues: true }))).items).toBeNull();

		// One change of each kind, and one record changed in two watched fields.
		const newManager: History = [{ valid_from: '2026-12-01', value: e.id }, ...propertiesOf(b).manager_id];
		sim.touchRecords('employees', [a.id], { changes: { email: 'new.address@example.com' } });
		sim.touchRecords('employees', [b.id], { changes: { properties: { ...propertiesOf(b), manager_id: newManager } } });
		const cProps = propertiesOf(c);
		sim.touchRecords('employees', [c.id], { changes: { properties: { ...cProps, custom_properties: { ...cProps.custom_properties, shirt_size: 'XXXL' } } } });
		sim.touchRecords('employees', [d.id], { changes: { email: 'd@example.com', properties: { ...propertiesOf(d), manager_id: [] } } });
		const created = sim.createRecords('employees', 1)[0];

		const result = await pollOk(bed, watching({ includePreviousValues: true }));
		const events = Object.fromEntries(result.records.map((record) => [record.id, record._event as unknown as IDataObject]));
		expect(Object.keys(events).sort()).toEqual([a.id, b.id, c.id, d.id, created.id].sort());
		expect(events[a.id]).toMatchObject({ type: 'updated', changedFields: ['email'], previous: { email: a.email } });
		expect(events[b.id]).toMatchObject({
			type: 'updated',
			changedFields: ['properties.manager_id'],
			previous: { 'properties.manager_id': propertiesOf(b).manager_id },
			historyChanges: { 'properties.manager_id': { added: [newManager[0]], removed: [] } },
		});
		expect(events[c.id]).toMatchObject({ changedFields: ['custom_properties.shirt_size'], previous: { 'custom_properties.shirt_size': cProps.custom_properties.shirt_size } });
		expect(events[d.id]).toMatchObject({
			changedFields: ['email', 'properties.manager_id'],
			previous: { email: d.email, 'properties.manager_id': propertiesOf(d).manager_id },
			historyChanges: { 'properties.manager_id': { added: [], removed: propertiesOf(d).manager_id } },
		});
		expect(events[created.id]).toMatchObject({ type: 'created', changedFields: WATCHED, previous: {} });

		// Sent once: nothing new, nothing again; a change back is a change.
		expect((await pollOk(bed, watching({ includePreviousValues: true }))).items).toBeNull();
		sim.touchRecords('employees', [a.id], { changes: { email: a.email } });
		const back = await pollOk(bed, watching({ includePreviousValues: true }));
		expect(back.records.map((r) => [r.id, (r._event as unknown as IDataObject).previous])).toEqual([[a.id, { email: 'new.address@example.com' }]]);
	});

	it('without previous values keeps a fingerprint per field and still names the changed fields', async () => {
		const { sim } = bed.simulator;
		await pollOk(bed, watching({}, 'email, properties.manager_id'));
		const state = stateOf(bed).changes as unknown as TriggerState;
		for (const entry of Object.values(state.watch?.records ?? {})) expect(entry).toEqual([expect.stringMatching(/^[0-9a-f]{16}$/), expect.stringMatching(/^[0-9a-f]{16}$/)]);

		const [a, b] = sim.getRecords('employees');
		sim.touchRecords('employees', [a.id], { changes: { email: 'changed@example.com' } });
		sim.touchRecords('employees', [b.id], { changes: { phone2: '+46 70 222 22 22' } });
		const result = await pollOk(bed, watching({}, 'email, properties.manager_id'));
		expect(result.records).toHaveLength(1);
		expect(result.records[0]._event).toEqual({ type: 'updated', resource: 'employee', changedAt: result.records[0].updated_at, key: expect.any(String), changedFields: ['email'] });
	});

	it('other watched fields read a new baseline; watching nothing drops the kept values', async () => {
		const { sim } = bed.simulator;
		await pollOk(bed, watching({}, ['email']));
		const from = lastSeq(sim);
		expect((await pollOk(bed, watching({}, ['phone1']))).items).toBeNull();
		expect(listRequestsSince(sim, from).length).toBeGreaterThan(1);
		const [a] = sim.getRecords('employees');
		sim.touchRecords('employees', [a.id], { changes: { phone1: '+46 70 333 33 33' } });
		expect((await pollOk(bed, watching({}, ['phone1']))).records.map((r) => r._event.changedAt)).toHaveLength(1);

		await pollOk(bed, { resource: 'employee', event: 'createdOrUpdated', simplify: false });
		expect((stateOf(bed).changes as unknown as TriggerState).watch).toBeNull();
	});

	it('refuses a name that is not a field, naming the option, and sends nothing', async () => {
		const from = lastSeq(bed.simulator.sim);
		const bad = await bed.runtime.poll({ nodeType: 'personnelDataTrigger', parameters: watching({}, ['properties.']), mode: 'trigger' });
		expect(bad.error?.message).toMatch(/Options › Watch Fields: "properties\." is not a field name/);
		expect(listRequestsSince(bed.simulator.sim, from)).toEqual([]);
	});

	it('is an option of Created or Updated only: with Created it is not shown and not applied', async () => {
		const { sim } = bed.simulator;
		const parameters = { resource: 'employee', event: 'created', simplify: false, options: { watchFields: ['email'] } };
		await pollOk(bed, parameters);
		const created = sim.createRecords('employees', 2);
		const result = await pollOk(bed, parameters);
		expect(result.records.map((r) => r.id).sort()).toEqual(created.map((r) => r.id).sort());
		for (const record of result.records) expect(record._event).not.toHaveProperty('changedFields');
		expect((stateOf(bed).changes as unknown as TriggerState).watch).toBeNull();
	});
	it('an edit of Watch Fields: a record changed since the last poll is sent only for a field watched before and after the edit whose value changed', async () => {
		const { sim } = bed.simulator;
		const before = watching({ includePreviousValues: true }, ['email']);
		const after = watching({ includePreviousValues: true }, ['email', 'phone1']);
		await pollOk(bed, before);
		const [a, b, c] = sim.getRecords('employees');
		// Changed after the last poll, read only once the edit is in: a's watched email, b's phone1
		// (not watched before the edit), c's unwatched last name.
		sim.touchRecords('employees', [a.id], { changes: { email: 'edited@example.com' } });
		sim.touchRecords('employees', [b.id], { changes: { phone1: '+46 70 333 33 33' } });
		sim.touchRecords('employees', [c.id], { changes: { last_name: 'Unwatched' } });
		const sent = [...(await pollOk(bed, after)).records, ...(await pollOk(bed, after)).records];
		expect(sent.map((record) => [record.id, (record._event as unknown as IDataObject).changedFields, (record._event as unknown as IDataObject).previous])).toEqual([
			[a.id, ['email'], { email: a.email }],
		]);
		// From the edit on, phone1 is watched like email.
		sim.touchRecords('employees', [b.id, c.id], { changes: { phone1: '+46 70 444 44 44' } });
		const later = (await pollOk(bed, after)).records;
		expect(later.map((record) => [record.id, (record._event as unknown as IDataObject).changedFields]).sort()).toEqual(
			[[b.id, ['phone1']], [c.id, ['phone1']]].sort(),
		);
		// The values carried over the edit are dropped once its baseline is whole.
		expect((stateOf(bed).changes as unknown as TriggerState).watch).not.toHaveProperty('carried');
	});

	it('the daily sweep also runs in polls that send: while every poll sends, a deleted record is still forgotten', async () => {
		const { sim } = bed.simulator;
		await pollOk(bed, watching());
		const records = () => Object.keys((stateOf(bed).changes as unknown as TriggerState).watch?.records ?? {});
		const [gone, changed] = sim.getRecords('employees');
		sim.deleteRecords('employees', [gone.id]);
		const stored = stateOf(bed).changes as unknown as TriggerState;
		bed.runtime.setStaticData('Personnel Data Trigger', { changes: { ...stored, watch: { ...stored.watch, readAt: Date.now() - WATCH_SWEEP_MS - 1 } } });
		sim.touchRecords('employees', [changed.id], { changes: { email: 'still.sending@example.com' } });
		expect((await pollOk(bed, watching())).records.map((record) => record.id)).toEqual([changed.id]);
		expect(records()).not.toContain(gone.id);
	});

	it('keeps only records that still exist and match: a daily sweep forgets deleted ones, narrowed filters start a baseline of their own', async () => {
		const { sim } = bed.simulator;
		await pollOk(bed, watching());
		const total = sim.getRecords('employees').length;
		const records = () => Object.keys((stateOf(bed).changes as unknown as TriggerState).watch?.records ?? {});
		expect(records()).toHaveLength(total);
		const gone = sim.getRecords('employees').slice(0, 3).map((r) => r.id);
		sim.deleteRecords('employees', gone);
		// A day later (the state's clock moved back instead): a poll that sends nothing sweeps.
		const stored = stateOf(bed).changes as unknown as TriggerState;
		bed.runtime.setStaticData('Personnel Data Trigger', { changes: { ...stored, watch: { ...stored.watch, readAt: Date.now() - WATCH_SWEEP_MS - 1 } } });
		const from = lastSeq(sim);
		expect((await pollOk(bed, watching())).items).toBeNull();
		expect(listRequestsSince(sim, from).length).toBeGreaterThanOrEqual(Math.ceil((total - 3) / 100));
		expect(records()).toHaveLength(total - 3);
		expect(records().some((id) => gone.includes(id))).toBe(false);
		// Narrower filters: the records kept are the ones that match them.
		const [kept] = sim.getRecords('employees');
		const narrowed = { ...watching(), filters: { filter: [{ field: 'last_name', operator: 'eq', value: String(kept.last_name) }] } };
		expect((await pollOk(bed, narrowed)).items).toBeNull();
		const matching = sim.getRecords('employees').filter((r) => r.last_name === kept.last_name).length;
		expect(records()).toHaveLength(matching);
		// Watched changes are still sent after the sweep.
		sim.touchRecords('employees', [kept.id], { changes: { email: 'swept@example.com' } });
		expect((await pollOk(bed, narrowed)).records.map((r) => r.id)).toEqual([kept.id]);
	});
});
