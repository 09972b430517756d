import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { INodeParameters } from 'n8n-workflow';

import { apiRequests, idsOf, jsonOf, queryPairs, queryValues, run } from '../personnelData/helpers';
import { startTestBed, useTestBed } from '../setup';

describe('Pagination: Return All and Limit over the API\'s cursor', () => {
	const bed = useTestBed();

	const listRequests = (path: string) => apiRequests(bed).filter((entry) => entry.method === 'GET' && entry.path === path);

	it('Return All follows every page and equals the simulator count with no duplicate id', async () => {
		const result = await run(bed, { resource: 'employee', operation: 'getMany', returnAll: true });
		const records = jsonOf(result);
		const ids = idsOf(records);
		expect(ids).toHaveLength(bed.simulator.sim.counts().employees);
		expect(new Set(ids).size).toBe(ids.length);
		const requests = listRequests('/v1/org/employees');
		expect(requests.length).toBe(Math.ceil(ids.length / 100));
		expect(requests.every((entry) => queryValues(entry.rawQuery, 'pagination[first]')[0] === '100')).toBe(true);
		// Every request after the first continues from the cursor the previous one returned.
		expect(queryValues(requests[0].rawQuery, 'pagination[after]')).toEqual([]);
		for (const entry of requests.slice(1)) expect(queryValues(entry.rawQuery, 'pagination[after]')).toHaveLength(1);
	});

	it('Return All reads (and decrypts) the credential once for the whole walk, not once a page', async () => {
		// n8n 2.8 reads a credential from its database and decrypts it on every read: ~3 ms a page.
		const reads = jest.spyOn(bed.runtime.credentialsHelper, 'getDecrypted');
		try {
			const result = await run(bed, { resource: 'employee', operation: 'getMany', returnAll: true });
			expect(jsonOf(result)).toHaveLength(bed.simulator.sim.counts().employees);
			expect(listRequests('/v1/org/employees').length).toBeGreaterThan(1);
			expect(reads).toHaveBeenCalledTimes(1);
		} finally {
			reads.mockRestore();
		}
	});

	it('Limit 150 returns exactly 150 with two list requests: first=100, then first=50', async () => {
		const result = await run(bed, { resource: 'employee', operation: 'getMany', returnAll: false, limit: 150 });
		expect(jsonOf(result)).toHaveLength(150);
		const requests = listRequests('/v1/org/employees');
		expect(requests.map((entry) => queryValues(entry.rawQuery, 'pagination[first]'))).toEqual([['100'], ['50']]);
	});

	it('the default limit is 50 in one request', async () => {
		const result = await run(bed, { resource: 'employee', operation: 'getMany' });
		expect(jsonOf(result)).toHaveLength(50);
		expect(listRequests('/v1/org/employees')).toHaveLength(1);
	});

	it('never sends backward pagination', async () => {
		await run(bed, { resource: 'timeReport', operation: 'getMany', returnAll: true });
		for (const entry of apiRequests(bed)) {
			const keys = queryPairs(entry.rawQuery).map(([key]) => key);
			expect(keys).not.toContain('pagination[last]');
			expect(keys).not.toContain('pagination[before]');
		}
	});
});

describe('Pagination: a cursor that does not advance', () => {
	type Page = { end_cursor: string | null; has_next_page: boolean };
	/** One cursor: an order of the user's (ranges are for no order or Inserted At, see returnAllRanges.test.ts). */
	const ONE_CURSOR: INodeParameters = { orderBy: 'id', orderDirection: 'asc' };
	/** Runs a Return All against a tiny server whose n-th answer (from 1) has `pageFor(n)` as pagination. */
	async function returnAllAgainst(pageFor: (request: number) => Page, options: INodeParameters = ONE_CURSOR) {
		let requests = 0;
		const server = createServer((req, res) => {
			requests++;
			res.writeHead(200, { 'content-type': 'application/json' });
			const id = `00000000-0000-4000-8000-${String(requests).padStart(12, '0')}`;
			res.end(JSON.stringify({ data: [{ id }], pagination: pageFor(requests) }));
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		const bed = await startTestBed();
		try {
			bed.runtime.setCredentials('personnelDataApi', {
				baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
				authMode: 'legacyToken',
				legacyToken: 'legacy-token',
			});
			const result = await bed.runtime.execute({ nodeType: 'personnelData', parameters: { resource: 'employee', operation: 'getMany', returnAll: true, options } });
			return { result, requests };
		} finally {
			await bed.simulator.close();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		}
	}

	it('fails clearly instead of asking for the same page forever', async () => {
		const { result, requests } = await returnAllAgainst(() => ({ end_cursor: 'STUCK', has_next_page: true }));
		expect(result.error?.message).toBe('GET /v1/org/employees: the API sent cursor "STUCK" again after 2 requests (pages in a loop); stopped instead of asking for the same pages again');
		expect(requests).toBe(2);
	});

	it('a missing end cursor with has_next_page fails too', async () => {
		const { result, requests } = await returnAllAgainst(() => ({ end_cursor: null, has_next_page: true }));
		expect(result.error?.message).toContain('"pagination.end_cursor" is null, expected a cursor');
		expect(requests).toBe(1);
	});

	it('a server that cycles through cursors (A, B, A) is stopped as well', async () => {
		const { result, requests } = await returnAllAgainst((n) => ({ end_cursor: n % 2 === 1 ? 'A' : 'B', has_next_page: true }));
		expect(result.error?.message).toContain('the API sent cursor "A" again after 3 requests');
		expect(requests).toBe(3);
	});

	it('at the defaults (no order: read in ranges first) the same error, after at most the ranged attempt\'s 2 requests more', async () => {
		const { result, requests } = await returnAllAgainst(() => ({ end_cursor: 'STUCK', has_next_page: true }), {});
		expect(result.error?.message).toBe('GET /v1/org/employees: the API sent cursor "STUCK" again after 2 requests (pages in a loop); stopped instead of asking for the same pages again');
		expect(requests).toBeLessThanOrEqual(4);
	});
});
