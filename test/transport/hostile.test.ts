import type { INodeParameters, NodeApiError } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { HTTP } from '../../nodes/shared/apiChoices';
import { maxRequestsOption } from '../../nodes/shared/pagination';
import { transportLimits } from '../../nodes/shared/transport/bounded';
import type { NodeRuntime } from '../../scripts/harness';
import { expectNoSecrets, textOf } from '../helpers/secrets';
import type { HostileServer as Server } from './hostileServer';
import { employee, HostileServer, hostileSecrets, page, runtimeFor, sendJson, sendText } from './hostileServer';
import { fastBackoff, jsonOf } from './support';

const ID = '00000000-0000-4000-8000-000000000001';
const LIST = 'GET /v1/org/employees';

/**
 * Ordered by id: one cursor, whose own guarantees these tests check. Without an order Return All
 * reads in inserted_at ranges first, and gives up to one cursor on anything it cannot explain (see
 * the last page-walk test).
 */
const ONE_CURSOR: INodeParameters = { orderBy: 'id', orderDirection: 'asc' };
const getMany = (extra: INodeParameters = {}, options: INodeParameters = {}): INodeParameters => ({
	resource: 'employee',
	operation: 'getMany',
	returnAll: true,
	limit: 50,
	options: { ...ONE_CURSOR, ...options },
	...extra,
});
const getOne = (id = ID): INodeParameters => ({ resource: 'employee', operation: 'get', id: { __rl: true, mode: 'id', value: id } });
const trigger = (options: INodeParameters = {}): INodeParameters => ({ resource: 'employee', event: 'createdOrUpdated', options });

/** Shorter limits for this suite: a stalled answer fails in 0.6 s, an answer above 20 kB is too large. */
function tightLimits(): void {
	const saved = { ...transportLimits };
	beforeAll(() => Object.assign(transportLimits, { deadlineMs: 600, maxBodyBytes: 20_000 }));
	afterAll(() => Object.assign(transportLimits, saved));
}

describe('a hostile server: every request and page walk ends, with the truth', () => {
	let server: Server;
	let runtime: NodeRuntime;
	const seen: unknown[] = [];
	fastBackoff();
	tightLimits();

	beforeEach(async () => {
		server = await new HostileServer().start();
		runtime = runtimeFor(server);
	});
	afterEach(async () => {
		// Whatever a test did, nothing the server handed out or was sent reached what n8n keeps.
		expectNoSecrets([seen, runtime.logs], hostileSecrets(server));
		seen.length = 0;
		await server.close();
	});

	async function execute(parameters: INodeParameters, more: { continueOnFail?: boolean; items?: number; abortSignal?: AbortSignal } = {}) {
		const result = await runtime.execute({
			nodeType: 'personnelData',
			parameters,
			continueOnFail: more.continueOnFail,
			items: more.items === undefined ? undefined : Array.from({ length: more.items }, (_, index) => ({ json: { index } })),
			abortSignal: more.abortSignal,
		});
		seen.push(result.items, result.error);
		return result;
	}

	async function poll(parameters: INodeParameters) {
		const result = await runtime.poll({ nodeType: 'personnelDataTrigger', parameters, mode: 'trigger' });
		seen.push(result.items, result.error);
		return result;
	}

	describe('page walks', () => {
		it('has_next_page forever with fresh cursors and empty pages: Return All, Limit and a trigger poll stop at Max Requests', async () => {
			let cursor = 0;
			server.api = (_request, response) => sendJson(response, 200, page([], `c${++cursor}`, true));

			for (const parameters of [getMany({}, { maxRequests: 25 }), getMany({ returnAll: false, limit: 50 }, { maxRequests: 25 })]) {
				server.requests.length = 0;
				const result = await execute(parameters);
				expect(result.error?.message).toBe(
					`${LIST}: stopped after 25 requests without reaching the last page (Options → Max Requests is 25); raise Max Requests if this listing is legitimately that long, or narrow it with filters`,
				);
				expect(server.apiRequests()).toHaveLength(25);
				expect(result.items).toBeUndefined();
			}

			// At the defaults (no order: ranges first) the same error; the one cursor after the ranges has its own budget.
			server.requests.length = 0;
			const atDefaults = await execute({ resource: 'employee', operation: 'getMany', returnAll: true, options: { maxRequests: 25 } });
			expect(atDefaults.error?.message).toMatch(/stopped after \d+ requests without reaching the last page \(Options → Max Requests is 25\)/);
			expect(server.apiRequests().length).toBeLessThanOrEqual(2 * 25);

			server.requests.length = 0;
			const polled = await poll(trigger({ maxRequests: 25 }));
			expect(polled.error?.message).toContain('Options → Max Requests is 25');
			expect(server.apiRequests()).toHaveLength(25);
			expect(polled.staticData).toEqual({});
		});

		it('the default budget lets a condition walk of 1,000,000 employees through (≈20,000 mostly empty pages)', () => {
			expect(maxRequestsOption.default).toBe(HTTP.walkMaxRequests);
			expect(HTTP.walkMaxRequests).toBeGreaterThanOrEqual(20_000);
		});

		it('a fresh cursor with the same record every time: an error, never a duplicate item', async () => {
			let cursor = 0;
			server.api = (_request, response) => sendJson(response, 200, page([employee(1)], `c${++cursor}`, true));
			const result = await execute(getMany());
			expect(result.error?.message).toBe(`${LIST}: the API sent record ${ID} twice in one listing; stopped instead of returning it twice`);
			expect(server.apiRequests()).toHaveLength(2);

			const continued = await execute(getMany(), { continueOnFail: true });
			expect(jsonOf(continued.items)).toEqual([expect.objectContaining({ error: result.error?.message })]);
		});

		it('cursors cycling with a period of 1,001: every cursor of the walk is remembered', async () => {
			let request = 0;
			// Request n answers cursor c((n - 1) mod 1001): the 1,002nd request brings c0 back.
			server.api = (_request, response) => {
				const n = request++;
				sendJson(response, 200, page([employee(n + 1)], `c${n % 1001}`, true));
			};
			const result = await execute(getMany());
			expect(result.error?.message).toBe(`${LIST}: the API sent cursor "c0" again after 1002 requests (pages in a loop); stopped instead of asking for the same pages again`);
			expect(server.apiRequests()).toHaveLength(1002);
		}, 30_000);

		it.each([
			['an object', { next: 'x' }],
			['a number', 7],
			['an empty string', ''],
		])('end_cursor %s while has_next_page is true: an error, never a followed "[object Object]"', async (what, endCursor) => {
			server.api = (_request, response) => sendJson(response, 200, page([employee(1)], endCursor, true));
			const result = await execute(getMany());
			expect(result.error?.message).toBe(
				`${LIST}: the API said more records exist but "pagination.end_cursor" is ${what}, expected a cursor; stopped instead of asking for the same pages again`,
			);
			expect(server.apiRequests()).toHaveLength(1);
			expect(server.apiRequests()[0].query.get('pagination[after]')).toBeNull();
		});

		it('has_next_page missing or not a boolean: an error instead of a guess', async () => {
			server.api = (_request, response) => sendJson(response, 200, { data: [employee(1)], pagination: { end_cursor: 'c1', has_next_page: 'yes' } });
			const result = await execute(getMany());
			expect(result.error?.message).toBe(`${LIST}: "pagination.has_next_page" is a string, expected true or false; stopped instead of guessing`);
		});

		it('a user who stops the execution stops the walk', async () => {
			let cursor = 0;
			server.api = async (_request, response) => {
				await sleep(20);
				sendJson(response, 200, page([employee(++cursor)], `c${cursor}`, true));
			};
			const controller = new AbortController();
			const stopping = sleep(300).then(() => controller.abort());
			const result = await execute(getMany(), { abortSignal: controller.signal });
			await stopping;
			expect(result.error?.message).toMatch(/^Stopped GET \/v1\/org\/employees: the execution was cancelled/);
			await sleep(100); // a request already on its way may still arrive; none after it
			const sent = server.apiRequests().length;
			await sleep(200);
			expect(server.apiRequests()).toHaveLength(sent);
			expect(sent).toBeLessThan(50);
		});
	});

	describe('answers are checked before they are believed', () => {
		it.each([
			['HTML', 'text/html; charset=utf-8', '<html><body>Please log in</body></html>', 'but expected JSON, got text/html, 39 bytes'],
			['broken JSON', 'application/json', '{"data": [', 'but expected JSON, got malformed JSON (application/json, 10 bytes)'],
			['an empty body', 'application/json', '', 'but expected JSON, got an empty body'],
		])('200 with %s: Return All, Get and a trigger activation fail naming the endpoint', async (_what, contentType, text, what) => {
			server.api = (_request, response) => sendText(response, 200, contentType, text);
			const listed = await execute(getMany());
			expect(listed.error?.message).toBe(`The Personnel Data API answered ${LIST} with 200 ${what}`);
			expect(listed.items).toBeUndefined();

			const got = await execute(getOne());
			expect(got.error?.message).toBe(`The Personnel Data API answered GET /v1/org/employees/${ID} with 200 ${what}`);

			const activated = await poll(trigger());
			expect(activated.error?.message).toContain(`with 200 ${what}`);
			expect(activated.staticData).toEqual({});
			// Answers are not retried: a proxy's login page does not change by asking again.
			expect(server.apiRequests()).toHaveLength(3);
		});

		it('page 2 of a Return All answered with HTML: the execution fails, no shortened list', async () => {
			server.api = (request, response) =>
				request.query.get('pagination[after]') === null
					? sendJson(response, 200, page(Array.from({ length: 100 }, (_, index) => employee(index + 1)), 'p2', true))
					: sendText(response, 200, 'text/html', '<html>login</html>');
			const result = await execute(getMany());
			expect(result.error?.message).toBe(`The Personnel Data API answered ${LIST} with 200 but expected JSON, got text/html, 18 bytes`);
			expect(result.items).toBeUndefined();
			const continued = await execute(getMany(), { continueOnFail: true });
			expect(jsonOf(continued.items)).toEqual([expect.objectContaining({ error: result.error?.message })]);
		});

		it.each([
			['a string', 'abc', 'expected "data" to be an array of records, got a string'],
			['an object', { id: ID }, 'expected "data" to be an array of records, got an object'],
			['an array with a string', [employee(1), 'b'], 'expected "data" to be an array of records, got a string at data[1]'],
			['missing', undefined, 'expected "data" to be an array of records, got a undefined'],
		])('a list whose data is %s fails', async (_what, data, problem) => {
			server.api = (_request, response) => sendJson(response, 200, page(data, null, false));
			const result = await execute(getMany());
			expect(result.error?.message).toBe(`The Personnel Data API answered ${LIST} with 200 but ${problem}`);
		});

		it.each([
			['null', { data: null }, 'expected "data" to be an object, got null'],
			['an array', { data: [employee(1)] }, 'expected "data" to be an object, got an array'],
			['a JSON array', [employee(1)], 'expected a JSON object, got an array'],
		])('a single record whose data is %s fails instead of becoming an item with json null', async (_what, body, problem) => {
			server.api = (_request, response) => sendJson(response, 200, body);
			const result = await execute(getOne());
			expect(result.error?.message).toBe(`The Personnel Data API answered GET /v1/org/employees/${ID} with 200 but ${problem}`);
		});

		it('an answer above the size cap fails as too large, once (not retried)', async () => {
			server.api = (_request, response) => sendJson(response, 200, page([{ id: ID, padding: 'x'.repeat(30_000) }], null, false));
			const result = await execute(getMany());
			expect(result.error?.message).toBe(`The Personnel Data API's answer to ${LIST} was too large (the answer was larger than 20 kB)`);
			expect(server.apiRequests()).toHaveLength(1);
		});

		it('a too large answer without a Content-Length is cut off while it streams', async () => {
			server.api = (_request, response) => {
				response.writeHead(200, { 'content-type': 'application/json' });
				response.write('{"data": [');
				for (let chunk = 0; chunk < 10; chunk++) response.write(`"${'y'.repeat(5_000)}",`);
				response.end('"z"], "pagination": {"has_next_page": false}}');
			};
			const result = await execute(getMany());
			expect(result.error?.message).toContain('was too large');
		});
	});

	describe('every request has a total deadline', () => {
		it('provisioning begin never answers: the run and the credential test end with a clear error', async () => {
			server.begin = () => undefined; // never answers
			const result = await execute(getMany());
			expect(result.error?.message).toContain('Personnel Data API credential: begin failed (no complete answer within 0.6 s). The service did not answer the token request; try again later.');
			// Transient, so retried like any token request, within the run's bound.
			expect(server.provisioningCalls('begin')).toBeLessThanOrEqual(HTTP.failedProvisioningsPerRun);
			expect(server.apiRequests()).toHaveLength(0);

			server.requests.length = 0;
			const tested = await runtime.testCredential('personnelDataApi');
			seen.push(tested);
			expect(tested.status).toBe('Error');
			expect(tested.message).toContain('begin failed (no complete answer within 0.6 s)');
			expect(server.provisioningCalls('begin')).toBe(1);
		});

		it('a body trickled one byte at a time: stopped at the deadline, not kept alive by each byte', async () => {
			server.api = async (_request, response) => {
				response.writeHead(200, { 'content-type': 'application/json' });
				for (const byte of '{"data": [], "pagination": {"has_next_page": false}}') {
					if (response.destroyed) return;
					response.write(byte);
					await sleep(100);
				}
				response.end();
			};
			const result = await execute(getMany());
			expect(result.error?.message).toBe(`The Personnel Data API did not answer ${LIST} in time (the answer was still arriving after 0.6 s)`);
			// Not retried: a trickling server would hold the run once per attempt (trickle.test.ts).
			expect(server.apiRequests()).toHaveLength(1);
		}, 20_000);

		it('headers that never come: stopped at the deadline too', async () => {
			server.api = () => undefined;
			const result = await execute(getOne());
			expect(result.error?.message).toBe(`The Personnel Data API did not answer GET /v1/org/employees/${ID} in time (no complete answer within 0.6 s)`);
			expect(server.apiRequests()).toHaveLength(HTTP.maxAttempts);
		}, 20_000);
	});

	describe('tokens', () => {
		it('every API call answers 401 after a good provisioning: 500 items at Concurrency 10 provision twice, then one clear error', async () => {
			server.api = (_request, response) => sendJson(response, 401, { code: 401, message: 'Unauthorized', errors: [{ domain: 'auth', reason: 'invalid_token', message: 'no' }] });
			const result = await execute({ ...getOne('={{ "' + ID + '" }}'), options: { concurrency: 10 } }, { items: 500 });
			expect(result.error?.message).toMatch(/^The Personnel Data API refused freshly provisioned access tokens; stopped this run instead of provisioning again for every item/);
			expect(server.provisioningCalls('begin')).toBe(HTTP.refusedFreshTokensPerRun);
			expect(server.provisioningCalls('refresh')).toBe(HTTP.refusedFreshTokensPerRun);
			// Each of the 10 requests in flight may meet each refused token once; the other items send nothing.
			expect(server.apiRequests().length).toBeLessThanOrEqual(10 * HTTP.refusedFreshTokensPerRun);

			server.requests.length = 0;
			const continued = await execute({ ...getOne('={{ "' + ID + '" }}'), options: { concurrency: 10 } }, { items: 500, continueOnFail: true });
			expect(jsonOf(continued.items)).toHaveLength(500);
			expect(server.provisioningCalls('begin')).toBe(HTTP.refusedFreshTokensPerRun);
		});

		it('tokens that work and then expire during a long run are renewed every time, not counted as refused', async () => {
			const uses = new Map<string, number>();
			let served = 0;
			server.api = (request, response) => {
				const used = (uses.get(request.authorization) ?? 0) + 1;
				uses.set(request.authorization, used);
				if (used > 2) {
					sendJson(response, 401, { code: 401, message: 'Unauthorized', errors: [{ domain: 'auth', reason: 'token_expired', message: 'expired' }] });
					return;
				}
				served++;
				sendJson(response, 200, page([employee(served)], served < 10 ? `c${served}` : null, served < 10));
			};
			const result = await execute(getMany());
			expect(result.error).toBeUndefined();
			expect(jsonOf(result.items)).toHaveLength(10);
			// Each token serves two pages: five tokens, four of them renewed after one 401 each.
			expect(server.provisioningCalls('refresh')).toBe(5);
			expect(server.apiRequests().length).toBe(10 + 4);
		});

		it('a refused refresh token fails the whole run once, not one provisioning per item', async () => {
			server.refresh = (_request, response) =>
				sendJson(response, 401, { code: 401, message: 'Unauthorized', errors: [{ domain: 'auth', reason: 'invalid_signature', message: 'bad' }] });
			const result = await execute({ ...getOne('={{ "' + ID + '" }}'), options: { concurrency: 10 } }, { items: 500, continueOnFail: true });
			expect(jsonOf(result.items)).toHaveLength(500);
			expect(server.provisioningCalls('refresh')).toBeLessThanOrEqual(10);
			expect(server.apiRequests()).toHaveLength(0);
		});

		it('the server clock ahead (a token it calls expired, ours valid): one 401 per renewal', async () => {
			server.api = (_request, response) => sendJson(response, 200, { data: employee(1) });
			expect((await execute(getOne())).error).toBeUndefined();
			const first = server.issued[0];
			server.api = (request, response) =>
				request.authorization === `Bearer ${first}`
					? sendJson(response, 401, { code: 401, message: 'Unauthorized', errors: [{ domain: 'auth', reason: 'token_expired', message: 'expired' }] })
					: sendJson(response, 200, { data: employee(1) });
			server.requests.length = 0;
			for (let run = 0; run < 3; run++) expect((await execute(getOne())).error).toBeUndefined();
			expect(server.requests.map((request) => request.path.split('/')[1])).toEqual(['v1', 'provisioning', 'provisioning', 'v1', 'v1', 'v1']);
			expect(server.apiRequests().filter((request) => request.authorization === `Bearer ${first}`)).toHaveLength(1);
		});

		it.each([
			['right after a provisioning', false],
			['while the stored token is past its exp', true],
		])('429 with Retry-After %s: the announced pause is kept', async (_when, storeExpired) => {
			if (storeExpired) {
				const stale = server.issue(-10);
				runtime.setCredentials('personnelDataApi', { ...runtime.storedCredentials('personnelDataApi'), accessToken: stale, expiresAt: new Date(Date.now() - 10_000).toISOString() });
			}
			let calls = 0;
			server.api = (_request, response) =>
				++calls === 1 ? sendJson(response, 429, { code: 429, message: 'Too Many Requests', errors: [] }, { 'retry-after': '1' }) : sendJson(response, 200, { data: employee(1) });
			const result = await execute(getOne());
			expect(result.error).toBeUndefined();
			const [limited, retried] = server.apiRequests();
			expect(retried.at - limited.at).toBeGreaterThanOrEqual(950);
		});
	});

	describe('what the user sees', () => {
		it('secrets a server echoes are redacted in the message, the description and error items', async () => {
			server.api = (request, response) =>
				sendJson(response, 400, {
					code: 400,
					message: `Bad Request for ${request.authorization}`,
					errors: [
						{ domain: 'auth', reason: 'echo', message: `you sent ${request.authorization}` },
						{ domain: 'auth', reason: 'jwt', message: `token ${request.authorization.slice('Bearer '.length)} and salt ${'ab'.repeat(32)}` },
					],
				});
			const result = await execute(getOne());
			expect(result.error?.message).toBe('The Personnel Data API answered 400 Bad Request for Bearer [redacted]: echo: you sent Bearer [redacted]');
			expect((result.error as NodeApiError | undefined)?.description).toContain('auth/jwt: token [redacted] and salt [redacted]');
			const continued = await execute(getOne(), { continueOnFail: true });
			const [item] = jsonOf(continued.items);
			expect(textOf(item)).toContain('[redacted]');
			expectNoSecrets([result.error, continued.items], hostileSecrets(server));
		});

		it('a 400 with the spec\'s error body: the headline says why, the description lists every inner error', async () => {
			server.api = (_request, response) =>
				sendJson(response, 400, {
					code: 400,
					message: 'Bad Request',
					errors: [
						{ domain: 'conditions', reason: 'condition_domain_mismatch', message: 'condition 42 belongs to the time_report domain' },
						{ domain: 'pagination', reason: 'invalid_first', message: 'pagination[first] must be at most 100' },
					],
				});
			const result = await execute(getMany());
			expect(result.error?.message).toBe(
				'The Personnel Data API answered 400 Bad Request: condition_domain_mismatch: condition 42 belongs to the time_report domain',
			);
			expect((result.error as NodeApiError | undefined)?.description).toBe(
				[
					'conditions/condition_domain_mismatch: condition 42 belongs to the time_report domain',
					'pagination/invalid_first: pagination[first] must be at most 100',
					LIST,
				].join('\n'),
			);
		});

		it('an error status with an HTML body: the status in the headline, what came in the description', async () => {
			server.api = (_request, response) => sendText(response, 502, 'text/html', '<html><h1>502 Bad Gateway</h1></html>');
			const result = await execute(getOne());
			expect(result.error?.message).toBe('The Personnel Data API answered 502');
			expect((result.error as NodeApiError | undefined)?.description).toContain('answer: text/html, 37 bytes: <html><h1>502 Bad Gateway</h1></html>');
		});
	});
});
