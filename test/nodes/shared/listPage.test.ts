/**
 * One page reader (nodes/shared/listPage.ts) for every listing: Get Many's page walk, the trigger's
 * probes and the record locator's list search check a page the same way and stop with the same
 * message naming the endpoint, instead of guessing what a broken page means.
 */
import type { NodeRuntime } from '../../../scripts/harness';
import { employee, HostileServer, page, runtimeFor, sendJson } from '../../transport/hostileServer';

const LIST = 'GET /v1/org/employees';

/** Answers that are not a page of a list, and what every listing says about them. */
const BROKEN: Array<[string, Record<string, unknown>, string]> = [
	[
		'no pagination object',
		{ data: [employee(1)] },
		`${LIST}: the answer has no "pagination" object (got missing); stopped instead of guessing whether more pages exist`,
	],
	[
		'has_next_page that is not true or false',
		page([employee(1)], 'next', 'yes'),
		`${LIST}: "pagination.has_next_page" is a string, expected true or false; stopped instead of guessing`,
	],
	[
		'has_next_page without a cursor',
		page([employee(1)], null, true),
		`${LIST}: the API said more records exist but "pagination.end_cursor" is null, expected a cursor; stopped instead of asking for the same pages again`,
	],
];

describe('One page reader: every listing checks a page the same way', () => {
	let server: HostileServer;
	let runtime: NodeRuntime;

	beforeEach(async () => {
		server = await new HostileServer().start();
		runtime = runtimeFor(server);
	});
	afterEach(async () => await server.close());

	const search = (paginationToken?: string) =>
		runtime.listSearch({ nodeType: 'personnelData', method: 'searchRecords', parameters: { resource: 'employee' }, paginationToken });

	it.each(BROKEN)('an answer with %s: Get Many, the trigger and the list search stop with one message', async (_, body, message) => {
		server.api = (_request, response) => sendJson(response, 200, body);

		const getMany = await runtime.execute({ nodeType: 'personnelData', parameters: { resource: 'employee', operation: 'getMany', returnAll: true } });
		expect(getMany.error?.message).toBe(message);
		expect(getMany.items).toBeUndefined();

		// The trigger's activation walks pages; after it, a poll's first request is its own probe.
		const trigger = { nodeType: 'personnelDataTrigger', parameters: { resource: 'employee', event: 'createdOrUpdated' }, mode: 'trigger' } as const;
		const activating = await runtime.poll(trigger);
		expect(activating.error?.message).toBe(message);
		expect(activating.staticData).toEqual({});
		server.api = (_request, response) => sendJson(response, 200, page([employee(1)], null, false));
		const activated = await runtime.poll(trigger);
		expect(activated.error).toBeUndefined();
		const probes = server.apiRequests().length;
		server.api = (_request, response) => sendJson(response, 200, body);
		const polled = await runtime.poll(trigger);
		expect(polled.error?.message).toBe(message);
		expect(polled.staticData).toEqual(activated.staticData);
		expect(server.apiRequests().length - probes).toBe(1);

		await expect(search()).rejects.toThrow(message);
	});

	it('the list search pages by the server\'s end cursor, and offers no next page when the server says there is none', async () => {
		server.api = (request, response) =>
			request.query.get('pagination[after]') === null
				? sendJson(response, 200, page([employee(1), employee(2)], 'cursor-2', true))
				: sendJson(response, 200, page([employee(3)], 'cursor-3', false));
		const first = await search();
		expect(first.results.map((result) => result.value)).toEqual([employee(1).id, employee(2).id]);
		expect(first.paginationToken).toBe('cursor-2');
		const second = await search('cursor-2');
		expect(second.results.map((result) => result.value)).toEqual([employee(3).id]);
		expect(second.paginationToken).toBeUndefined();
		expect(server.apiRequests().map((request) => request.query.get('pagination[after]'))).toEqual([null, 'cursor-2']);
	});
});
