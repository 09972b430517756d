import type { INodeParameters } from 'n8n-workflow';

import { ADAPTIVE_START } from '../../nodes/shared/transport/adaptiveLimit';
import { WRITE_CONCURRENCY_MAX } from '../../nodes/PersonnelData/actions/concurrency';
import type { NodeRuntime } from '../../scripts/harness';
import { HostileServer, runtimeFor } from './hostileServer';
import { limitedWrites } from './limitedWrites';

/**
 * The writes' adaptive limit (node version 2) against a small real server that admits only N
 * writes at once and refuses the others at once with 429, as a server protecting itself does. The
 * limit doubles per round trip until the first refusal, halves, and grows by one per round from
 * there: every row is written once, and the refusals stay within one overshoot of N (the limit
 * doubled past N once, each refused write sent once more).
 */
const create: INodeParameters = {
	resource: 'employee',
	operation: 'create',
	columns: { mappingMode: 'autoMapInputData', value: null, matchingColumns: [], schema: [] },
	options: { concurrency: WRITE_CONCURRENCY_MAX },
};
const rows = (count: number) => Array.from({ length: count }, (_, index) => ({ json: { first_name: 'Ramp', last_name: `Row ${index}` } }));

describe('Writes against a server that admits N at once', () => {
	let server: HostileServer;
	let runtime: NodeRuntime;
	beforeEach(async () => {
		server = await new HostileServer().start();
		runtime = runtimeFor(server);
	});
	afterEach(async () => await server.close());

	it.each([8, 20, 40])('N = %i: every row written once, at most 2 × N refusals', async (most) => {
		const { handler, counts } = limitedWrites(most, 100);
		server.api = handler;
		const count = 5 * most + 50;
		const result = await runtime.execute({ nodeType: 'personnelData', typeVersion: 2, parameters: create, items: rows(count) });
		expect(result.error?.message).toBeUndefined();
		expect(result.items?.[0]).toHaveLength(count);
		expect(counts.accepted).toBe(count);
		expect(counts.busiest).toBeLessThanOrEqual(most);
		expect(counts.refused).toBeLessThanOrEqual(2 * most);
	});

	it('no limit on the server: the ceiling in flight, no refusal', async () => {
		const { handler, counts } = limitedWrites(10_000, 100);
		server.api = handler;
		const result = await runtime.execute({ nodeType: 'personnelData', typeVersion: 2, parameters: create, items: rows(400) });
		expect(result.error?.message).toBeUndefined();
		expect(counts.accepted).toBe(400);
		expect(counts.refused).toBe(0);
		// Past the start within a few round trips (on a busy machine the latency check may halve it on the way).
		expect(counts.busiest).toBeGreaterThan(4 * ADAPTIVE_START);
		expect(counts.busiest).toBeLessThanOrEqual(WRITE_CONCURRENCY_MAX);
	});
});
