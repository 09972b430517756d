/**
 * The action node's contract on every sampled server profile: Get Many (Return All, a limit, a
 * condition's short pages), Get of several items (read in batches), Create or Update matched on
 * a column, and every operation that takes an id given in the other letter case than the server
 * writes ids in. Where a server refuses what a feature needs, the node says so.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { evaluateRule } from '../../scripts/simulator/conditions';
import { useTestBed } from '../nodes/setup';
import { rangeTiming } from '../../nodes/shared/rangeWorth';
import { apiRequests, byId, jsonOf, outputOf, run } from '../nodes/personnelData/helpers';
import { profilesFor, sameIds } from './profiles';

const PROFILES = profilesFor('actions', [
	'emptyValuesSort', 'totalCount', 'timestampPrecision', 'timestampOffset', 'defaultPageSize', 'maxPageSize', 'sameValueOrder',
	'uuidCase', 'unknownFields', 'emptyOptionalFields', 'listParameters', 'inOperator', 'singleRecordEnvelope', 'employeeDeletedAt', 'customPropertiesPatch',
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

	it('Get Many, Return All without an order, in inserted_at ranges: the same employees as one cursor, each once, oldest first or as the API orders them', async () => {
		// Created over a few minutes, so that ranges can be cut at any precision the server keeps.
		for (let missing = 700 - sim().getRecords('employees').length; missing > 0; missing -= 20) {
			sim().createRecords('employees', Math.min(20, missing), { restricted: false });
			sim().clock.advance(2_000_000);
		}
		const reference = jsonOf(await run(bed, { resource: 'employee', operation: 'getMany', limit: 1_000_000, simplify: false }));
		const timing = rangeTiming.worthWaitingShare;
		rangeTiming.worthWaitingShare = 0;
		try {
			const result = await run(bed, { resource: 'employee', operation: 'getMany', returnAll: true, simplify: false });
			expect(result.error?.message).toBeUndefined();
			const records = jsonOf(result);
			expect(sameIds(records.map((record) => record.id))).toEqual(sameIds(reference.map((record) => record.id)));
			expect(new Set(sameIds(records.map((record) => record.id))).size).toBe(records.length);
			const ranged = apiRequests(bed).some((entry) => entry.rawQuery.includes('filters%5Binserted_at%5D'));
			const times = records.map((record) => Date.parse(String(record.inserted_at)));
			const oldestFirst = times.every((time, index) => index === 0 || times[index - 1] <= time);
			// Read in ranges and kept: oldest first; ranges given up: one cursor's answer, record for record.
			if (oldestFirst) expect(ranged).toBe(true);
			else expect(records.map((record) => record.id)).toEqual(reference.map((record) => record.id));
		} finally {
			rangeTiming.worthWaitingShare = timing;
		}
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

	describe('ids given in the other letter case than the server writes them', () => {
		/** The id as a user would paste it from elsewhere: the case the server does not use. */
		const otherCase = (id: string) => (variation.uuidCase === 'upper' ? id.toLowerCase() : id.toUpperCase());
		const employees = (count: number) => sim().createRecords('employees', count, { restricted: false });
		const titleOf = (id: string) => ((sim().getRecords('employees', [id])[0].properties as IDataObject).title as IDataObject[])[0];

		it('Get of one item and of several (read in batches) finds each record', async () => {
			const [one] = employees(1);
			const single = jsonOf(await run(bed, { resource: 'employee', operation: 'get', id: byId(otherCase(one.id)), simplify: false }));
			expect(sameIds(single.map((record) => record.id))).toEqual([one.id]);
			const several = employees(12);
			const items = several.map((employee) => ({ json: { employeeId: otherCase(employee.id) } }));
			const out = outputOf(await run(bed, { resource: 'employee', operation: 'get', id: byId('={{ $json.employeeId }}'), simplify: false }, { items }));
			expect(out.map((item) => String(item.json.id).toLowerCase())).toEqual(several.map((employee) => employee.id));
		});

		it('version 1 Update and Replace with a dated value (keep the others) read the history and write it', async () => {
			const [updated, replaced] = employees(2);
			const dated = { datedValues: { entry: [{ property: 'title', validFrom: '2031-05-01', value: 'Matrix Lead' }] } };
			const update = await run(bed, { resource: 'employee', operation: 'update', id: byId(otherCase(updated.id)), ...dated });
			expect(update.error?.message).toBeUndefined();
			expect(titleOf(updated.id)).toEqual({ valid_from: '2031-05-01', value: 'Matrix Lead' });
			const replace = await run(bed, { resource: 'employee', operation: 'replace', id: byId(otherCase(replaced.id)), first_name: 'Re', last_name: 'Placed', ...dated });
			expect(replace.error?.message).toBeUndefined();
			expect(titleOf(replaced.id)).toEqual({ valid_from: '2031-05-01', value: 'Matrix Lead' });
		});

		it('version 2 Update by id and Create or Update matched on id update the record, never create one', async () => {
			const [byIdUpdate, matched] = employees(2);
			const before = sim().getRecords('employees').length;
			const update = await run(
				bed,
				{ resource: 'employee', operation: 'update', id: byId(otherCase(byIdUpdate.id)), columns: { mappingMode: 'defineBelow', value: { phone2: '+46 8 111' }, matchingColumns: [], schema: [] }, options: {} },
				{ typeVersion: 2 },
			);
			expect(jsonOf(update).map((record) => record.writeOutcome)).toEqual(['updated']);
			const rows = [{ id: otherCase(matched.id), phone2: '+46 8 222' }, { id: matched.id, phone2: '+46 8 333' }];
			const upsert = await run(bed, upsertOn('id'), { items: rows.map((json) => ({ json })), typeVersion: 2 });
			if (variation.inOperator === 'refused' && upsert.error) expect(upsert.error.message).toMatch(/id/);
			else expect(jsonOf(upsert).map((record) => record.writeOutcome)).toEqual(['updated', 'updated']);
			expect(sim().getRecords('employees').length).toBe(before);
			expect(sim().getRecords('employees', [byIdUpdate.id])[0].phone2).toBe('+46 8 111');
			if (!upsert.error) expect(sim().getRecords('employees', [matched.id])[0].phone2).toBe('+46 8 333');
		});
	});
});
