import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { rangeTiming, RANGES_WORTH_WAITING_SHARE } from '../../nodes/shared/rangeWorth';
import type { NodeRuntime } from '../../scripts/harness';
import type { HostileRequest } from './hostileServer';
import { HostileServer, page, runtimeFor, sendJson } from './hostileServer';
import { jsonOf } from './support';

/**
 * Return All in inserted_at ranges against servers that make other choices, or break the rules: the
 * answer is always what one cursor gives (Limit never uses ranges), or the same error.
 */
const COUNT = 700;
const id = (index: number) => `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`;
/** Microsecond timestamps, some shared by several employees (ties at a range boundary). */
const employees: IDataObject[] = Array.from({ length: COUNT }, (_, index) => ({
	id: id(index + 1),
	first_name: `E${index}`,
	inserted_at: new Date(Date.UTC(2025, 0, 1) + Math.floor(index / 3) * 3_600_000 + 123).toISOString().replace('Z', '456Z'),
}));

interface Choices {
	/** Compare the filter value with the stored timestamps as text (a legal-looking but different choice). */
	textCompare?: boolean;
	ignoreFilter?: boolean;
	/** Ignore the order: always oldest first. */
	ignoreOrder?: boolean;
}

/** A list endpoint with cursors (offsets), order by inserted_at then id, and the inserted_at filter. */
function listing(choices: Choices) {
	return (request: HostileRequest, response: Parameters<HostileServer['api']>[1]) => {
		const q = request.query;
		const desc = !choices.ignoreOrder && q.get('order[direction]') === 'desc';
		let rows = [...employees];
		const op = q.get('filters[inserted_at][op]');
		const value = q.get('filters[inserted_at][value]');
		if (op && value && !choices.ignoreFilter) {
			const at = (row: IDataObject) => (choices.textCompare ? String(row.inserted_at) : Date.parse(String(row.inserted_at)));
			const bound = choices.textCompare ? value : Date.parse(value);
			rows = rows.filter((row) => (op === 'gte' ? at(row) >= bound : op === 'lt' ? at(row) < bound : true));
		}
		if (desc) rows.reverse();
		const offset = Number(q.get('pagination[after]') ?? 0);
		const first = Number(q.get('pagination[first]') ?? 100);
		const next = offset + first;
		sendJson(response, 200, page(rows.slice(offset, next), next < rows.length ? String(next) : null, next < rows.length));
	};
}

const returnAll = (direction: 'asc' | 'desc'): INodeParameters => ({
	resource: 'employee',
	operation: 'getMany',
	returnAll: true,
	options: { orderBy: 'inserted_at', orderDirection: direction },
});
const oneCursor = (direction: 'asc' | 'desc'): INodeParameters => ({ ...returnAll(direction), returnAll: false, limit: 1_000_000 });
const atDefaults: INodeParameters = { resource: 'employee', operation: 'getMany', returnAll: true };
const unorderedCursor: INodeParameters = { ...atDefaults, returnAll: false, limit: 1_000_000 };

describe('Return All in ranges against servers with other choices', () => {
	let server: HostileServer;
	let runtime: NodeRuntime;
	// Ranges even on loopback, where they would not pay (rangedWalk.ts).
	beforeAll(() => (rangeTiming.worthWaitingShare = 0));
	afterAll(() => (rangeTiming.worthWaitingShare = RANGES_WORTH_WAITING_SHARE));
	beforeEach(async () => {
		server = await new HostileServer().start();
		runtime = runtimeFor(server);
	});
	afterEach(async () => await server.close());

	const execute = async (parameters: INodeParameters) => {
		server.requests.length = 0;
		const result = await runtime.execute({ nodeType: 'personnelData', parameters });
		return { error: result.error, ids: jsonOf(result.items).map((json) => String(json.id)), requests: server.apiRequests().length };
	};

	it.each([
		['compares timestamps as time', {}],
		['compares timestamps as text (microseconds against the boundary\'s milliseconds)', { textCompare: true }],
		['ignores the inserted_at filter', { ignoreFilter: true }],
		['ignores the order (always oldest first)', { ignoreOrder: true }],
	] as Array<[string, Choices]>)('a server that %s: the single cursor\'s answer', async (_name, choices) => {
		server.api = listing(choices);
		for (const direction of ['asc', 'desc'] as const) {
			const reference = await execute(oneCursor(direction));
			const ranged = await execute(returnAll(direction));
			expect(ranged.error?.message).toBe(reference.error?.message);
			expect(ranged.ids).toEqual(reference.ids);
			if (!choices.ignoreOrder) expect(new Set(ranged.ids).size).toBe(COUNT);
			// A refused range costs at most the ranged attempt again: bounded, never endless.
			expect(ranged.requests).toBeLessThanOrEqual(2 * reference.requests + 5);
			// An honest server is read in ranges: its pages, one probe, at most one page per boundary.
			if (Object.keys(choices).length === 0) expect(ranged.requests).toBeLessThanOrEqual(reference.requests + 4);
		}
		// No order (the default): ranges oldest first, or one cursor without an order, as asked.
		const reference = await execute(unorderedCursor);
		const ranged = await execute(atDefaults);
		expect(ranged.error?.message).toBe(reference.error?.message);
		expect(ranged.ids).toEqual(reference.ids);
		expect(new Set(ranged.ids).size).toBe(COUNT);
		expect(ranged.requests).toBeLessThanOrEqual(2 * reference.requests + 5);
		if (Object.keys(choices).length === 0) {
			expect(ranged.requests).toBeLessThanOrEqual(reference.requests + 4);
			expect(server.apiRequests().some((request) => request.query.get('filters[inserted_at][op]') !== null)).toBe(true);
		}
	});

	it('a server that sends a record of another range twice: the answer of one cursor, no duplicate', async () => {
		const honest = listing({});
		server.api = (request, response) => {
			// Every filtered range's first page also carries the very first employee.
			if (request.query.get('filters[inserted_at][op]') && !request.query.get('pagination[after]')) {
				sendJson(response, 200, page([employees[0]], '0', true));
				return;
			}
			honest(request, response);
		};
		const ranged = await execute(returnAll('asc'));
		expect(ranged.error).toBeUndefined();
		expect(ranged.ids).toEqual(employees.map((row) => String(row.id)));
	});

	describe('at the production share: ranges where the node mostly waits for the first pages', () => {
		beforeAll(() => (rangeTiming.worthWaitingShare = RANGES_WORTH_WAITING_SHARE));
		afterAll(() => (rangeTiming.worthWaitingShare = 0));
		const ranged = () => server.apiRequests().some((request) => request.query.get('filters[inserted_at][op]') !== null);

		it('a server in this process that keeps it busy for each page (nothing to wait for): the same cursor goes on alone', async () => {
			const honest = listing({});
			server.api = (request, response) => {
				const until = performance.now() + 15;
				while (performance.now() < until);
				honest(request, response);
			};
			const result = await execute(atDefaults);
			expect(result.ids).toHaveLength(COUNT);
			expect(ranged()).toBe(false);
		});

		it('a server that answers each page 20 ms later (the node waits): ranges, the same answer as one cursor', async () => {
			const honest = listing({});
			server.api = async (request, response) => {
				await new Promise((resolve) => setTimeout(resolve, 20));
				honest(request, response);
			};
			const reference = await execute(unorderedCursor);
			const result = await execute(atDefaults);
			expect(result.ids).toEqual(reference.ids);
			expect(ranged()).toBe(true);
		});
	});
});
