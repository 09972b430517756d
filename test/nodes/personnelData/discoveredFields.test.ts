import type { IDataObject, INodeParameters, INodePropertyOptions } from 'n8n-workflow';

import { resourceByValue } from '../../../nodes/shared/registry';
import type { SimRecord } from '../../../scripts/simulator/types';
import type { TestBed } from '../setup';
import { startTestBed, useCredential } from '../setup';
import { apiRequests, byId, idsOf, jsonOf, queryPairs, queryValues, run } from './helpers';

/**
 * Another customer's employees (the simulator's `remapped` schema): `organizational_unit_id`,
 * `employment_start_date` and `deleted_at` at the top level, dated `first_name`, `email`, `phone1`
 * and `weekly_hours`, and of the registry's six dated properties only `title`.
 */
const employee = resourceByValue('employee');
const valuesOf = (options: INodePropertyOptions[]): string[] => options.map((option) => String(option.value));
const optionFor = (options: INodePropertyOptions[], value: string) => options.find((option) => option.value === value);

/** The value in force on `day`, worked out here from the stored entries (latest valid_from not after it; null is the beginning). */
function inForce(entries: Array<{ valid_from: string | null; value: unknown }>, day: string): unknown {
	const candidates = entries.filter((entry) => entry.valid_from === null || entry.valid_from <= day);
	if (candidates.length === 0) return null;
	const latest = candidates.reduce((best, entry) => ((entry.valid_from ?? '') > (best.valid_from ?? '') ? entry : best));
	return latest.value;
}

describe('Personnel Data: fields discovered from the customer\'s records', () => {
	let bed: TestBed;
	const sim = () => bed.simulator.sim;
	const employeeLists = () => apiRequests(bed).filter((entry) => entry.method === 'GET' && entry.path === '/v1/org/employees');
	const loadOptions = (method: string, parameters: INodeParameters = { resource: 'employee', operation: 'getMany' }, nodeType = 'personnelData') =>
		bed.runtime.loadOptions({ nodeType, method, parameters });

	beforeAll(async () => {
		bed = await startTestBed({ employeeSchema: 'remapped' });
	});
	afterAll(async () => {
		await bed.simulator.close();
	});
	afterEach(() => sim().clearFaults());

	describe('the form', () => {
		it('one sampled page of records serves every field picker of the form', async () => {
			sim().clearRequests();
			await Promise.all(['getFilterFields', 'getOrderFields', 'getSelectFields'].map((method) => loadOptions(method)));
			await loadOptions('getDatedProperties', { resource: 'employee', operation: 'update' });
			await loadOptions('getWritableFields', { resource: 'employee', operation: 'create' });
			await loadOptions('getFilterFields', { resource: 'employee' }, 'personnelDataTrigger');
			const lists = employeeLists();
			expect(lists).toHaveLength(1);
			expect(queryPairs(lists[0].rawQuery)).toEqual([['pagination[first]', '5']]);
		});

		it('Filters › Field: the registry\'s filterable fields and the scalar fields the records show', async () => {
			const options = await loadOptions('getFilterFields');
			const values = valuesOf(options);
			for (const known of ['id', 'first_name', 'last_name', 'email', 'inserted_at', 'updated_at']) expect(values).toContain(known);
			for (const found of ['organizational_unit_id', 'employment_start_date', 'deleted_at', 'phone1', 'employee_number']) expect(values).toContain(found);
			// Objects cannot be compared with a value.
			expect(values).not.toContain('properties');
			expect(new Set(values).size).toBe(values.length);
			expect(optionFor(options, 'organizational_unit_id')).toMatchObject({ name: 'Organizational Unit ID', description: expect.stringContaining('UUIDs') });
			expect(optionFor(options, 'employment_start_date')?.description).toContain('dates (YYYY-MM-DD)');
			expect(optionFor(options, 'phone1')?.description).toMatch(/not known to be filterable/i);
			expect(optionFor(options, 'email')?.description).toContain('eq, ilike');
			// Sorted by label, as n8n's lint wants of every option list.
			const names = options.map((option) => option.name);
			expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)));
		});

		it('Order By and Fields to Return offer the discovered fields too', async () => {
			expect(valuesOf(await loadOptions('getOrderFields'))).toEqual(expect.arrayContaining(['id', 'employment_start_date', 'deleted_at', 'organizational_unit_id']));
			const select = valuesOf(await loadOptions('getSelectFields'));
			expect(select).toEqual(expect.arrayContaining(['properties', 'employment_start_date', 'deleted_at', 'organizational_unit_id']));
			// The registry's fields stay listed even where these records lack them (the registry is what the package knows for sure).
			expect(select).toEqual(expect.arrayContaining(Object.keys(employee.fields)));
		});

		it('Dated Values › Property: the dated properties the records hold, with the type of their values', async () => {
			const options = await loadOptions('getDatedProperties', { resource: 'employee', operation: 'update' });
			const values = valuesOf(options);
			expect(values).toEqual(expect.arrayContaining(['title', 'first_name', 'email', 'phone1', 'weekly_hours', ...employee.datedProperties]));
			expect(values).not.toContain('custom_properties');
			expect(optionFor(options, 'weekly_hours')?.description).toContain('numbers');
		});

		it('Fields by Name › Name: writable fields and the records\' plain fields the registry does not know as read-only', async () => {
			const values = valuesOf(await loadOptions('getWritableFields', { resource: 'employee', operation: 'create' }));
			expect(values).toEqual(expect.arrayContaining(['organizational_unit_id', 'employment_start_date', 'deleted_at', ...(employee.writable?.plainFields ?? [])]));
			for (const readOnly of ['id', 'org_id', 'inserted_at', 'updated_at', 'properties']) expect(values).not.toContain(readOnly);
		});
	});

	describe('when no sample can be read, the registry\'s lists', () => {
		let empty: TestBed;
		beforeAll(async () => {
			empty = await startTestBed({ employeeSchema: 'remapped', sizes: { employees: 0 } });
		});
		afterAll(async () => {
			await empty.simulator.close();
		});

		it('no records: the registry\'s fields only', async () => {
			const filters = await empty.runtime.loadOptions({ nodeType: 'personnelData', method: 'getFilterFields', parameters: { resource: 'employee' } });
			expect(valuesOf(filters).sort()).toEqual(Object.keys(employee.fields).filter((name) => employee.fields[name].filter).sort());
			const dated = await empty.runtime.loadOptions({ nodeType: 'personnelData', method: 'getDatedProperties', parameters: { resource: 'employee' } });
			expect(valuesOf(dated).sort()).toEqual([...employee.datedProperties].sort());
		});

		it('a 403 or a broken answer: the registry\'s fields, and the next picker asks again', async () => {
			// Organizational units: not sampled yet on this simulator.
			const unit = resourceByValue('organizationalUnit');
			const call = () => empty.runtime.loadOptions({ nodeType: 'personnelData', method: 'getSelectFields', parameters: { resource: 'organizationalUnit' } });
			empty.simulator.sim.queueFault({ pathPrefix: '/v1/org/organizational-units', status: 403, count: 1 });
			empty.simulator.sim.clearRequests();
			expect(valuesOf(await call()).sort()).toEqual(Object.keys(unit.fields).sort());
			const answered = await call();
			expect(valuesOf(answered)).toEqual(expect.arrayContaining(Object.keys(unit.fields)));
			const lists = empty.simulator.sim.requests().filter((entry) => entry.path === '/v1/org/organizational-units');
			expect(lists.map((entry) => entry.status)).toEqual([403, 200]);
		});
	});

	describe('a workflow using discovered fields', () => {
		it('a filter on discovered fields reaches the server as typed and returns what the server selects', async () => {
			const records = sim().getRecords('employees');
			const unit = String(records.find((record) => record.organizational_unit_id)?.organizational_unit_id);
			const result = await run(bed, {
				resource: 'employee',
				operation: 'getMany',
				returnAll: true,
				simplify: false,
				filters: {
					filter: [
						{ field: 'organizational_unit_id', operator: 'eq', value: unit },
						{ field: 'employment_start_date', operator: 'gte', value: '2010-01-01' },
					],
				},
			});
			const expected = records
				.filter((record) => record.organizational_unit_id === unit && String(record.employment_start_date) >= '2010-01-01')
				.map((record) => record.id);
			expect(expected.length).toBeGreaterThan(0);
			expect(idsOf(jsonOf(result)).sort()).toEqual(expected.sort());
			const [request] = employeeLists();
			expect(queryValues(request.rawQuery, 'filters[organizational_unit_id][op]')).toEqual(['eq']);
			expect(queryValues(request.rawQuery, 'filters[organizational_unit_id][value]')).toEqual([unit]);
			expect(queryValues(request.rawQuery, 'filters[employment_start_date][value]')).toEqual(['2010-01-01']);
		});

		it('a value for a field the registry does not know is sent exactly as typed (no conversion)', async () => {
			const result = await run(bed, {
				resource: 'employee',
				operation: 'getMany',
				returnAll: true,
				filters: { filter: [{ field: 'deleted_at', operator: 'gte', value: '2000-01-01T02:00:00+02:00' }] },
			});
			expect(result.error).toBeUndefined();
			expect(queryValues(employeeLists()[0].rawQuery, 'filters[deleted_at][value]')).toEqual(['2000-01-01T02:00:00+02:00']);
			const deleted = sim().getRecords('employees').filter((record) => record.deleted_at !== null).map((record) => record.id);
			expect(deleted.length).toBeGreaterThan(0);
			expect(idsOf(jsonOf(result)).sort()).toEqual(deleted.sort());
		});

		it('Order By and Fields to Return (a list, or names from an expression) on discovered fields', async () => {
			const result = await run(bed, {
				resource: 'employee',
				operation: 'getMany',
				limit: 20,
				simplify: false,
				options: { orderBy: 'employment_start_date', orderDirection: 'desc', select: '={{ "employment_start_date, organizational_unit_id" }}' },
			});
			const records = jsonOf(result);
			expect(records).toHaveLength(20);
			for (const record of records) expect(Object.keys(record).sort()).toEqual(['employment_start_date', 'id', 'organizational_unit_id']);
			const dates = records.map((record) => String(record.employment_start_date));
			expect(dates).toEqual([...dates].sort().reverse());
			const [request] = employeeLists();
			expect(queryValues(request.rawQuery, 'order[field]')).toEqual(['employment_start_date']);
			expect(queryValues(request.rawQuery, 'select[]')).toEqual(['id', 'employment_start_date', 'organizational_unit_id']);
		});

		it('an Update writes discovered dated properties and fields by name as given, and the server keeps them', async () => {
			const [target] = sim().getRecords('employees');
			const unit = sim().getRecords('orgUnits')[3].id;
			const result = await run(bed, {
				resource: 'employee',
				operation: 'update',
				id: byId(target.id),
				datedValues: {
					entry: [
						{ property: 'weekly_hours', mode: 'replaceHistory', validFrom: '2026-01-01', value: '={{ 32 }}' },
						{ property: 'weekly_hours', mode: 'replaceHistory', validFrom: '', value: '={{ 40 }}' },
						{ property: 'phone1', mode: 'replaceHistory', validFrom: '2026-02-01', value: '+46 70 123 45 67' },
					],
				},
				fieldsByName: {
					field: [
						{ name: 'organizational_unit_id', value: unit },
						{ name: '={{ "employment_start_date" }}', value: '2019-05-01' },
					],
				},
			});
			expect(result.error).toBeUndefined();
			const patch = apiRequests(bed).find((entry) => entry.method === 'PATCH');
			expect(patch?.body).toEqual({
				data: {
					organizational_unit_id: unit,
					employment_start_date: '2019-05-01',
					properties: {
						weekly_hours: [
							{ valid_from: '2026-01-01', value: 32 },
							{ valid_from: null, value: 40 },
						],
						phone1: [{ valid_from: '2026-02-01', value: '+46 70 123 45 67' }],
					},
				},
			});
			const [stored] = sim().getRecords('employees', [target.id]);
			expect(stored.organizational_unit_id).toBe(unit);
			expect(stored.employment_start_date).toBe('2019-05-01');
			expect((stored.properties as IDataObject).weekly_hours).toEqual([
				{ valid_from: '2026-01-01', value: 32 },
				{ valid_from: null, value: 40 },
			]);
			// PATCH left the dated properties it did not name untouched.
			expect((stored.properties as IDataObject).title).toEqual((target.properties as IDataObject).title);
		});

		it.each([
			['a filter', { operation: 'getMany', filters: { filter: [{ field: 'salary', operator: 'eq', value: '1' }] } }, ['filters/unknown_field', 'filters[salary]', 'not filterable']],
			['an order', { operation: 'getMany', options: { orderBy: 'org_unit_id', orderDirection: 'asc' } }, ['order/invalid_order_field', '"org_unit_id" is not orderable']],
			['a select', { operation: 'getMany', options: { select: ['manager_id'] } }, ['select/unknown_field', 'manager_id']],
			['a dated property', { operation: 'create', first_name: 'Ada', last_name: 'L', datedValues: { entry: [{ property: 'org_unit_id', validFrom: '', value: '' }] } }, ['body/unknown_field', 'data.properties.org_unit_id', 'expected custom_properties or one of title, first_name']],
			['a field by name', { operation: 'create', first_name: 'Ada', last_name: 'L', fieldsByName: { field: [{ name: 'deleted_at', value: '2026-01-01T00:00:00Z' }] } }, ['body/read_only_field', 'data.deleted_at']],
		])('%s on a field the server refuses: the 400 and the server\'s reason reach the user', async (_what, parameters, reasons) => {
			const result = await run(bed, { resource: 'employee', ...parameters } as INodeParameters);
			const error = result.error as Error & { description?: string; httpCode?: string };
			expect(error).toBeDefined();
			expect(error.httpCode).toBe('400');
			const text = `${error.message}\n${error.description ?? ''}`;
			expect(text).toContain('400');
			for (const reason of reasons) expect(text).toContain(reason);
			// One request: a 400 is not retried.
			expect(apiRequests(bed)).toHaveLength(1);
		});

		it('Simplify and Dated Values As Of flatten every dated property of the records, not only the registry\'s', async () => {
			const asOf = '2025-06-30';
			const result = await run(bed, { resource: 'employee', operation: 'getMany', limit: 30, simplify: true, options: { asOfDate: `${asOf}T12:00:00` } });
			const records = jsonOf(result);
			expect(records).toHaveLength(30);
			const stored = new Map<string, SimRecord>(sim().getRecords('employees').map((record) => [record.id, record]));
			for (const record of records) {
				const properties = record.properties as IDataObject;
				const original = stored.get(String(record.id))?.properties as Record<string, Array<{ valid_from: string | null; value: unknown }>>;
				for (const name of ['title', 'first_name', 'email', 'phone1', 'weekly_hours']) {
					expect([name, properties[name]]).toEqual([name, inForce(original[name], asOf)]);
				}
				expect(properties.custom_properties).toEqual(original.custom_properties);
			}
		});
	});

	it('another role\'s credential gets its own sample', async () => {
		useCredential(bed, 'limited');
		try {
			sim().clearRequests();
			await loadOptions('getFilterFields');
			expect(employeeLists()).toHaveLength(1);
		} finally {
			useCredential(bed, 'admin');
		}
	});
});
