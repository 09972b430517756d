import { NodeApiError } from 'n8n-workflow';

import { baseUrlOf } from '../../nodes/shared/transport/baseUrl';
import { provisioningSignature } from '../../nodes/shared/transport/provisioning';
import { expectNoSecrets } from '../helpers/secrets';
import { useCredential, useTestBed } from '../nodes/setup';
import { signatureOf } from '../../scripts/simulator/auth';
import { apiRequests, CREDENTIAL, getManyEmployees, jsonOf, provisioningCalls, secretsOf } from './support';

describe('provisioning (credential "Personnel Data API")', () => {
	const bed = useTestBed({}, { per: 'test' });

	const run = (parameters = getManyEmployees()) => bed.runtime.execute({ nodeType: 'personnelData', parameters });

	function setCredential(overrides: Record<string, string>): void {
		const admin = bed.simulator.credentials.admin;
		bed.runtime.setCredentials(CREDENTIAL, {
			baseUrl: bed.simulator.baseUrl,
			authMode: 'refreshToken',
			jti: admin.jti,
			refreshToken: admin.refreshToken,
			...overrides,
		});
	}

	it('signs like the simulator: sha256("<salt>:<refresh token>") in lower-case hex', () => {
		expect(provisioningSignature('abc', 'rt_1')).toBe(signatureOf('abc', 'rt_1'));
		expect(provisioningSignature('abc', 'rt_1')).toMatch(/^[0-9a-f]{64}$/);
	});

	it('provisions with exactly two calls, then reuses the token across requests and executions', async () => {
		for (let execution = 0; execution < 3; execution++) {
			const result = await run(getManyEmployees({ returnAll: true }));
			expect(result.error).toBeUndefined();
			expect(jsonOf(result.items)).toHaveLength(bed.simulator.sim.counts().employees);
		}
		const stats = bed.simulator.sim.stats();
		expect(stats.provisioning).toEqual({ begin: 1, refresh: 1 });
		expect(provisioningCalls(bed)).toBe(2);
		expect(stats.unauthorized).toBe(0);
		// 250 employees = 3 pages per execution, all with the one token.
		expect(apiRequests(bed)).toHaveLength(9);
		expect(Object.values(stats.tokens)).toEqual([{ kind: 'access', role: 'admin', requests: 9 }]);
		const begin = bed.simulator.sim.requests().find((entry) => entry.routeKind === 'provisioning.begin');
		expect(begin?.body).toEqual({ jti: bed.simulator.credentials.admin.jti });

		const stored = bed.runtime.storedCredentials(CREDENTIAL);
		expect(bed.runtime.credentialUpdates(CREDENTIAL)).toHaveLength(1);
		const claims = JSON.parse(Buffer.from(String(stored?.accessToken).split('.')[1], 'base64url').toString()) as { exp: number };
		expect(stored?.expiresAt).toBe(new Date(claims.exp * 1000).toISOString());
	});

	it.each([
		['wrong refresh token', { refreshToken: 'rt_wrong_but_long_enough_to_check' }, 'refresh failed (HTTP 401, invalid_signature)'],
		['wrong JTI', { jti: '00000000-0000-4000-8000-000000000000' }, 'begin failed (HTTP 401, unknown_jti)'],
	])('%s: a clear error naming the credential and the reason, with no secret', async (_label, overrides, reason) => {
		setCredential(overrides);
		const result = await run();
		expect(result.error).toBeInstanceOf(NodeApiError);
		expect(result.error?.message).toContain('Personnel Data API credential');
		expect(result.error?.message).toContain(reason);
		expect(result.error?.message).toContain('refused the JTI or the refresh token');
		// A rejected token request is not retried: it cannot succeed by repeating.
		expect(provisioningCalls(bed)).toBe(reason.startsWith('begin') ? 1 : 2);
		expect(apiRequests(bed)).toHaveLength(0);
		expectNoSecrets([result.error, result.items, bed.runtime.logs], [...secretsOf(bed), 'rt_wrong_but_long_enough_to_check']);

		const continued = await bed.runtime.execute({ nodeType: 'personnelData', parameters: getManyEmployees(), continueOnFail: true });
		expect(continued.error).toBeUndefined();
		expect(jsonOf(continued.items)).toEqual([expect.objectContaining({ error: result.error?.message })]);
		expectNoSecrets(continued.items, [...secretsOf(bed), 'rt_wrong_but_long_enough_to_check']);
	});

	it('retries a token request that failed transiently (503 on begin), then succeeds', async () => {
		bed.simulator.sim.queueFault({ pathPrefix: '/provisioning/refresh-token/begin', status: 503, count: 1 });
		const result = await run();
		expect(result.error).toBeUndefined();
		expect(jsonOf(result.items)).toHaveLength(3);
		expect(bed.simulator.sim.requests().map((entry) => [entry.path, entry.status])).toEqual([
			['/provisioning/refresh-token/begin', 503],
			['/provisioning/refresh-token/begin', 200],
			['/provisioning/refresh-token/refresh', 200],
			['/v1/org/employees', 200],
		]);
	});

	it('the credential test succeeds with good data and fails clearly with bad', async () => {
		expect(await bed.runtime.testCredential(CREDENTIAL)).toEqual({ status: 'OK', message: 'Connection successful!' });
		expect(provisioningCalls(bed)).toBe(2);
		const testRequest = apiRequests(bed)[0];
		expect(testRequest.rawQuery).toBe('pagination%5Bfirst%5D=1&select%5B%5D=id');

		setCredential({ refreshToken: 'rt_wrong_but_long_enough_to_check' });
		const bad = await bed.runtime.testCredential(CREDENTIAL);
		expect(bad.status).toBe('Error');
		expect(bad.message).toContain('Personnel Data API credential: refresh failed (HTTP 401, invalid_signature)');
		expectNoSecrets(bad, [...secretsOf(bed), 'rt_wrong_but_long_enough_to_check']);

		setCredential({ jti: '00000000-0000-4000-8000-000000000000' });
		const badJti = await bed.runtime.testCredential(CREDENTIAL);
		expect(badJti.status).toBe('Error');
		expect(badJti.message).toContain('begin failed (HTTP 401, unknown_jti)');
	});

	it('legacy token mode: no provisioning calls, the legacy token is sent', async () => {
		useCredential(bed, 'admin', 'legacyToken');
		const result = await run();
		expect(result.error).toBeUndefined();
		expect(jsonOf(result.items)).toHaveLength(3);
		expect(await bed.runtime.testCredential(CREDENTIAL)).toMatchObject({ status: 'OK' });
		expect(provisioningCalls(bed)).toBe(0);
		expect(apiRequests(bed).map((entry) => entry.tokenKind)).toEqual(['legacy', 'legacy']);
		expect(bed.runtime.storedCredentials(CREDENTIAL)?.expiresAt).toMatch(/^\d{4}-\d\d-\d\dT/);
		expectNoSecrets([result.items, bed.runtime.logs], secretsOf(bed));
	});

	it('a custom base URL with trailing slashes works for requests, provisioning and the credential test', async () => {
		setCredential({ baseUrl: `${bed.simulator.baseUrl}//` });
		expect((await run()).error).toBeUndefined();
		expect(await bed.runtime.testCredential(CREDENTIAL)).toMatchObject({ status: 'OK' });
		expect(bed.simulator.sim.requests().every((entry) => !entry.path.startsWith('//'))).toBe(true);
	});

	it('takes the address only from Base URL: trailing slashes dropped, no built-in address', () => {
		expect(baseUrlOf({ baseUrl: 'https://sandbox.example/' })).toBe('https://sandbox.example');
		// A credential saved before 0.2 with "Custom Base URL" keeps working unchanged.
		expect(baseUrlOf({ environment: 'custom', baseUrl: 'https://sandbox.example/api//' })).toBe('https://sandbox.example/api');
		expect(() => baseUrlOf({})).toThrow(/^Base URL \(credential\): "" is empty; expected an absolute http\(s\) address such as .*: the address of your organisation's Personnel Data API/);
	});
});
