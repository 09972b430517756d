import type { IDataObject } from 'n8n-workflow';

import { listableResources } from '../../../nodes/shared/registry';
import { collectionOf } from '../../../scripts/simulator/collections';
import { evaluateRule } from '../../../scripts/simulator/conditions';
import type { ResourceName, SimRecord } from '../../../scripts/simulator/types';
import { useTestBed } from '../setup';
import { apiRequests, byId, idsOf, jsonOf, queryPairs, queryValues, run } from './helpers';

describe('Personnel Data: Get Many', () => {
	const bed = useTestBed();

	const listRequests = (path: string) => apiRequests(bed).filter((entry) => entry.method === 'GET' && entry.path === path);

	describe('conditions', () => {
		/** What the condition passes, evaluated on the simulator's own data (visible to admin). */
		function passing(conditionId: string, collection: ResourceName = 'employees'): string[] {
			const { sim } = bed.simulator;
			const [condition] = sim.getRecords('conditions', [conditionId]);
			const today = sim.clock.today();
			return sim
				.getRecords(collection)
				.filter((record) => evaluateRule(condition.data_engine, record, today))
				.map((record) => record.id)
				.sort();
		}

		it('short and empty pages under a small scan limit still return every passing record', async () => {
			const { sim } = bed.simulator;
			sim.setScanLimit(7);
			const conditionId = sim.conditionIds().rare;
			const expected = passing(conditionId);
			expect(expected.length).toBeGreaterThan(0);

			const result = await run(bed, {
				resource: 'employee',
				operation: 'getMany',
				returnAll: true,
				condition: byId(conditionId),
			});
			const ids = idsOf(jsonOf(result));
			expect([...ids].sort()).toEqual(expected);
			expect(new Set(ids).size).toBe(ids.length);

			const requests = listRequests('/v1/org/employees');
			// 250 employees read 7 at a time: many requests, most of them with empty pages.
			expect(requests.length).toBe(Math.ceil(sim.counts().employees / 7));
			for (const entry of requests) {
				const keys = queryPairs(entry.rawQuery).map(([key]) => key);
				expect(keys).toContain('condition_id');
				expect(keys).not.toContain('pagination[last]');
				expect(keys).not.toContain('pagination[before]');
			}
		});

		it('a limit under a condition stops at the limit across short pages', async () => {
			const { sim } = bed.simulator;
			sim.setScanLimit(20);
			const conditionId = sim.conditionIds().north;
			const expected = passing(conditionId);
			expect(expected.length).toBeGreaterThan(5);
			const result = await run(bed, {
				resource: 'employee',
				operation: 'getMany',
				limit: 5,
				condition: byId(conditionId),
			});
			const ids = idsOf(jsonOf(result));
			expect(ids).toHaveLength(5);
			for (const id of ids) expect(expected).toContain(id);
		});

		it('a condition that passes nobody returns no items after walking every page', async () => {
			const { sim } = bed.simulator;
			const result = await run(bed, {
				resource: 'employee',
				operation: 'getMany',
				returnAll: true,
				condition: byId(sim.conditionIds().nobody),
			});
			expect(jsonOf(result)).toEqual([]);
			expect(listRequests('/v1/org/employees')).toHaveLength(Math.ceil(sim.counts().employees / 250));
		});

		// Every listable resource with a condition domain, and a condition the simulator seeds for it.
		const conditionCases = listableResources().flatMap((resource) =>
			resource.conditionDomain && resource.paths.list ? [[resource.value, resource.conditionDomain, resource.paths.list] as const] : [],
		);
		it.each(conditionCases)('%s: a condition of its domain (%s) returns exactly the records it passes', async (resource, domain, path) => {
			const { sim } = bed.simulator;
			const collection = collectionOf(resource);
			const conditionId = sim
				.getRecords('conditions')
				.filter((condition) => condition.domain === domain)
				.map((condition) => condition.id)
				.find((id) => passing(id, collection).length > 0);
			if (conditionId === undefined) throw new Error(`The simulator seeds no condition of domain ${domain} that passes a record`);
			const rule = sim.getRecords('conditions', [conditionId])[0].data_engine;
			const passes = (record: IDataObject) => evaluateRule(rule, record as SimRecord, sim.clock.today());

			const result = await run(bed, { resource, operation: 'getMany', returnAll: true, simplify: false, condition: byId(conditionId) });
			const records = jsonOf(result);
			expect(records.length).toBeGreaterThan(0);
			expect(records.every(passes)).toBe(true);
			expect(idsOf(records).sort()).toEqual(passing(conditionId, collection));
			expect(listRequests(path).every((entry) => queryValues(entry.rawQuery, 'condition_id')[0] === conditionId)).toBe(true);
		});

		it('a condition of another domain: the API\'s 400 and its inner error reach the user', async () => {
			const { sim } = bed.simulator;
			const result = await run(bed, {
				resource: 'employee',
				operation: 'getMany',
				condition: byId(sim.conditionIds().sickLeave),
			});
			expect(result.error).toBeDefined();
			const error = result.error as Error & { description?: string };
			expect(error.message).toContain('400');
			expect(error.description).toContain('condition_id/domain_mismatch');
			expect(error.description).toContain('time_report');
		});
	});

	describe('query parameters in the spec\'s bracket notation', () => {
		it('filters, order and select', async () => {
			const result = await run(bed, {
				resource: 'employee',
				operation: 'getMany',
				returnAll: true,
				filters: {
					filter: [
						{ field: 'updated_at', operator: 'gte', value: '2026-01-01T00:00:00+01:00' },
						{ field: 'last_name', operator: 'ilike', value: 'a%' },
					],
				},
				options: { orderBy: 'last_name', orderDirection: 'desc', select: ['first_name', 'last_name', 'updated_at'] },
			});
			const records = jsonOf(result);
			const [entry] = listRequests('/v1/org/employees');
			expect(queryPairs(entry.rawQuery)).toEqual([
				['filters[updated_at][op]', 'gte'],
				['filters[updated_at][value]', '2025-12-31T23:00:00.000Z'],
				['filters[last_name][op]', 'ilike'],
				['filters[last_name][value]', 'a%'],
				['order[field]', 'last_name'],
				['order[direction]', 'desc'],
				['select[]', 'id'],
				['select[]', 'first_name'],
				['select[]', 'last_name'],
				['select[]', 'updated_at'],
				['pagination[first]', '100'],
			]);
			expect(entry.status).toBe(200);
			expect(records.length).toBeGreaterThan(0);
			for (const record of records) {
				expect(Object.keys(record).sort()).toEqual(['first_name', 'id', 'last_name', 'updated_at']);
				expect(String(record.last_name).toLowerCase().startsWith('a')).toBe(true);
				expect(String(record.updated_at) >= '2025-12-31T23:00:00').toBe(true);
			}
			const names = records.map((record) => String(record.last_name));
			expect(names).toEqual([...names].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0)));
		});

		it('a date-time with an offset goes in UTC with its microseconds kept', async () => {
			await run(bed, {
				resource: 'employee',
				operation: 'getMany',
				limit: 1,
				filters: { filter: [{ field: 'updated_at', operator: 'gt', value: '2026-01-01T00:30:00.123456+01:00' }] },
			});
			const [entry] = listRequests('/v1/org/employees');
			expect(queryValues(entry.rawQuery, 'filters[updated_at][value]')).toEqual(['2025-12-31T23:30:00.123456Z']);
		});

		it('a limit from an expression may be a numeric text', async () => {
			const result = await run(bed, { resource: 'employee', operation: 'getMany', limit: '={{ "7" }}' });
			expect(jsonOf(result)).toHaveLength(7);
			expect(queryValues(listRequests('/v1/org/employees')[0].rawQuery, 'pagination[first]')).toEqual(['7']);
		});

		it('"Is One Of" sends repeated value[] parameters', async () => {
			const { sim } = bed.simulator;
			const wanted = sim.getRecords('employees').slice(0, 3).map((record) => record.id);
			const result = await run(bed, {
				resource: 'employee',
				operation: 'getMany',
				returnAll: true,
				filters: { filter: [{ field: 'id', operator: 'in', value: wanted.join(', ') }] },
			});
			expect(idsOf(jsonOf(result)).sort()).toEqual([...wanted].sort());
			const [entry] = listRequests('/v1/org/employees');
			expect(queryValues(entry.rawQuery, 'filters[id][value][]')).toEqual(wanted);
			expect(queryValues(entry.rawQuery, 'filters[id][op]')).toEqual(['in']);
		});
	});

	describe('Shape option', () => {
		it('posts the shape to /v1/org/employees/shape with the list query', async () => {
			const shape = { name: 'first_name', title: 'properties.title' };
			const result = await run(bed, {
				resource: 'employee',
				operation: 'getMany',
				limit: 120,
				filters: { filter: [{ field: 'first_name', operator: 'ilike', value: '%' }] },
				options: { shape: JSON.stringify(shape) },
			});
			const records = jsonOf(result);
			expect(records).toHaveLength(120);
			for (const record of records) expect(Object.keys(record).sort()).toEqual(['id', 'name', 'title']);
			const requests = apiRequests(bed);
			expect(requests.map((entry) => `${entry.method} ${entry.path}`)).toEqual([
				'POST /v1/org/employees/shape',
				'POST /v1/org/employees/shape',
			]);
			expect(requests[0].body).toEqual({ shape });
			expect(queryValues(requests[0].rawQuery, 'filters[first_name][op]')).toEqual(['ilike']);
			expect(requests.map((entry) => queryValues(entry.rawQuery, 'pagination[first]'))).toEqual([['100'], ['20']]);
		});
	});

	describe('every listable resource', () => {
		// Every resource with a list path, served by its simulator collection (scripts/simulator/collections.ts).
		const cases = listableResources().map((resource) => [resource.value, String(resource.paths.list), collectionOf(resource.value)] as const);
		it.each(cases)('%s: Return All lists every record from %s', async (resource, path, collection) => {
			const result = await run(bed, { resource, operation: 'getMany', returnAll: true });
			const ids = idsOf(jsonOf(result));
			const { sim } = bed.simulator;
			expect([...ids].sort()).toEqual(sim.getRecords(collection).map((record) => record.id).sort());
			expect(apiRequests(bed).every((entry) => entry.path === path && entry.status === 200)).toBe(true);
		});

		it('Employee Mapping filters by employee and status', async () => {
			const { sim } = bed.simulator;
			const mapping = sim.getRecords('employeeMappings')[0];
			const result = await run(bed, {
				resource: 'employeeMapping',
				operation: 'getMany',
				returnAll: true,
				filters: {
					filter: [
						{ field: 'employee_id', operator: 'eq', value: String(mapping.employee_id) },
						{ field: 'status', operator: 'in', value: String(mapping.status) },
					],
				},
			});
			const records = jsonOf(result);
			expect(idsOf(records)).toContain(mapping.id);
			expect(records.every((r) => r.employee_id === mapping.employee_id && r.status === mapping.status)).toBe(true);
		});

		it('Employee Competence filters by a date range and orders by valid_from', async () => {
			const result = await run(bed, {
				resource: 'employeeCompetence',
				operation: 'getMany',
				returnAll: true,
				simplify: false,
				filters: { filter: [{ field: 'valid_from', operator: 'gte', value: '2024-01-01' }] },
				options: { orderBy: 'valid_from', orderDirection: 'asc' },
			});
			const records = jsonOf(result);
			expect(records.length).toBeGreaterThan(0);
			const dates = records.map((r) => String(r.valid_from));
			expect(dates.every((d) => d >= '2024-01-01')).toBe(true);
			expect(dates).toEqual([...dates].sort());
		});

		it('Time Report filters by start date and type', async () => {
			const result = await run(bed, {
				resource: 'timeReport',
				operation: 'getMany',
				returnAll: true,
				filters: {
					filter: [
						{ field: 'start_date', operator: 'lt', value: '2026-11-01' },
						{ field: 'time_type_id', operator: 'in', value: 'sick,vab' },
					],
				},
				options: { orderBy: 'start_date', orderDirection: 'desc' },
			});
			const records = jsonOf(result);
			expect(records.length).toBeGreaterThan(0);
			expect(records.every((r) => String(r.start_date) < '2026-11-01' && ['sick', 'vab'].includes(String(r.time_type_id)))).toBe(true);
		});

		it('Organizational Unit filters by tier and name', async () => {
			const result = await run(bed, {
				resource: 'organizationalUnit',
				operation: 'getMany',
				returnAll: true,
				filters: { filter: [{ field: 'tier', operator: 'in', value: 'team,department' }] },
				options: { orderBy: 'name', orderDirection: 'asc' },
			});
			const records = jsonOf(result);
			expect(records.length).toBeGreaterThan(0);
			expect(records.every((r) => ['team', 'department'].includes(String(r.tier)))).toBe(true);
		});

		it('Competence filters by type', async () => {
			const result = await run(bed, {
				resource: 'competence',
				operation: 'getMany',
				returnAll: true,
				filters: { filter: [{ field: 'type', operator: 'eq', value: 'certificate' }] },
			});
			const records = jsonOf(result);
			expect(records.length).toBeGreaterThan(0);
			expect(records.every((r) => r.type === 'certificate')).toBe(true);
		});
	});

	describe('Condition: Get Many (the spec\'s filters and order)', () => {
		it('filters by domain, name, id and timestamps and orders by each spec field', async () => {
			const { sim } = bed.simulator;
			const conditions = sim.getRecords('conditions');
			const employeeOnes = conditions.filter((c) => c.domain === 'employee').map((c) => c.id).sort();

			let result = await run(bed, {
				resource: 'condition',
				operation: 'getMany',
				returnAll: true,
				filters: { filter: [{ field: 'domain', operator: 'eq', value: 'employee' }] },
			});
			expect(idsOf(jsonOf(result)).sort()).toEqual(employeeOnes);
			expect(queryPairs(apiRequests(bed)[0].rawQuery).slice(0, 2)).toEqual([
				['filters[domain][op]', 'eq'],
				['filters[domain][value]', 'employee'],
			]);

			result = await run(bed, {
				resource: 'condition',
				operation: 'getMany',
				returnAll: true,
				filters: { filter: [{ field: 'domain', operator: 'in', value: 'org_unit,competence' }] },
			});
			expect(jsonOf(result).map((c) => c.domain).sort()).toEqual(['competence', 'org_unit']);

			result = await run(bed, {
				resource: 'condition',
				operation: 'getMany',
				returnAll: true,
				filters: { filter: [{ field: 'name', operator: 'ilike', value: '%leave%' }] },
			});
			expect(jsonOf(result).map((c) => c.name)).toEqual(['Sick leave reports']);

			result = await run(bed, {
				resource: 'condition',
				operation: 'getMany',
				returnAll: true,
				filters: {
					filter: [
						{ field: 'id', operator: 'eq', value: conditions[0].id },
						{ field: 'updated_at', operator: 'lte', value: '2026-11-23T07:38:50.123456Z' },
						{ field: 'inserted_at', operator: 'gt', value: '2000-01-01T00:00:00Z' },
					],
				},
			});
			expect(idsOf(jsonOf(result))).toEqual([conditions[0].id]);

			for (const field of ['id', 'name', 'domain', 'inserted_at', 'updated_at']) {
				result = await run(bed, {
					resource: 'condition',
					operation: 'getMany',
					returnAll: true,
					options: { orderBy: field, orderDirection: 'desc' },
				});
				const values = jsonOf(result).map((c) => String(c[field]));
				expect(values).toEqual([...values].sort().reverse());
				expect(queryValues(apiRequests(bed)[0].rawQuery, 'order[field]')).toEqual([field]);
			}
		});
	});
});
