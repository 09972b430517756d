import { NodeApiError, sleep } from 'n8n-workflow';

import { expectNoSecrets } from '../helpers/secrets';
import { useTestBed } from '../nodes/setup';
import { apiRequests, CREDENTIAL, fastBackoff, getEmployee, getManyEmployees, jsonOf, provisioningCalls, secretsOf } from './support';

describe('token expiry and revocation', () => {
	const bed = useTestBed({}, { per: 'test' });
	fastBackoff();

	const run = (parameters = getManyEmployees(), continueOnFail = false) =>
		bed.runtime.execute({ nodeType: 'personnelData', parameters, continueOnFail });
	const statuses = () => apiRequests(bed).map((entry) => entry.status);

	it('a token past its expiresAt: renewed before sending (no 401), one provisioning, the request succeeds, the new token and expiry are stored', async () => {
		bed.simulator.sim.setTokenTtl(2);
		expect((await run()).error).toBeUndefined();
		const first = bed.runtime.storedCredentials(CREDENTIAL);
		await sleep(2_100); // real time: the server's clock and the stored expiresAt agree, as in production

		const result = await run();
		expect(result.error).toBeUndefined();
		expect(jsonOf(result.items)).toHaveLength(3);
		expect(statuses()).toEqual([200, 200]);
		expect(provisioningCalls(bed)).toBe(4);

		const stored = bed.runtime.storedCredentials(CREDENTIAL);
		expect(stored?.accessToken).not.toBe(first?.accessToken);
		const claims = JSON.parse(Buffer.from(String(stored?.accessToken).split('.')[1], 'base64url').toString()) as { exp: number };
		expect(stored?.expiresAt).toBe(new Date(claims.exp * 1000).toISOString());
		expect(bed.runtime.credentialUpdates(CREDENTIAL)).toHaveLength(2);
		expectNoSecrets([result.items, result.error], secretsOf(bed));
	});

	it('a token the server expires early (its clock ahead: advanceClock) or revokes: renewed once with one 401 per renewal, never per request', async () => {
		expect((await run()).error).toBeUndefined();
		bed.simulator.sim.advanceClock(3_601);
		for (let i = 0; i < 3; i++) expect((await run()).error).toBeUndefined();
		// The stored expiresAt still lies ahead by our clock: the server's 401 is the only sign, and the
		// next send provisions directly instead of offering the refused token once more.
		expect(statuses()).toEqual([200, 401, 200, 200, 200]);
		expect(provisioningCalls(bed)).toBe(4);

		bed.simulator.sim.revokeTokens();
		for (let i = 0; i < 3; i++) expect((await run()).error).toBeUndefined();
		expect(statuses().slice(5)).toEqual([401, 200, 200, 200]);
		expect(provisioningCalls(bed)).toBe(6);
	});

	it('a server that always answers 401: two renewals, then a clear error for the run (no loop)', async () => {
		expect((await run()).error).toBeUndefined();
		bed.simulator.sim.queueFault({ pathPrefix: '/v1/', status: 401, count: 100 });
		const result = await run();
		expect(result.error).toBeInstanceOf(NodeApiError);
		expect((result.error as NodeApiError).httpCode).toBe('401');
		expect(result.error?.message).toMatch(/^The Personnel Data API refused freshly provisioned access tokens; stopped this run/);
		// The stored token, then each of two fresh ones: refused once each.
		expect(statuses()).toEqual([200, 401, 401, 401]);
		expect(provisioningCalls(bed)).toBe(6);
		expectNoSecrets(result.error, secretsOf(bed));
	});

	it('a token that expires in the middle of a long Return All is renewed without the user noticing', async () => {
		await bed.restart({ sizes: { employees: 600 } });
		bed.simulator.sim.setFaults({ latencyMs: 100 }); // 6 pages of 100 ms each
		expect((await run()).error).toBeUndefined(); // provisioned before the long run
		// Mid-run, the token expires (the server's clock jumps past its lifetime).
		const expire = new Promise<void>((resolve) => {
			void sleep(250).then(() => {
				bed.simulator.sim.advanceClock(3_601);
				resolve();
			});
		});
		// Ordered by id: one cursor, 6 pages (without an order the pages would be read in ranges).
		const result = await run(getManyEmployees({ returnAll: true, options: { orderBy: 'id', orderDirection: 'asc' } }));
		expect(result.error).toBeUndefined();
		const ids = jsonOf(result.items).map((json) => json.id as string);
		expect(ids).toHaveLength(600);
		await expire;
		expect(new Set(ids)).toEqual(new Set(bed.simulator.sim.getRecords('employees').map((record) => record.id)));
		expect(new Set(ids).size).toBe(600);
		// One renewal (two calls) besides the first provisioning; 401s: see the advanceClock test.
		expect(provisioningCalls(bed)).toBe(4);
		expect(statuses().filter((status) => status === 401)).toHaveLength(1);
		expect(apiRequests(bed).filter((entry) => entry.status === 200)).toHaveLength(1 + 6);
	});

	it('with Concurrency, an expired token is renewed once, not once per request in flight', async () => {
		bed.simulator.sim.setTokenTtl(2);
		expect((await run()).error).toBeUndefined();
		await sleep(2_100);
		const ids = bed.simulator.sim.getRecords('employees').slice(0, 10).map((record) => record.id);
		const result = await bed.runtime.execute({
			nodeType: 'personnelData',
			parameters: { ...getEmployee('={{ $json.id }}'), options: { concurrency: 5, readInBatches: false } },
			items: ids.map((id) => ({ json: { id } })),
		});
		expect(result.error).toBeUndefined();
		expect(jsonOf(result.items).map((json) => json.id)).toEqual(ids);
		expect(provisioningCalls(bed)).toBe(4);
		expect(statuses().filter((status) => status === 401)).toHaveLength(0);
	});
});
