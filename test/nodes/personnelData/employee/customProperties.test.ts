/**
 * A write changes only what it names: custom properties the write does not name are kept, on a
 * server that merges `custom_properties` on PATCH and on one that replaces the object whole; the
 * preview, the applied write and the item's writeChanges say exactly what the write leaves.
 */
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { describeChange } from '../../../../nodes/PersonnelData/actions/employee/changes';
import { useTestBed } from '../../setup';
import type { RunOptions } from '../helpers';
import { apiRequests, byId, jsonOf, outputOf, PATCH_SERVERS, run } from '../helpers';

const V2: RunOptions = { typeVersion: 2 };
const items = (rows: IDataObject[]): INodeExecutionData[] => rows.map((json) => ({ json }));
const automatically = (extra: INodeParameters = {}): INodeParameters => ({ mappingMode: 'autoMapInputData', value: null, matchingColumns: [], schema: [], ...extra });
const customOf = (record: IDataObject): IDataObject => ((record.properties as IDataObject).custom_properties ?? {}) as IDataObject;

describe.each(PATCH_SERVERS)('Personnel Data: custom properties a write does not name are kept, on a server that $name', ({ variation }) => {
	const bed = useTestBed({ variation });
	const sim = () => bed.simulator.sim;
	const writes = () => apiRequests(bed).filter((entry) => entry.method !== 'GET');
	const stored = (id: string): IDataObject => {
		const record = sim()
			.getRecords('employees')
			.find((candidate) => candidate.id === id);
		if (!record) throw new Error(`no employee ${id}`);
		return structuredClone(record) as unknown as IDataObject;
	};
	let numberSeq = 0;
	const freshNumber = () => `C-${process.pid}-${++numberSeq}`;
	/** Employees with two custom properties of their own, so that a write of a third must keep both. */
	const existing = (count: number) =>
		Array.from({ length: count }, (_, index) => {
			const [record] = sim().createRecords('employees', 1, { restricted: false, overrides: { employee_number: freshNumber() } as never });
			sim().touchRecords('employees', [record.id], { changes: { properties: { ...(record.properties as IDataObject), custom_properties: { shirt_size: 'M', locker: `L-${index}` } } } as never });
			return stored(record.id);
		});

	it('the simulator really is such a server (a PATCH of one key by hand)', async () => {
		const [person] = existing(1);
		const response = await fetch(`${bed.simulator.baseUrl}/v1/org/employees/${String(person.id)}`, {
			method: 'PATCH',
			headers: { authorization: `Bearer ${bed.simulator.credentials.admin.legacyToken}`, 'content-type': 'application/json' },
			body: JSON.stringify({ data: { properties: { custom_properties: { badge: 'B-1' } } } }),
		});
		expect(response.status).toBe(200);
		const expected = variation.customPropertiesPatch === 'merge' ? { shirt_size: 'M', locker: 'L-0', badge: 'B-1' } : { badge: 'B-1' };
		expect(customOf(stored(String(person.id)))).toEqual(expected);
	});

	it('version 1 Update, Custom Properties (JSON): the other keys stay, one read before the PATCH', async () => {
		const [person] = existing(1);
		const result = await run(bed, { resource: 'employee', operation: 'update', id: byId(String(person.id)), customProperties: '{"badge": "B-2002"}' });
		expect(result.error).toBeUndefined();
		expect(apiRequests(bed).map((entry) => entry.method)).toEqual(['GET', 'PATCH']);
		expect(customOf(stored(String(person.id)))).toEqual({ shirt_size: 'M', locker: 'L-0', badge: 'B-2002' });
		expect(jsonOf(result)[0]).toMatchObject({ properties: { custom_properties: { shirt_size: 'M', locker: 'L-0', badge: 'B-2002' } } });
	});

	it('version 1 Update, properties.custom_properties in Other Fields (JSON), beside a dated value: the other keys stay', async () => {
		const [person] = existing(1);
		const result = await run(bed, {
			resource: 'employee',
			operation: 'update',
			id: byId(String(person.id)),
			datedValues: { entry: [{ property: 'title', validFrom: '2027-01-01', value: 'Lead' }] },
			otherFields: JSON.stringify({ properties: { custom_properties: { locker: 'L-99', badge: null } } }),
		});
		expect(result.error).toBeUndefined();
		expect(apiRequests(bed).map((entry) => entry.method)).toEqual(['GET', 'PATCH']);
		expect(customOf(stored(String(person.id)))).toEqual({ shirt_size: 'M', locker: 'L-99', badge: null });
	});

	it('version 1 Replace (PUT) replaces the object whole, as PUT does on every server', async () => {
		const [person] = existing(1);
		const result = await run(bed, { resource: 'employee', operation: 'replace', id: byId(String(person.id)), first_name: 'Re', last_name: 'Placed', customProperties: '{"badge": "B-3"}' });
		expect(result.error).toBeUndefined();
		expect(customOf(stored(String(person.id)))).toEqual({ badge: 'B-3' });
	});

	it('version 2 Update and Create or Update of 10 employees: every shirt_size stays, and writeChanges names only the key written', async () => {
		const people = existing(10);
		const [updated] = jsonOf(
			await run(bed, { resource: 'employee', operation: 'update', id: byId(String(people[0].id)), columns: automatically(), options: { customProperties: '{"badge": "B-0"}' } }, { ...V2, items: items([{}]) }),
		);
		expect(updated.writeOutcome).toBe('updated');
		expect(updated.writeChanges).toEqual({ fields: {}, customProperties: { badge: { before: null, after: 'B-0' } }, histories: {} });
		expect(updated.writeChanges).toEqual(describeChange(people[0], stored(String(people[0].id))));

		const rows = people.map((person, index) => ({ employee_number: person.employee_number, phone2: `+46 ${index}` }));
		const upserted = jsonOf(
			await run(
				bed,
				{ resource: 'employee', operation: 'upsert', columns: automatically({ matchingColumns: ['employee_number'] }), options: { customProperties: '{"badge": "B-2002"}' } },
				{ ...V2, items: items(rows) },
			),
		);
		expect(upserted.map((item) => item.writeOutcome)).toEqual(Array(10).fill('updated'));
		people.forEach((person, index) => {
			expect(customOf(stored(String(person.id)))).toEqual({ shirt_size: 'M', locker: `L-${index}`, badge: 'B-2002' });
			expect((upserted[index].writeChanges as IDataObject).customProperties).toEqual({ badge: { before: index === 0 ? 'B-0' : null, after: 'B-2002' } });
		});
		expect(writes()).toHaveLength(10);
	});

	it('a preview says only the key written changes; the apply leaves exactly what the preview said, and writeChanges equals it', async () => {
		const people = existing(3);
		const parameters = (writeMode: string): INodeParameters => ({
			resource: 'employee',
			operation: 'upsert',
			columns: automatically({ matchingColumns: ['employee_number'] }),
			options: { customProperties: '{"badge": "B-7"}', writeMode },
		});
		const preview = outputOf(await run(bed, parameters('preview'), { ...V2, items: items(people.map((person) => ({ employee_number: person.employee_number }))) }));
		expect(writes()).toEqual([]);
		for (const item of preview) {
			expect((item.json.preview as IDataObject).changes).toEqual({ fields: {}, customProperties: { badge: { before: null, after: 'B-7' } }, histories: {} });
		}
		const applied = outputOf(await run(bed, parameters('apply'), { ...V2, items: preview.map((item) => ({ json: item.json })) }));
		expect(applied.map((item) => item.json.writeOutcome)).toEqual(['updated', 'updated', 'updated']);
		people.forEach((person, index) => {
			const after = stored(String(person.id));
			expect(customOf(after)).toEqual({ shirt_size: 'M', locker: `L-${index}`, badge: 'B-7' });
			expect(describeChange(person, after)).toEqual((preview[index].json.preview as IDataObject).changes);
			expect(applied[index].json.writeChanges).toEqual((preview[index].json.preview as IDataObject).changes);
		});
	});

	it('a key another client added between the preview and the apply is not lost: the apply is refused, naming it', async () => {
		const [person] = existing(1);
		const parameters = (writeMode: string): INodeParameters => ({
			resource: 'employee',
			operation: 'upsert',
			columns: automatically({ matchingColumns: ['employee_number'] }),
			options: { customProperties: '{"badge": "B-8"}', writeMode },
		});
		const preview = outputOf(await run(bed, parameters('preview'), { ...V2, items: items([{ employee_number: person.employee_number }]) }));
		sim().advanceClock(1);
		sim().touchRecords('employees', [String(person.id)], { changes: { properties: { ...(person.properties as IDataObject), custom_properties: { shirt_size: 'M', locker: 'L-0', parking: 'P-1' } } } as never });
		const refused = await run(bed, parameters('apply'), { ...V2, items: preview.map((item) => ({ json: item.json })) });
		expect(refused.error?.message).toContain(`Employee ${String(person.id)} changed since the preview`);
		expect(refused.error?.message).toContain('properties.custom_properties.parking');
		expect(writes()).toEqual([]);
		expect(customOf(stored(String(person.id)))).toEqual({ shirt_size: 'M', locker: 'L-0', parking: 'P-1' });
	});
});
