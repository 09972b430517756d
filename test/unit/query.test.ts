import { buildListQuery } from '../../nodes/shared/listQuery/parse';
import { employee } from '../../nodes/shared/registry/resources/employee';
import { serializeQuery } from '../../nodes/shared/transport/query';
import { retryAfterMs, retryDelayMs, isRetryable } from '../../nodes/shared/transport/retryPolicy';

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

describe('retry policy', () => {
	it('honours Retry-After in seconds and as a date', () => {
		expect(retryAfterMs('2')).toBe(2000);
		expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6_000);
		expect(retryDelayMs({ status: 429, retryAfter: '1', message: '' }, 3)).toBe(1000);
	});

	it('backs off exponentially with jitter', () => {
		expect(retryDelayMs({ status: 503, message: '' }, 1, () => 0)).toBe(250);
		expect(retryDelayMs({ status: 503, message: '' }, 3, () => 1)).toBe(2000);
	});

	it('repeats only what cannot write twice', () => {
		expect(isRetryable({ status: 429, message: '' }, false)).toBe(true);
		expect(isRetryable({ status: 503, message: '' }, false)).toBe(false);
		expect(isRetryable({ status: 503, message: '' }, true)).toBe(true);
		expect(isRetryable({ code: 'ECONNRESET', message: '' }, true)).toBe(true);
		expect(isRetryable({ status: 400, message: '' }, true)).toBe(false);
		expect(isRetryable({ status: 401, message: '' }, true)).toBe(false);
	});
});
