import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { employeeColumns } from '../../../../nodes/PersonnelData/actions/employee/v2/columns';
import { NOTHING_DISCOVERED, observeRecords } from '../../../../nodes/shared/fields/discover';
import { employee as employeeResource } from '../../../../nodes/shared/registry/resources/employee';
import { useTestBed } from '../../setup';
import type { RunOptions } from '../helpers';
import { PATCH_SERVERS } from '../helpers';
import { apiRequests, byId, jsonOf, outputOf, queryValues, run } from '../helpers';

/** Node version 2: the column mapper, Create or Update, skip unchanged. */
const V2: RunOptions = { typeVersion: 2 };

const items = (rows: IDataObject[]): INodeExecutionData[] => rows.map((json) => ({ json }));

const automatically = (extra: INodeParameters = {}): INodeParameters => ({ mappingMode: 'autoMapInputData', value: null, matchingColumns: [], schema: [], ...extra });
const manually = (value: IDataObject, extra: INodeParameters = {}): INodeParameters => ({ mappingMode: 'defineBelow', value: value as INodeParameters, matchingColumns: [], schema: [], ...extra });

const upsertOn = (field: string, options: IDataObject = {}): INodeParameters => ({
	resource: 'employee',
	operation: 'upsert',
	columns: automatically({ matchingColumns: [field] }),
	options: options as INodeParameters,
});

describe.each(PATCH_SERVERS)('Personnel Data, version 2: employee writes from columns, on a server that $name', ({ variation }) => {
	const bed = useTestBed({ variation });
	const sim = () => bed.simulator.sim;
	const writes = () => apiRequests(bed).filter((entry) => entry.method !== 'GET');
	const lookups = () => apiRequests(bed).filter((entry) => entry.method === 'GET');
	const stored = (id: string): IDataObject => {
		const record = sim()
			.getRecords('employees')
			.find((candidate) => candidate.id === id);
		if (!record) throw new Error(`no employee ${id}`);
		return record as unknown as IDataObject;
	};
	let numberSeq = 0;
	const freshNumber = () => `T-${process.pid}-${++numberSeq}`;
	const existing = (count: number, overrides: IDataObject = {}) =>
		Array.from({ length: count }, () => sim().createRecords('employees', 1, { restricted: false, overrides: { employee_number: freshNumber(), ...overrides } as never })[0]);

	describe('the columns', () => {
		it('are the writable fields, the customer\'s own and the dated properties; Create\'s names required, read-only fields not offered, id only to match on', () => {
			const discovered = observeRecords([{ id: 'x', first_name: 'A', badge_color: 'red', seats: 3, properties: { title: [{ valid_from: null, value: 'A' }], weekly_hours: [{ valid_from: null, value: 40 }], first_name: [{ valid_from: null, value: 'A' }] } }]);
			const create = employeeColumns(employeeResource, discovered, 'create');
			const ids = create.map((column) => column.id);
			expect(ids).toEqual(expect.arrayContaining(['first_name', 'last_name', 'email', 'employee_number', 'badge_color', 'seats', 'title', 'work_percentage', 'weekly_hours', 'first_name (dated)']));
			for (const readOnly of ['id', 'org_id', 'inserted_at', 'updated_at', 'properties']) expect(ids).not.toContain(readOnly);
			expect(create.filter((column) => column.required).map((column) => column.id)).toEqual(['first_name', 'last_name']);
			expect(create.find((column) => column.id === 'seats')?.type).toBe('number');
			expect(create.find((column) => column.id === 'work_percentage')).toMatchObject({ type: 'number', displayName: 'Work Percentage (Dated)' });

			const upsert = employeeColumns(employeeResource, NOTHING_DISCOVERED, 'upsert');
			expect(upsert[0]).toMatchObject({ id: 'id', canBeUsedToMatch: true });
			expect(upsert.filter((column) => column.required)).toEqual([]);
			expect(upsert.find((column) => column.id === 'title')?.canBeUsedToMatch).toBe(false);
			expect(upsert.find((column) => column.id === 'employee_number')?.canBeUsedToMatch).toBe(true);
		});
	});

	describe('Create', () => {
		it('Map Automatically: the item\'s keys name the fields, a dated value is one entry valid from Options › Valid From', async () => {
			const number = freshNumber();
			const result = await run(
				bed,
				{ resource: 'employee', operation: 'create', columns: automatically(), options: { validFrom: '2026-02-01' } },
				{ ...V2, items: items([{ first_name: 'Ada', last_name: 'Lovelace', employee_number: number, title: 'Analyst', work_percentage: '80', phone2: '' }]) },
			);
			const [created] = jsonOf(result);
			expect(created.writeOutcome).toBe('created');
			const [request] = writes();
			expect(request.body).toEqual({
				data: {
					first_name: 'Ada',
					last_name: 'Lovelace',
					employee_number: number,
					properties: { title: [{ valid_from: '2026-02-01', value: 'Analyst' }], work_percentage: [{ valid_from: '2026-02-01', value: 80 }] },
				},
			});
		});

		it('without the Valid From option a dated value is valid from today in the workflow\'s time zone; added but empty: from the beginning', async () => {
			await run(bed, { resource: 'employee', operation: 'create', columns: manually({ first_name: 'A', last_name: 'B', title: 'Lead' }) }, V2);
			const today = new Date().toISOString().slice(0, 10);
			const title = ((writes()[0].body as IDataObject).data as IDataObject).properties as IDataObject;
			// The harness runs the workflow in UTC.
			expect(title.title).toEqual([{ valid_from: today, value: 'Lead' }]);

			await run(bed, { resource: 'employee', operation: 'create', columns: manually({ first_name: 'A', last_name: 'B', title: 'Lead' }), options: { validFrom: '' } }, V2);
			expect((((writes()[0].body as IDataObject).data as IDataObject).properties as IDataObject).title).toEqual([{ valid_from: null, value: 'Lead' }]);
		});

		it('a value that is already a [{valid_from, value}] history is the whole history', async () => {
			const history = [
				{ valid_from: null, value: 'Analyst' },
				{ valid_from: '2026-01-01', value: 'Lead' },
			];
			await run(bed, { resource: 'employee', operation: 'create', columns: automatically() }, { ...V2, items: items([{ first_name: 'A', last_name: 'B', title: history as unknown as IDataObject[] }]) });
			expect((((writes()[0].body as IDataObject).data as IDataObject).properties as IDataObject).title).toEqual([
				{ valid_from: '2026-01-01', value: 'Lead' },
				{ valid_from: null, value: 'Analyst' },
			]);
		});

		it('a missing required name, a key that is no column, or a bad email fail the item naming it, nothing sent', async () => {
			const result = await run(
				bed,
				{ resource: 'employee', operation: 'create', columns: automatically() },
				{ ...V2, continueOnFail: true, items: items([{ last_name: 'B' }, { first_name: 'A', last_name: 'B', shoe_size: 43 }, { first_name: 'A', last_name: 'B', email: 'nope' }]) },
			);
			const errors = outputOf(result).map((item) => String(item.json.error));
			expect(errors[0]).toMatch(/first_name: required to create an employee/);
			expect(errors[1]).toMatch(/shoe_size: not a column of an employee/);
			expect(errors[2]).toMatch(/"nope" is not an email address/);
			expect(apiRequests(bed)).toEqual([]);
		});

		it('a fresh node (Map Each Column Manually, no value yet) fails naming the required names, nothing sent', async () => {
			const result = await run(bed, { resource: 'employee', operation: 'create' }, V2);
			expect(result.error?.message).toMatch(/first_name: required to create an employee/);
			expect(apiRequests(bed)).toEqual([]);
		});

		it('Options › Ignore Columns leaves keys out; read-only fields of a record read by another node are left out', async () => {
			const result = await run(
				bed,
				{ resource: 'employee', operation: 'create', columns: automatically(), options: { ignoreColumns: 'row, notes' } },
				{ ...V2, items: items([{ id: 'x', inserted_at: 'y', row: 3, notes: 'n', first_name: 'A', last_name: 'B' }]) },
			);
			expect(jsonOf(result)[0].writeOutcome).toBe('created');
			expect(writes()[0].body).toEqual({ data: { first_name: 'A', last_name: 'B' } });
		});
	});

	describe('your own fields', () => {
		it('a column of the saved schema is written; a CSV\'s text becomes the number or true/false the sample showed', async () => {
			const schema = employeeColumns(
				employeeResource,
				observeRecords([{ badge_color: 'red', remote: true, properties: { weekly_hours: [{ valid_from: null, value: 40 }] } }]),
				'create',
			);
			await run(
				bed,
				{ resource: 'employee', operation: 'create', columns: automatically({ schema: schema as unknown as INodeParameters[] }), options: { validFrom: '' } },
				{ ...V2, items: items([{ first_name: 'A', last_name: 'B', badge_color: 'blue', remote: 'false', weekly_hours: '32' }]) },
			);
			expect(writes()[0].body).toEqual({
				data: { first_name: 'A', last_name: 'B', badge_color: 'blue', remote: false, properties: { weekly_hours: [{ valid_from: null, value: 32 }] } },
			});
		});
	});

	describe('Update', () => {
		it('sends only what changed, keeps the history, and says unchanged (no write) when nothing would change', async () => {
			const [employee] = existing(1);
			const before = stored(employee.id);
			const titles = (before.properties as IDataObject).title;
			const parameters = { resource: 'employee', operation: 'update', id: byId(employee.id), options: { validFrom: '2027-03-01' } };

			const changed = await run(bed, { ...parameters, columns: manually({ phone1: before.phone1 as string, phone2: '+46 1', title: 'Chief' }) }, V2);
			expect(jsonOf(changed)[0].writeOutcome).toBe('updated');
			expect(lookups()).toHaveLength(1);
			const [patch] = writes();
			expect(patch.method).toBe('PATCH');
			const data = (patch.body as IDataObject).data as IDataObject;
			expect(data.phone1).toBeUndefined();
			expect(data.phone2).toBe('+46 1');
			const sentTitles = (data.properties as IDataObject).title as IDataObject[];
			expect(sentTitles[0]).toEqual({ valid_from: '2027-03-01', value: 'Chief' });
			expect(sentTitles.slice(1)).toEqual(expect.arrayContaining(titles as IDataObject[]));

			const again = await run(bed, { ...parameters, columns: manually({ phone2: '+46 1', title: 'Chief' }) }, V2);
			expect(jsonOf(again)[0]).toMatchObject({ id: employee.id, writeOutcome: 'unchanged' });
			expect(writes()).toEqual([]);

			const forced = await run(bed, { ...parameters, columns: manually({ phone2: '+46 1' }), options: { writeUnchanged: true } }, V2);
			expect(jsonOf(forced)[0].writeOutcome).toBe('updated');
			expect(writes()).toHaveLength(1);
		});
	});

	describe('Create or Update', () => {
		it('one lookup request per 100 keys: creates the new, updates the changed, leaves the same; a second run writes nothing', async () => {
			const people = existing(120);
			const rows = [
				...people.map((person, index) => ({
					employee_number: person.employee_number,
					first_name: person.first_name,
					last_name: person.last_name,
					...(index % 4 === 0 ? { phone1: `+46 ${index}` } : {}),
				})),
				...Array.from({ length: 30 }, (_, index) => ({ employee_number: freshNumber(), first_name: 'New', last_name: `Person ${index}`, title: 'Trainee' })),
			];
			const first = await run(bed, upsertOn('employee_number'), { ...V2, items: items(rows as IDataObject[]) });
			const outcomes = jsonOf(first).map((record) => record.writeOutcome);
			expect(outcomes.filter((outcome) => outcome === 'created')).toHaveLength(30);
			expect(outcomes.filter((outcome) => outcome === 'updated')).toHaveLength(30);
			expect(outcomes.filter((outcome) => outcome === 'unchanged')).toHaveLength(90);
			expect(lookups()).toHaveLength(2);
			expect(queryValues(lookups()[0].rawQuery, 'filters[employee_number][op]')).toEqual(['in']);
			expect(writes().filter((entry) => entry.method === 'POST')).toHaveLength(30);
			expect(writes().filter((entry) => entry.method === 'PATCH')).toHaveLength(30);
			expect(outputOf(first).map((item) => item.pairedItem)).toEqual(rows.map((_, item) => ({ item })));

			const second = await run(bed, upsertOn('employee_number'), { ...V2, items: items(rows as IDataObject[]) });
			expect(jsonOf(second).every((record) => record.writeOutcome === 'unchanged')).toBe(true);
			expect(writes()).toEqual([]);
			expect(lookups()).toHaveLength(2);
		});

		it('an update keeps the dated history: the new title is added from Valid From, the earlier entries stay', async () => {
			const [person] = existing(1);
			const before = (stored(person.id).properties as IDataObject).title as IDataObject[];
			await run(bed, upsertOn('employee_number', { validFrom: '2027-06-01' }), { ...V2, items: items([{ employee_number: person.employee_number, title: 'Principal' }]) });
			const after = (stored(person.id).properties as IDataObject).title as IDataObject[];
			expect(after[0]).toEqual({ valid_from: '2027-06-01', value: 'Principal' });
			expect(after).toEqual(expect.arrayContaining(before));
			expect(after).toHaveLength(before.filter((entry) => entry.valid_from !== '2027-06-01').length + 1);
		});

		it('two rows with the same new key in one run: one create, then the second row updates that record', async () => {
			const number = freshNumber();
			const result = await run(bed, upsertOn('employee_number'), {
				...V2,
				items: items([
					{ employee_number: number, first_name: 'Twin', last_name: 'One', phone1: '1' },
					{ employee_number: number, first_name: 'Twin', last_name: 'One', phone1: '2' },
				]),
			});
			const [created, updated] = jsonOf(result);
			expect([created.writeOutcome, updated.writeOutcome]).toEqual(['created', 'updated']);
			expect(updated.id).toBe(created.id);
			expect(writes().map((entry) => entry.method)).toEqual(['POST', 'PATCH']);
			expect(stored(String(created.id)).phone1).toBe('2');
			expect(sim().getRecords('employees').filter((record) => record.employee_number === number)).toHaveLength(1);
		});

		it('a key that matches several employees fails that item alone (On Error: Continue), naming their ids', async () => {
			const shared = freshNumber();
			const twins = existing(2, { employee_number: shared });
			const [single] = existing(1);
			const result = await run(bed, upsertOn('employee_number'), {
				...V2,
				continueOnFail: true,
				items: items([
					{ employee_number: shared, phone1: '9' },
					{ employee_number: single.employee_number, phone1: '+46 777' },
				]),
			});
			const [failed, updated] = outputOf(result);
			expect(String(failed.json.error)).toContain(`2 employees have employee_number ${shared}`);
			for (const twin of twins) expect(String(failed.json.error)).toContain(twin.id);
			expect(failed.pairedItem).toEqual({ item: 0 });
			expect(updated.json.writeOutcome).toBe('updated');
			expect(writes()).toHaveLength(1);
		});

		it('On Error at Stop: a bad row stops the node before anything is sent; several matches stop at that item, the rows before it written', async () => {
			const [person] = existing(1);
			const bad = await run(bed, upsertOn('employee_number'), { ...V2, items: items([{ employee_number: person.employee_number, phone1: '+46 8' }, { employee_number: 'X', email: 'not-an-email' }]) });
			expect(bad.error?.message).toMatch(/"not-an-email" is not an email address/);
			expect(apiRequests(bed)).toEqual([]);

			const shared = freshNumber();
			existing(2, { employee_number: shared });
			const stopped = await run(bed, upsertOn('employee_number'), {
				...V2,
				items: items([{ employee_number: person.employee_number, phone1: '+46 9' }, { employee_number: shared, phone1: '1' }, { employee_number: freshNumber(), first_name: 'Not', last_name: 'Sent' }]),
			});
			expect(stopped.error?.message).toMatch(new RegExp(`2 employees have employee_number ${shared}`));
			// Several in flight by default: the row after the failing one had started, and had shared its
			// lookup, but its write is checked at the last moment and never sent.
			expect(writes().map((entry) => entry.method)).toEqual(['PATCH']);

			// At Concurrency 1 nothing after the failing row is sent.
			sim().clearRequests();
			const one = await run(bed, upsertOn('employee_number', { concurrency: 1 }), {
				...V2,
				items: items([{ employee_number: person.employee_number, phone1: '+46 10' }, { employee_number: shared, phone1: '1' }, { employee_number: freshNumber(), first_name: 'Not', last_name: 'Sent' }]),
			});
			expect(one.error?.message).toMatch(new RegExp(`2 employees have employee_number ${shared}`));
			expect(writes().map((entry) => entry.method)).toEqual(['PATCH']);
		});

		it('a row without a value to match on, or no column chosen to match on, fails naming it before anything is sent', async () => {
			const result = await run(bed, upsertOn('employee_number'), { ...V2, continueOnFail: true, items: items([{ first_name: 'A', last_name: 'B' }]) });
			expect(String(outputOf(result)[0].json.error)).toMatch(/employee_number: the item has no value for the column to match on/);
			const none = await run(bed, { ...upsertOn('employee_number'), columns: automatically() }, { ...V2, items: items([{ employee_number: 'E1' }]) });
			expect(none.error?.message).toMatch(/Columns to Match On: none chosen/);
			expect(apiRequests(bed)).toEqual([]);
		});

		it('matching on email (the registry: eq, not in): one request per distinct email', async () => {
			const people = existing(2);
			const rows = people.map((person) => ({ email: person.email, phone2: '+46 31' }));
			const result = await run(bed, upsertOn('email'), { ...V2, items: items([...rows, rows[0]]) });
			expect(jsonOf(result).map((record) => record.writeOutcome)).toEqual(['updated', 'updated', 'unchanged']);
			expect(lookups().map((entry) => queryValues(entry.rawQuery, 'filters[email][op]'))).toEqual([['eq'], ['eq']]);
		});

		it('a server that answers 400 to `in` on the field to match on: one `eq` request per distinct value instead', async () => {
			const people = existing(2);
			sim().queueFault({ pathPrefix: '/v1/org/employees', queryIncludes: 'filters%5Bemployee_number%5D%5Bop%5D=in', status: 400, count: 1_000 });
			const rows = people.map((person) => ({ employee_number: person.employee_number, phone2: '+46 33' }));
			const result = await run(bed, upsertOn('employee_number'), { ...V2, items: items([...rows, rows[1]]) });
			expect(jsonOf(result).map((record) => record.writeOutcome)).toEqual(['updated', 'updated', 'unchanged']);
			const asked = lookups().map((entry) => [entry.status, queryValues(entry.rawQuery, 'filters[employee_number][op]')[0]]);
			expect(asked).toEqual([[400, 'in'], [200, 'eq'], [200, 'eq']]);
			expect(writes().map((entry) => entry.method)).toEqual(['PATCH', 'PATCH']);
		});

		it('matching on id: an unknown id fails (never a create), a known one updates', async () => {
			const [person] = existing(1);
			const result = await run(bed, upsertOn('id'), {
				...V2,
				continueOnFail: true,
				items: items([{ id: '00000000-0000-4000-8000-000000000000', first_name: 'X', last_name: 'Y' }, { id: person.id, phone2: '+46 42' }]),
			});
			const [missing, updated] = outputOf(result);
			expect(String(missing.json.error)).toMatch(/00000000-0000-4000-8000-000000000000/);
			expect(String(missing.json.error)).toMatch(/404|not found/i);
			expect(updated.json.writeOutcome).toBe('updated');
			expect(writes().map((entry) => entry.method)).toEqual(['PATCH']);
			// The lookup (one list request), then the missing id asked for on its own.
			expect(lookups().map((entry) => entry.path)).toEqual(['/v1/org/employees', '/v1/org/employees/00000000-0000-4000-8000-000000000000']);
		});
	});

	describe('version 1 keeps its forms', () => {
		it('a saved version 1 Update with Update Fields and Dated Values still works', async () => {
			const [person] = existing(1);
			const result = await run(bed, {
				resource: 'employee',
				operation: 'update',
				id: byId(person.id),
				fields: { phone2: '+46 5' },
				datedValues: { entry: [{ property: 'title', validFrom: '2027-09-01', value: 'Manager' }] },
			});
			expect(jsonOf(result)[0].writeOutcome).toBeUndefined();
			expect(stored(person.id).phone2).toBe('+46 5');
			expect(((stored(person.id).properties as IDataObject).title as IDataObject[])[0]).toEqual({ valid_from: '2027-09-01', value: 'Manager' });
		});
	});
});

describe('Personnel Data Tool, version 2: Create or Update with $fromAI columns', () => {
	const bed = useTestBed();
	const parameters: INodeParameters = {
		resource: 'employee',
		operation: 'upsert',
		columns: {
			mappingMode: 'defineBelow',
			value: {
				employee_number: "={{ $fromAI('employee_number', 'The employee number', 'string') }}",
				first_name: "={{ $fromAI('first_name', 'First name, needed to create', 'string') }}",
				last_name: "={{ $fromAI('last_name', 'Last name, needed to create', 'string') }}",
				title: "={{ $fromAI('title', 'The job title', 'string') }}",
			},
			matchingColumns: ['employee_number'],
			schema: [],
		},
		options: { validFrom: '2026-05-01' },
	};

	it('the model\'s arguments are the columns: created, then unchanged; a mistake is answered to the model, not thrown', async () => {
		const number = `AI-${process.pid}`;
		const args = { employee_number: number, first_name: 'Model', last_name: 'Made', title: 'Agent' };
		const first = await bed.runtime.invokeTool({ nodeType: 'personnelData', typeVersion: 2, parameters, args });
		expect(first.error).toBeUndefined();
		expect(JSON.parse(String(first.response))).toEqual([expect.objectContaining({ employee_number: number, writeOutcome: 'created' })]);

		const second = await bed.runtime.invokeTool({ nodeType: 'personnelData', typeVersion: 2, parameters, args });
		expect(JSON.parse(String(second.response))).toEqual([expect.objectContaining({ writeOutcome: 'unchanged' })]);

		const missing = await bed.runtime.invokeTool({ nodeType: 'personnelData', typeVersion: 2, parameters, args: { employee_number: `AI-new-${process.pid}`, title: 'Agent' } });
		expect(missing.error).toBeUndefined();
		expect(String(missing.response)).toMatch(/first_name: required to create an employee/);
	});
});

describe('Personnel Data, version 2: another customer\'s employees (the simulator\'s remapped schema)', () => {
	const bed = useTestBed({ employeeSchema: 'remapped' });
	const sim = () => bed.simulator.sim;

	it('the editor\'s resourceMapping method offers your own fields and dated properties as typed columns, from one sample request', async () => {
		const { fields } = await bed.runtime.resourceMapping({ nodeType: 'personnelData', method: 'getEmployeeColumns', parameters: { resource: 'employee', operation: 'upsert' } });
		const byId = new Map(fields.map((field) => [field.id, field]));
		expect([...byId.keys()]).toEqual(expect.arrayContaining(['id', 'first_name', 'employee_number', 'organizational_unit_id', 'employment_start_date', 'title', 'weekly_hours', 'first_name (dated)']));
		for (const readOnly of ['inserted_at', 'updated_at', 'deleted_at', 'org_id', 'properties']) expect(byId.has(readOnly)).toBe(false);
		expect(byId.get('weekly_hours')).toMatchObject({ type: 'number', displayName: 'Weekly Hours (Dated)', canBeUsedToMatch: false });
		expect(byId.get('organizational_unit_id')?.canBeUsedToMatch).toBe(true);
		expect(apiRequests(bed).filter((entry) => !entry.path.includes('shape')).map((entry) => `${entry.method} ${entry.path}`)).toEqual(['GET /v1/org/employees']);
	});

	it('Create or Update with your own columns from a CSV: written as the records hold them, and a second run writes nothing', async () => {
		const { fields: schema } = await bed.runtime.resourceMapping({ nodeType: 'personnelData', method: 'getEmployeeColumns', parameters: { resource: 'employee', operation: 'upsert' } });
		const [person] = sim().createRecords('employees', 1, { restricted: false, overrides: { employee_number: `R-${process.pid}` } as never });
		const parameters: INodeParameters = {
			resource: 'employee',
			operation: 'upsert',
			columns: automatically({ matchingColumns: ['employee_number'], schema: schema as unknown as INodeParameters[] }),
			options: { validFrom: '2027-01-01' },
		};
		const rows = items([{ employee_number: String(person.employee_number), weekly_hours: '24', employment_start_date: '2020-02-01' }]);
		const first = await run(bed, parameters, { ...V2, items: rows });
		expect(jsonOf(first)[0].writeOutcome).toBe('updated');
		const patch = apiRequests(bed).find((entry) => entry.method === 'PATCH');
		const data = (patch?.body as IDataObject).data as IDataObject;
		expect(data.employment_start_date).toBe('2020-02-01');
		expect(((data.properties as IDataObject).weekly_hours as IDataObject[])[0]).toEqual({ valid_from: '2027-01-01', value: 24 });

		const second = await run(bed, parameters, { ...V2, items: rows });
		expect(jsonOf(second)[0].writeOutcome).toBe('unchanged');
		expect(apiRequests(bed).filter((entry) => entry.method !== 'GET')).toEqual([]);
	});
});
