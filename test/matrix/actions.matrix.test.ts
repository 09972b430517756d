/**
 * The action node's contract on every sampled server profile: Get Many (Return All, a limit, a
 * condition's short pages), Get of several items (read in batches), Create or Update matched on
 * a column. Where a server refuses what a feature needs, the node says so.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { evaluateRule } from '../../scripts/simulator/conditions';
import { useTestBed } from '../nodes/setup';
import { byId, jsonOf, outputOf, run } from '../nodes/personnelData/helpers';
import { profilesFor, sameIds } from './profiles';

const PROFILES = profilesFor('actions', [
	'emptyValuesSort', 'totalCount', 'timestampPrecision', 'timestampOffset', 'defaultPageSize', 'maxPageSize', 'sameValueOrder',
	'uuidCase', 'unknownFields', 'emptyOptionalFields', 'listParameters', 'inOperator', 'singleRecordEnvelope', 'employeeDeletedAt',
], 8);

const upsertOn = (field: string): INodeParameters => ({
	resource: 'employee',
	operation: 'upsert',
	columns: { mappingMode: 'autoMapInputData', value: null, matchingColumns: [field], schema: [] },
	options: {},
});

describe.each(PROFILES)('Actions against server profile $name', ({ variation }) => {
	const bed = useTestBed({ variation, sizes: { employees: 230, orgUnits: 40 }, scanLimit: 60 });
	const sim = () => bed.simulator.sim;

	it('Get Many, Return All: every employee once; a limit stops at it', async () => {
		const all = sim().getRecords('employees').map((record) => record.id);
		const everything = jsonOf(await run(bed, { resource: 'employee', operation: 'getMany', returnAll: true, simplify: false }));
		expect(sameIds(everything.map((record) => record.id))).toEqual(sameIds(all));
		const limited = jsonOf(await run(bed, { resource: 'employee', operation: 'getMany', limit: 123, simplify: false }));
		expect(limited).toHaveLength(123);
		expect(new Set(limited.map((record) => String(record.id).toLowerCase())).size).toBe(123);
	});

	it('Get Many with a condition: every passing record across short and empty pages', async () => {
		const [condition] = sim().getRecords('conditions', [sim().conditionIds().north]);
		const today = sim().clock.today();
		const passing = sim().getRecords('employees').filter((record) => evaluateRule(condition.data_engine, record, today)).map((record) => record.id);
		const result = jsonOf(await run(bed, { resource: 'employee', operation: 'getMany', returnAll: true, condition: byId(condition.id), simplify: false }));
		expect(sameIds(result.map((record) => record.id))).toEqual(sameIds(passing));
	});

	it('Get of several items (read in batches): each item its own record, in input order', async () => {
		const employees = sim().getRecords('employees').slice(3, 40);
		const items = employees.map((employee, index) => ({ json: { employeeId: index % 3 === 0 ? employee.id.toUpperCase() : employee.id } }));
		const result = await run(bed, { resource: 'employee', operation: 'get', id: byId('={{ $json.employeeId }}'), simplify: false }, { items });
		const out = outputOf(result);
		expect(out.map((item) => item.json.error)).toEqual(employees.map(() => undefined));
		expect(out.map((item) => String(item.json.id).toLowerCase())).toEqual(employees.map((employee) => employee.id));
		expect(out.map((item) => item.pairedItem)).toEqual(employees.map((_, index) => ({ item: index })));
	});

	it('Create or Update matched on employee_number: existing ones updated, new ones created; or a clear error where the server cannot match', async () => {
		const existing = sim().createRecords('employees', 3, { restricted: false }).map((record, i) => ({ ...record, employee_number: `MX-${i}` }));
		for (const record of existing) sim().touchRecords('employees', [record.id], { changes: { employee_number: record.employee_number } });
		const rows: IDataObject[] = [
			...existing.map((record) => ({ employee_number: record.employee_number, phone2: '+46 8 444' })),
			{ employee_number: 'MX-new', first_name: 'New', last_name: 'Person', phone2: '+46 8 555' },
		];
		const result = await run(bed, upsertOn('employee_number'), { items: rows.map((json) => ({ json })), typeVersion: 2 });
		if (variation.listParameters === 'idAndTimestampsOnly') {
			expect(result.error?.message).toMatch(/employee_number/);
			expect(sim().getRecords('employees').filter((record) => record.phone2 === '+46 8 444')).toEqual([]);
			return;
		}
		const out = jsonOf(result);
		expect(out.map((record) => record.writeOutcome)).toEqual(['updated', 'updated', 'updated', 'created']);
		expect(sameIds(out.slice(0, 3).map((record) => record.id))).toEqual(sameIds(existing.map((record) => record.id)));
		for (const record of existing) expect(sim().getRecords('employees', [record.id])[0].phone2).toBe('+46 8 444');
	});
});
