import type { INodeParameters } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { transportLimits } from '../../nodes/shared/transport/bounded';
import type { NodeRuntime } from '../../scripts/harness';
import { expectNoSecrets } from '../helpers/secrets';
import type { HostileServer as Server } from './hostileServer';
import { employee, HostileServer, hostileSecrets, page, runtimeFor, SALT, sendJson, trickling } from './hostileServer';
import { fastBackoff } from './support';

const ID = '00000000-0000-4000-8000-000000000001';
const DEADLINE_MS = 600;
/** Scheduling slack on a busy 2-core machine: a deadline is kept when the exchange ends within it plus this. */
const SLACK_MS = 300;
const getOne: INodeParameters = { resource: 'employee', operation: 'get', id: { __rl: true, mode: 'id', value: ID } };
const getMany: INodeParameters = { resource: 'employee', operation: 'getMany', returnAll: true, options: {} };
/** One byte every 200 ms: the socket is never idle, and the body would take seconds. */
const EVERY_MS = 200;

describe('a body trickled past the deadline ends at the deadline, body included, with "did not answer … in time"', () => {
	let server: Server;
	let runtime: NodeRuntime;
	// A connection the server dropped before answering (a reused keep-alive socket, on a busy
	// machine) is retried as always; what must not be retried is the trickled answer.
	fastBackoff();
	const saved = { ...transportLimits };
	beforeAll(() => Object.assign(transportLimits, { deadlineMs: DEADLINE_MS }));
	afterAll(() => Object.assign(transportLimits, saved));

	beforeEach(async () => {
		server = await new HostileServer().start();
		runtime = runtimeFor(server);
	});
	afterEach(async () => {
		expectNoSecrets(runtime.logs, hostileSecrets(server));
		await server.close();
	});

	/**
	 * Exchanges that lasted until the deadline, as the server measures them (from the request's
	 * arrival, a moment after the client's deadline began): the trickled ones, as opposed to a
	 * dropped connection. Exactly one means: not retried.
	 */
	const trickled = (exchanges: number[]) => exchanges.filter((ms) => ms >= DEADLINE_MS / 2);

	async function timed(parameters: INodeParameters) {
		const started = Date.now();
		const result = await runtime.execute({ nodeType: 'personnelData', parameters });
		return { ...result, elapsedMs: Date.now() - started };
	}

	it('Get: one exchange, closed at the deadline, not retried (a trickling proxy would hold the run once per attempt)', async () => {
		const exchanges: number[] = [];
		server.api = trickling(200, JSON.stringify({ data: employee(1) }), EVERY_MS, exchanges);
		const result = await timed(getOne);
		expect(result.error?.message).toBe(`The Personnel Data API did not answer GET /v1/org/employees/${ID} in time (the answer was still arriving after 0.6 s)`);
		await sleep(50); // the server sees the close a moment after the client
		expect(trickled(exchanges)).toHaveLength(1);
		expect(Math.max(...exchanges)).toBeLessThanOrEqual(DEADLINE_MS + SLACK_MS);
		expect(result.elapsedMs).toBeLessThan(2 * DEADLINE_MS);
	});

	it('Get Many: the same on the list endpoint', async () => {
		const exchanges: number[] = [];
		server.api = trickling(200, JSON.stringify(page([employee(1)], null, false)), EVERY_MS, exchanges);
		const result = await timed(getMany);
		expect(result.error?.message).toBe('The Personnel Data API did not answer GET /v1/org/employees in time (the answer was still arriving after 0.6 s)');
		await sleep(50);
		expect(trickled(exchanges)).toHaveLength(1);
		expect(Math.max(...exchanges)).toBeLessThanOrEqual(DEADLINE_MS + SLACK_MS);
		expect(result.elapsedMs).toBeLessThan(2 * DEADLINE_MS);
	});

	it('the token request begin (the salt) trickles: the run ends at its deadline, no API request is sent', async () => {
		const exchanges: number[] = [];
		server.begin = trickling(200, JSON.stringify({ data: { salt: SALT } }), EVERY_MS, exchanges);
		const result = await timed(getOne);
		expect(result.error?.message).toBe(
			'Personnel Data API credential: begin failed (the answer was still arriving after 0.6 s). The service did not answer the token request in time; try again later.',
		);
		expect(server.apiRequests()).toHaveLength(0);
		await sleep(50);
		expect(trickled(exchanges)).toHaveLength(1);
		expect(Math.max(...exchanges)).toBeLessThanOrEqual(DEADLINE_MS + SLACK_MS);
		expect(result.elapsedMs).toBeLessThan(2 * DEADLINE_MS);
	});

	it('the token request refresh (the access token) trickles: the same', async () => {
		const exchanges: number[] = [];
		server.refresh = trickling(200, JSON.stringify({ data: { access_token: server.issue() } }), EVERY_MS, exchanges);
		const result = await timed(getMany);
		expect(result.error?.message).toBe(
			'Personnel Data API credential: refresh failed (the answer was still arriving after 0.6 s). The service did not answer the token request in time; try again later.',
		);
		expect(server.apiRequests()).toHaveLength(0);
		await sleep(50);
		expect(trickled(exchanges)).toHaveLength(1);
		expect(Math.max(...exchanges)).toBeLessThanOrEqual(DEADLINE_MS + SLACK_MS);
		expect(result.elapsedMs).toBeLessThan(2 * DEADLINE_MS);
	});

	it('slow token requests do not lend the API request their time: its own deadline starts once the token is in', async () => {
		const slowly = (answer: (response: Parameters<typeof sendJson>[0]) => void) => async (_request: unknown, response: Parameters<typeof sendJson>[0]) => {
			await sleep(DEADLINE_MS * 0.7);
			answer(response);
		};
		server.begin = slowly((response) => sendJson(response, 200, { data: { salt: SALT } }));
		server.refresh = slowly((response) => sendJson(response, 200, { data: { access_token: server.issue() } }));
		const exchanges: number[] = [];
		server.api = trickling(200, JSON.stringify({ data: employee(1) }), EVERY_MS, exchanges);
		const result = await timed(getOne);
		expect(result.error?.message).toContain('did not answer GET /v1/org/employees/');
		expect(result.error?.message).toContain('in time (the answer was still arriving after 0.6 s)');
		await sleep(50);
		// Without its own deadline the API request would have had what the token requests left of 3 × 0.6 s: ≈ 0.96 s.
		expect(exchanges[0]).toBeLessThanOrEqual(DEADLINE_MS + SLACK_MS / 2);
		expect(exchanges[0]).toBeGreaterThanOrEqual(DEADLINE_MS / 2);
	});
});
