import type { NodeRuntime } from '../../../../scripts/harness';
import { expectNoSecrets } from '../../../helpers/secrets';
import type { HostileRequest } from '../../../transport/hostileServer';
import { employee, HostileServer, hostileSecrets, page, runtimeFor, sendJson, sendText } from '../../../transport/hostileServer';
import { REQUESTS_PER_CHUNK } from '../../../../nodes/PersonnelData/actions/read/recordsWhere';
import { forgetRefusals } from '../../../../nodes/PersonnelData/actions/read/refusals';

/** Get over several items against servers whose lists cannot be trusted to hold every record. */
describe('Get in batches against a server that answers lists its own way', () => {
	let server: HostileServer;
	let runtime: NodeRuntime;
	const ids = [1, 2, 3, 4, 5].map((index) => String(employee(index).id));
	const known = new Map(ids.map((id, index) => [id, employee(index + 1)]));
	const isList = (request: HostileRequest) => request.path === '/v1/org/employees';
	const asked = (request: HostileRequest) => request.query.getAll('filters[id][value][]');

	beforeEach(async () => {
		forgetRefusals();
		server = await new HostileServer().start();
		runtime = runtimeFor(server);
	});
	afterEach(async () => {
		forgetRefusals();
		await server.close();
	});

	/** Single reads answer from `known`: 404 for the rest. */
	const singleRead = (request: HostileRequest, response: Parameters<HostileServer['api']>[1]) => {
		const record = known.get(request.path.split('/').pop() ?? '');
		if (record) sendJson(response, 200, { data: record });
		else sendJson(response, 404, { message: 'not found', errors: [] });
	};

	const get = async (more: { continueOnFail?: boolean; items?: string[] } = {}) => {
		const result = await runtime.execute({
			nodeType: 'personnelData',
			parameters: { resource: 'employee', operation: 'get', id: { __rl: true, mode: 'id', value: '={{ $json.id }}' }, simplify: false },
			items: (more.items ?? ids).map((id) => ({ json: { id } })),
			continueOnFail: more.continueOnFail,
		});
		expectNoSecrets([result.items, result.error, runtime.logs], hostileSecrets(server));
		return result;
	};

	it('a list that leaves out ids the server does hold: those items get them from their own request', async () => {
		server.api = (request, response) => {
			if (!isList(request)) return singleRead(request, response);
			// Only every other record, and still "no next page".
			const data = asked(request)
				.filter((_, index) => index % 2 === 0)
				.map((id) => known.get(id));
			sendJson(response, 200, page(data, null, false));
		};
		const result = await get();
		expect(result.error).toBeUndefined();
		expect(result.items?.[0].map((item) => item.json.id)).toEqual(ids);
		expect(server.apiRequests().map((request) => request.path)).toEqual([
			'/v1/org/employees',
			`/v1/org/employees/${ids[1]}`,
			`/v1/org/employees/${ids[3]}`,
		]);
	});

	it('an omitted id the server does not hold: that item alone gets the 404, named', async () => {
		known.delete(ids[2]);
		try {
			server.api = (request, response) => {
				if (!isList(request)) return singleRead(request, response);
				sendJson(response, 200, page(asked(request).flatMap((id) => known.get(id) ?? []), null, false));
			};
			const result = await get({ continueOnFail: true });
			const items = result.items?.[0] ?? [];
			expect(items.map((item) => item.json.id ?? item.json.error)).toEqual([ids[0], ids[1], `Employee ${ids[2]} was not found`, ids[3], ids[4]]);
			expect(items[2].pairedItem).toEqual({ item: 2 });
			expect(server.apiRequests()).toHaveLength(2);
		} finally {
			known.set(ids[2], employee(3));
		}
	});

	it('a list answer naming records not asked for is not used: every item reads on its own and succeeds', async () => {
		server.api = (request, response) => {
			if (!isList(request)) return singleRead(request, response);
			sendJson(response, 200, page([employee(99)], null, false));
		};
		const result = await get();
		expect(result.error).toBeUndefined();
		expect(result.items?.[0].map((item) => item.json.id)).toEqual(ids);
		expect(server.apiRequests().filter(isList)).toHaveLength(1);
		expect(server.apiRequests().filter((request) => !isList(request))).toHaveLength(ids.length);
	});

	it('chunks in flight together fail in different ways: only their items read one by one, a missing record fails its item alone', async () => {
		// 350 items: four list requests, three in flight. Chunk 2 gets an HTML page with 200, chunk 3
		// an endless cursor, chunk 4 leaves out a record the server does not hold either.
		const many = Array.from({ length: 350 }, (_, index) => employee(1_000 + index));
		const manyIds = many.map((record) => String(record.id));
		for (const record of many) known.set(String(record.id), record);
		const missing = manyIds[320];
		known.delete(missing);
		const chunkOf = (request: HostileRequest) => Math.floor(manyIds.indexOf(asked(request)[0]) / 100);
		try {
			server.api = (request, response) => {
				if (!isList(request)) return singleRead(request, response);
				const chunk = chunkOf(request);
				if (chunk === 1) return sendText(response, 200, 'text/html', '<html><body>Maintenance</body></html>');
				const data = asked(request).flatMap((id) => known.get(id) ?? []);
				if (chunk === 2) return sendJson(response, 200, page(data, 'again', true));
				sendJson(response, 200, page(data, null, false));
			};
			const result = await get({ continueOnFail: true, items: manyIds });
			const items = result.items?.[0] ?? [];
			expect(items.map((item) => item.json.id ?? item.json.error)).toEqual(manyIds.map((id) => (id === missing ? `Employee ${id} was not found` : id)));
			expect(items.map((item) => item.pairedItem)).toEqual(manyIds.map((_, index) => ({ item: index })));
			const singles = server.apiRequests().filter((request) => !isList(request)).map((request) => request.path.split('/').pop());
			// Chunks 2 and 3 one by one, and the one record chunk 4 left out; chunks 1 and 4 served the rest.
			expect(singles.sort()).toEqual([...manyIds.slice(100, 300), missing].sort());
			const lists = server.apiRequests().filter(isList);
			expect(new Set(lists.map(chunkOf))).toEqual(new Set([0, 1, 2, 3]));
			// The endless cursor ends within the chunk's request budget.
			expect(lists.filter((request) => chunkOf(request) === 2).length).toBeLessThanOrEqual(REQUESTS_PER_CHUNK);
		} finally {
			for (const id of manyIds) known.delete(id);
		}
	});

	it('a 400 to filters[id]: one request per item, and the next run does not try the list again', async () => {
		server.api = (request, response) => {
			if (!isList(request)) return singleRead(request, response);
			sendJson(response, 400, { message: 'invalid filter', errors: [{ domain: 'filters', reason: 'invalid_filter', message: 'id: not filterable' }] });
		};
		const first = await get();
		expect(first.items?.[0].map((item) => item.json.id)).toEqual(ids);
		expect(server.apiRequests().map((request) => request.path)).toEqual(['/v1/org/employees', ...ids.map((id) => `/v1/org/employees/${id}`)]);
		server.requests.length = 0;
		const second = await get();
		expect(second.items?.[0].map((item) => item.json.id)).toEqual(ids);
		expect(server.apiRequests().filter(isList)).toEqual([]);
	});
});
