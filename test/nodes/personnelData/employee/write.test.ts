import type { IDataObject } from 'n8n-workflow';

import { useCredential, useTestBed } from '../../setup';
import { apiRequests, byId, jsonOf, PATCH_SERVERS, run } from '../helpers';

describe.each(PATCH_SERVERS)('Personnel Data: writes, on a server that $name', ({ variation }) => {
	const bed = useTestBed({ variation });

	const sim = () => bed.simulator.sim;
	const getRaw = async (id: string): Promise<IDataObject> =>
		jsonOf(await run(bed, { resource: 'employee', operation: 'get', id: byId(id), simplify: false }))[0];

	describe('Employee: Create', () => {
		it('POSTs {data} with the required names, fields, dated values (sorted newest first) and custom properties', async () => {
			const orgUnit = sim().getRecords('orgUnits')[0].id;
			const result = await run(bed, {
				resource: 'employee',
				operation: 'create',
				first_name: ' Ada ',
				last_name: 'Lovelace',
				fields: { email: 'ada@north.example', employee_number: 'E999' },
				datedValues: {
					entry: [
						{ property: 'title', validFrom: '', value: 'Analyst' },
						{ property: 'title', validFrom: '2026-01-01', value: 'Lead Analyst' },
						{ property: 'work_percentage', validFrom: '2025-03-01', value: '80' },
						{ property: 'org_unit_id', validFrom: '2025-03-01', value: orgUnit },
					],
				},
				customProperties: '{"shirt_size": "L"}',
			});
			const [created] = jsonOf(result);
			const [request] = apiRequests(bed);
			expect(`${request.method} ${request.path}`).toBe('POST /v1/org/employees');
			expect(request.status).toBe(201);
			expect(request.body).toEqual({
				data: {
					first_name: 'Ada',
					last_name: 'Lovelace',
					email: 'ada@north.example',
					employee_number: 'E999',
					properties: {
						title: [
							{ valid_from: '2026-01-01', value: 'Lead Analyst' },
							{ valid_from: null, value: 'Analyst' },
						],
						work_percentage: [{ valid_from: '2025-03-01', value: 80 }],
						org_unit_id: [{ valid_from: '2025-03-01', value: orgUnit }],
						custom_properties: { shirt_size: 'L' },
					},
				},
			});
			expect(created.first_name).toBe('Ada');
			const stored = await getRaw(String(created.id));
			expect((stored.properties as IDataObject).title).toEqual([
				{ valid_from: '2026-01-01', value: 'Lead Analyst' },
				{ valid_from: null, value: 'Analyst' },
			]);
		});

		it('a role without the create permission gets the API\'s 403', async () => {
			useCredential(bed, 'limited');
			const result = await run(bed, { resource: 'employee', operation: 'create', first_name: 'No', last_name: 'Access' });
			expect(result.error).toBeDefined();
			expect(apiRequests(bed).map((entry) => entry.status)).toEqual([403]);
		});
	});

	describe('Employee: Update (PATCH)', () => {
		it('Replace the Whole History: replaces a targeted dated property whole and leaves the others untouched', async () => {
			const [employee] = sim().createRecords('employees', 1, { restricted: false });
			const before = await getRaw(employee.id);
			const beforeProps = before.properties as IDataObject;

			const result = await run(bed, {
				resource: 'employee',
				operation: 'update',
				id: byId(employee.id),
				fields: { phone2: '+46 70 000 00 00' },
				datedValues: { entry: [{ property: 'title', mode: 'replaceHistory', validFrom: '2026-12-01', value: 'Head of Things' }] },
				customProperties: '{"badge_number": "B00001"}',
			});
			expect(result.error).toBeUndefined();
			// A custom property is written: the employee's are read first, to be kept.
			const [read, request] = apiRequests(bed);
			expect(`${read.method} ${read.path}`).toBe('GET /v1/org/employees');
			expect(`${request.method} ${request.path}`).toBe(`PATCH /v1/org/employees/${employee.id}`);
			expect(request.body).toEqual({
				data: {
					phone2: '+46 70 000 00 00',
					properties: {
						title: [{ valid_from: '2026-12-01', value: 'Head of Things' }],
						// The whole object, the key given over the employee's: kept on a server that replaces it.
						custom_properties: { ...(beforeProps.custom_properties as IDataObject), badge_number: 'B00001' },
					},
				},
			});

			const after = await getRaw(employee.id);
			const afterProps = after.properties as IDataObject;
			expect(afterProps.title).toEqual([{ valid_from: '2026-12-01', value: 'Head of Things' }]);
			for (const name of ['org_unit_id', 'manager_id', 'employment_type', 'cost_center', 'work_percentage']) {
				expect(afterProps[name]).toEqual(beforeProps[name]);
			}
			expect(afterProps.custom_properties).toEqual({ ...(beforeProps.custom_properties as IDataObject), badge_number: 'B00001' });
			expect(after.phone2).toBe('+46 70 000 00 00');
			for (const name of ['first_name', 'last_name', 'email', 'phone1', 'private_id_number', 'employee_number']) {
				expect(after[name]).toEqual(before[name]);
			}
		});

		it('Replace the Whole History: keeps history only when the rows include it', async () => {
			const [employee] = sim().createRecords('employees', 1, { restricted: false });
			await run(bed, {
				resource: 'employee',
				operation: 'update',
				id: byId(employee.id),
				datedValues: {
					entry: [
						{ property: 'cost_center', mode: 'replaceHistory', validFrom: '', value: 'CC-1' },
						{ property: 'cost_center', mode: 'replaceHistory', validFrom: '2026-06-01', value: 'CC-2' },
					],
				},
			});
			const props = (await getRaw(employee.id)).properties as IDataObject;
			expect(props.cost_center).toEqual([
				{ valid_from: '2026-06-01', value: 'CC-2' },
				{ valid_from: null, value: 'CC-1' },
			]);
		});
	});

	describe('Employee: Replace (PUT)', () => {
		it('replaces the whole employee: fields and dated properties left out are gone', async () => {
			const [employee] = sim().createRecords('employees', 1, { restricted: false });
			const result = await run(bed, {
				resource: 'employee',
				operation: 'replace',
				id: byId(employee.id),
				first_name: 'Grace',
				last_name: 'Hopper',
				datedValues: { entry: [{ property: 'employment_type', validFrom: '2020-01-01', value: 'permanent' }] },
			});
			expect(result.error).toBeUndefined();
			const [request] = apiRequests(bed);
			expect(`${request.method} ${request.path}`).toBe(`PUT /v1/org/employees/${employee.id}`);
			expect(request.body).toEqual({
				data: {
					first_name: 'Grace',
					last_name: 'Hopper',
					properties: { employment_type: [{ valid_from: '2020-01-01', value: 'permanent' }] },
				},
			});
			const after = await getRaw(employee.id);
			expect(after).toMatchObject({ id: employee.id, first_name: 'Grace', last_name: 'Hopper', email: null, phone1: null });
			const props = after.properties as IDataObject;
			// The history given: the server's whole history of it, or (a server that adds entries by
			// date on PUT) its entry beside the ones of other dates; a property left out is gone.
			const given = { valid_from: '2020-01-01', value: 'permanent' };
			if (variation.putDatedProperties === 'replace') expect(props.employment_type).toEqual([given]);
			else expect(props.employment_type).toEqual(expect.arrayContaining([given]));
			expect(props.title).toEqual([]);
		});
	});
});
