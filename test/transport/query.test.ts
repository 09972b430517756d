import { buildListQuery } from '../../nodes/shared/listQuery/parse';
import { employee } from '../../nodes/shared/registry/resources/employee';
import { serializeQuery } from '../../nodes/shared/transport/query';
import { useTestBed } from '../nodes/setup';
import { apiRequests, getManyEmployees } from './support';

describe('query serialization on the wire', () => {
	const bed = useTestBed();

	it('bracket notation for filters, pagination, order, in-lists and select', async () => {
		const [a, b] = bed.simulator.sim.getRecords('employees').map((record) => record.id);
		bed.simulator.sim.clearRequests();
		const result = await bed.runtime.execute({
			nodeType: 'personnelData',
			parameters: getManyEmployees({
				returnAll: true,
				filters: {
					filter: [
						{ field: 'updated_at', operator: 'gte', value: '2020-01-01T00:00:00Z' },
						{ field: 'id', operator: 'in', value: `${a}, ${b}` },
					],
				},
				options: { orderBy: 'last_name', orderDirection: 'desc', select: ['first_name', 'email'] },
			}),
		});
		expect(result.error).toBeUndefined();
		expect(result.items?.[0].map((item) => item.json.id).sort()).toEqual([a, b].sort());
		const [request] = apiRequests(bed);
		const pairs = request.rawQuery.split('&').map(decodeURIComponent);
		expect(pairs).toEqual([
			'filters[updated_at][op]=gte',
			'filters[updated_at][value]=2020-01-01T00:00:00Z',
			'filters[id][op]=in',
			`filters[id][value][]=${a}`,
			`filters[id][value][]=${b}`,
			'order[field]=last_name',
			'order[direction]=desc',
			'select[]=id',
			'select[]=first_name',
			'select[]=email',
			'pagination[first]=100',
		]);
		// The simulator parsed it as the API would.
		expect(request.status).toBe(200);
	});

	it('pagination[after] carries the cursor of the previous page', async () => {
		bed.simulator.sim.clearRequests();
		// Ordered by id: one cursor (without an order Return All may read in inserted_at ranges).
		const options = { orderBy: 'id', orderDirection: 'asc' };
		const result = await bed.runtime.execute({ nodeType: 'personnelData', parameters: getManyEmployees({ returnAll: true, options }) });
		expect(result.items?.[0]).toHaveLength(bed.simulator.sim.counts().employees);
		const queries = apiRequests(bed).map((entry) => entry.rawQuery.split('&').map(decodeURIComponent));
		expect(queries[0]).toEqual(['order[field]=id', 'order[direction]=asc', 'pagination[first]=100']);
		for (const later of queries.slice(1)) {
			expect(later.slice(0, 3)).toEqual(queries[0]);
			expect(later[3]).toMatch(/^pagination\[after\]=.+/);
		}
	});
});

describe('query serialization', () => {
	it('writes the bracket notation with repeated values for lists', () => {
		const query = buildListQuery(employee, {
			filters: [
				{ field: 'updated_at', operator: 'gte', value: '2026-11-23T08:00:00.123456Z' },
				{ field: 'id', operator: 'in', value: 'a7a8e1c2-1111-4c1d-9a9a-000000000001, a7a8e1c2-1111-4c1d-9a9a-000000000002' },
			],
			orderBy: 'last_name',
			orderDirection: 'desc',
			select: ['email'],
		});
		expect(decodeURIComponent(serializeQuery(query)).split('&')).toEqual([
			'filters[updated_at][op]=gte',
			'filters[updated_at][value]=2026-11-23T08:00:00.123456Z',
			'filters[id][op]=in',
			'filters[id][value][]=a7a8e1c2-1111-4c1d-9a9a-000000000001',
			'filters[id][value][]=a7a8e1c2-1111-4c1d-9a9a-000000000002',
			'order[field]=last_name',
			'order[direction]=desc',
			'select[]=id',
			'select[]=email',
		]);
	});

	it('converts offsets to UTC but keeps UTC digits as given', () => {
		const query = buildListQuery(employee, { filters: [{ field: 'updated_at', operator: 'gt', value: '2026-11-23T09:00:00+01:00' }] });
		expect(query['filters[updated_at][value]']).toBe('2026-11-23T08:00:00.000Z');
	});
});
