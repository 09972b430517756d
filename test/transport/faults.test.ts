import { NodeApiError } from 'n8n-workflow';

import { HTTP } from '../../nodes/shared/apiChoices';
import { expectNoSecrets } from '../helpers/secrets';
import { useTestBed } from '../nodes/setup';
import { apiRequests, fastBackoff, getManyEmployees, jsonOf, secretsOf } from './support';

const EMPLOYEES = 5_000;
const PAGES = EMPLOYEES / 100;

describe('Return All under random 429 and 500 faults', () => {
	const bed = useTestBed({ sizes: { employees: EMPLOYEES }, requestLogCapacity: 5_000 });
	fastBackoff();
	beforeEach(() => {
		bed.simulator.sim.clearFaults();
		bed.simulator.sim.clearRequests();
		bed.simulator.sim.resetStats();
	});

	it.each([0, 1])('10 %% 429 (Retry-After %i s) and 5 %% 500: exactly the simulator\'s employees, bounded retries', async (retryAfterSeconds) => {
		bed.runtime.setCredentials('personnelDataApi', { ...bed.runtime.storedCredentials('personnelDataApi'), accessToken: '', expiresAt: '' });
		bed.simulator.sim.setFaults({ rate429: 0.1, rate500: 0.05, retryAfterSeconds });

		const result = await bed.runtime.execute({ nodeType: 'personnelData', parameters: getManyEmployees({ returnAll: true }) });

		expect(result.error).toBeUndefined();
		const ids = jsonOf(result.items).map((json) => json.id as string);
		expect(ids).toHaveLength(EMPLOYEES);
		expect(new Set(ids)).toEqual(new Set(bed.simulator.sim.getRecords('employees').map((record) => record.id)));

		const log = bed.simulator.sim.requests();
		const api = apiRequests(bed);
		const faults = log.filter((entry) => entry.fault !== undefined);
		const apiFaults = api.filter((entry) => entry.fault !== undefined);
		// Every fault cost exactly one more request (none ran out), and nothing else was repeated.
		expect(api.filter((entry) => entry.status === 200)).toHaveLength(PAGES);
		expect(api).toHaveLength(PAGES + apiFaults.length);
		expect(log.filter((entry) => entry.status === 401)).toHaveLength(0);
		// With 15 % faults the expected number is ~9 (incl. provisioning); 25 bounds it from above.
		expect(faults.length).toBeGreaterThan(0);
		expect(faults.length).toBeLessThanOrEqual(25);
		console.info(`faults: ${faults.length} (${apiFaults.length} on API requests), requests: ${log.length}`);
	});

	it('when retries run out: a clear error, or with Continue On Fail an error item and no partial records', async () => {
		bed.simulator.sim.setFaults({ rate500: 0.9, applyToProvisioning: false });
		const failed = await bed.runtime.execute({ nodeType: 'personnelData', parameters: getManyEmployees({ returnAll: true }) });
		const error = failed.error as NodeApiError;
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.httpCode).toBe('500');
		expect(error.message).toBe('The Personnel Data API answered 500 Internal Server Error');
		expect(error.description).toContain(`gave up after ${HTTP.maxAttempts} attempts`);
		expect(failed.items).toBeUndefined();
		// No request was tried more than maxAttempts times in a row.
		let run = 0;
		for (const entry of apiRequests(bed)) {
			run = entry.fault ? run + 1 : 0;
			expect(run).toBeLessThanOrEqual(HTTP.maxAttempts);
		}

		const continued = await bed.runtime.execute({
			nodeType: 'personnelData',
			parameters: getManyEmployees({ returnAll: true }),
			continueOnFail: true,
		});
		expect(continued.error).toBeUndefined();
		expect(jsonOf(continued.items)).toEqual([{ error: error.message }]);
		expect(continued.items?.[0]?.[0]?.error).toMatchObject({ httpCode: '500' });
		expectNoSecrets([failed.error, continued.items, bed.runtime.logs], secretsOf(bed));
	});

	it('a write that fails with 500 is reported as an error, and nothing was written', async () => {
		const before = bed.simulator.sim.counts().employees;
		bed.simulator.sim.queueFault({ pathPrefix: '/v1/org/employees', method: 'POST', status: 500, count: 1 });
		const result = await bed.runtime.execute({
			nodeType: 'personnelData',
			typeVersion: 1,
			parameters: { resource: 'employee', operation: 'create', first_name: 'Ada', last_name: 'Lovelace' },
			continueOnFail: true,
		});
		expect(jsonOf(result.items)).toEqual([{ error: expect.stringContaining('500') }]);
		expect(result.items?.[0]?.[0]?.error).toMatchObject({ httpCode: '500' });
		expect(bed.simulator.sim.counts().employees).toBe(before);
		expect(apiRequests(bed)).toHaveLength(1);
	});
});
