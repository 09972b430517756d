import { NodeApiError } from 'n8n-workflow';

import { HTTP } from '../../nodes/shared/apiChoices';
import { isRetryable, retryAfterMs, retryDelayMs } from '../../nodes/shared/transport/retryPolicy';
import { expectNoSecrets } from '../helpers/secrets';
import { useTestBed } from '../nodes/setup';
import { apiRequests, fastBackoff, getEmployee, getManyEmployees, jsonOf, secretsOf } from './support';

describe('retries and error mapping', () => {
	const bed = useTestBed({}, { per: 'test' });
	fastBackoff();

	beforeEach(async () => {
		// Provision first, so that the counts below are of API requests only.
		expect((await bed.runtime.execute({ nodeType: 'personnelData', parameters: getManyEmployees() })).error).toBeUndefined();
		bed.simulator.sim.clearRequests();
	});

	const run = (parameters = getManyEmployees(), continueOnFail = false) =>
		bed.runtime.execute({ nodeType: 'personnelData', typeVersion: 1, parameters, continueOnFail });
	const statuses = () => apiRequests(bed).map((entry) => entry.fault ?? String(entry.status));
	const employeeId = () => bed.simulator.sim.getRecords('employees')[0].id;

	it('429 with Retry-After: waits as told, then succeeds', async () => {
		bed.simulator.sim.queueFault({ pathPrefix: '/v1/org/employees', status: 429, count: 1, retryAfterSeconds: 1 });
		const started = Date.now();
		const result = await run();
		expect(result.error).toBeUndefined();
		expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
		expect(statuses()).toEqual(['429', '200']);
	});

	it('a Retry-After longer than the longest wait is not waited for, and the error names the wait', async () => {
		bed.simulator.sim.queueFault({ pathPrefix: '/v1/org/employees', status: 429, count: 1, retryAfterSeconds: 150 });
		const started = Date.now();
		const result = await run();
		expect(Date.now() - started).toBeLessThan(10_000);
		expect(statuses()).toEqual(['429']);
		expect((result.error as NodeApiError).message).toBe(
			'The Personnel Data API answered 429 Too Many Requests: injected_fault: injected 429; the server asked to wait 2 min 30 s before a retry (Retry-After), longer than the 2 min this node waits: try again later',
		);
		expectNoSecrets([result.error], secretsOf(bed));
	});

	it.each([500, 502, 503, 504, 'drop'] as const)('GET: %s is retried with backoff, then succeeds', async (status) => {
		bed.simulator.sim.queueFault({ pathPrefix: '/v1/org/employees', status, count: 2 });
		const result = await run();
		expect(result.error).toBeUndefined();
		expect(jsonOf(result.items)).toHaveLength(3);
		expect(statuses()).toEqual([String(status), String(status), '200']);
	});

	it('GET: gives up after the bounded attempts with status, API message and every inner error', async () => {
		bed.simulator.sim.queueFault({ pathPrefix: '/v1/org/employees', status: 503, count: 100 });
		const result = await run();
		expect(statuses()).toEqual(Array(HTTP.maxAttempts).fill('503'));
		const error = result.error as NodeApiError;
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.httpCode).toBe('503');
		expect(error.message).toBe('The Personnel Data API answered 503 Service Unavailable');
		expect(error.description).toContain('simulator/injected_fault: injected 503');
		expect(error.description).toContain('GET /v1/org/employees');
		expect(error.description).toContain(`gave up after ${HTTP.maxAttempts} attempts`);

		bed.simulator.sim.clearRequests();
		const continued = await run(getManyEmployees(), true);
		expect(continued.error).toBeUndefined();
		// An error item is { json: { error }, error } (as n8n stores it); the details are in its error.
		expect(jsonOf(continued.items)).toEqual([{ error: error.message }]);
		expect(continued.items?.[0]?.[0]?.error).toMatchObject({ description: error.description, httpCode: '503' });
		expectNoSecrets([result.error, continued.items], secretsOf(bed));
	});

	it('dropped connections: bounded attempts, then a clear error', async () => {
		bed.simulator.sim.queueFault({ pathPrefix: '/v1/org/employees', status: 'drop', count: 100 });
		const result = await run();
		expect(statuses()).toEqual(Array(HTTP.maxAttempts).fill('drop'));
		expect(result.error?.message).toBe('The Personnel Data API could not be reached (the connection was closed unexpectedly)');
		expect((result.error as NodeApiError).description).toContain('network error ECONNRESET');
	});

	it('POST and PATCH writes are not retried on 5xx or a dropped connection', async () => {
		bed.simulator.sim.queueFault({ pathPrefix: '/v1/org/employees', status: 502, count: 1, method: 'POST' });
		const created = await run({ resource: 'employee', operation: 'create', first_name: 'Ada', last_name: 'Lovelace' });
		expect((created.error as NodeApiError).httpCode).toBe('502');
		expect(statuses()).toEqual(['502']);

		bed.simulator.sim.clearRequests();
		bed.simulator.sim.queueFault({ pathPrefix: '/v1/org/employees/', status: 'drop', count: 1, method: 'PATCH' });
		const updated = await run({ resource: 'employee', operation: 'update', id: { __rl: true, mode: 'id', value: employeeId() }, fields: { email: 'ada@example.com' } });
		expect(updated.error).toBeInstanceOf(NodeApiError);
		expect(statuses()).toEqual(['drop']);
	});

	it('POST and PATCH writes are retried on 429 (the server did not act)', async () => {
		bed.simulator.sim.queueFault({ pathPrefix: '/v1/org/employees', status: 429, count: 1, method: 'POST', retryAfterSeconds: 0 });
		const created = await run({ resource: 'employee', operation: 'create', first_name: 'Ada', last_name: 'Lovelace' });
		expect(created.error).toBeUndefined();
		expect(jsonOf(created.items)[0]).toMatchObject({ first_name: 'Ada', last_name: 'Lovelace' });
		expect(statuses()).toEqual(['429', '201']);

		bed.simulator.sim.clearRequests();
		bed.simulator.sim.queueFault({ pathPrefix: '/v1/org/employees/', status: 429, count: 1, method: 'PATCH', retryAfterSeconds: 0 });
		const updated = await run({ resource: 'employee', operation: 'update', id: { __rl: true, mode: 'id', value: employeeId() }, fields: { email: 'ada@example.com' } });
		expect(updated.error).toBeUndefined();
		expect(statuses()).toEqual(['429', '200']);
	});

	it.each([400, 403, 404])('%s is not retried', async (status) => {
		bed.simulator.sim.queueFault({ pathPrefix: '/v1/org/employees', status, count: 5 });
		const result = await run();
		expect((result.error as NodeApiError).httpCode).toBe(String(status));
		expect(statuses()).toEqual([String(status)]);
	});

	it('a real 404 and 403 of Get: NodeApiError naming the record, inner errors in the description; Continue On Fail gives the same message', async () => {
		const missing = '00000000-0000-4000-8000-000000000001';
		const result = await run(getEmployee(missing));
		const error = result.error as NodeApiError;
		expect(error.httpCode).toBe('404');
		expect(error.message).toBe(`Employee ${missing} was not found`);
		expect(error.description).toMatch(/\/.+: /); // domain/reason: message
		expect(statuses()).toEqual(['404']);

		const continued = await run(getEmployee(missing), true);
		expect(jsonOf(continued.items)).toEqual([{ error: error.message }]);
		expect(continued.items?.[0]?.[0]?.error).toMatchObject({ description: error.description, httpCode: '404' });

		const restricted = bed.simulator.sim.restrictedIds().employees[0];
		const { limited } = bed.simulator.credentials;
		bed.runtime.setCredentials('personnelDataApi', {
			baseUrl: bed.simulator.baseUrl, authMode: 'refreshToken', jti: limited.jti, refreshToken: limited.refreshToken,
		});
		const forbidden = await run(getEmployee(restricted));
		expect((forbidden.error as NodeApiError).httpCode).toBe('403');
		expect(forbidden.error?.message).toBe(`Access to Employee ${restricted} is forbidden for this credential's role`);
		expectNoSecrets([result.error, continued.items, forbidden.error], secretsOf(bed));
	});
});

describe('retry policy', () => {
	it('honours Retry-After in seconds and as a date', () => {
		expect(retryAfterMs('2')).toBe(2000);
		expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6_000);
		expect(retryDelayMs({ status: 429, retryAfter: '1', message: '' }, 3)).toBe(1000);
	});

	it('a Retry-After of 0 (or a date already past) waits the backoff, not nothing', () => {
		expect(retryDelayMs({ status: 429, retryAfter: '0', message: '' }, 1, () => 1)).toBe(HTTP.backoffBaseMs);
		expect(retryDelayMs({ status: 429, retryAfter: new Date(0).toUTCString(), message: '' }, 2, () => 0)).toBe(HTTP.backoffBaseMs);
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
