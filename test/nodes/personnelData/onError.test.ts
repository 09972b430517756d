import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

import type { ExecuteResult } from '../../../scripts/harness';
import { useTestBed } from '../setup';
import { apiRequests, byId, run, UNKNOWN_UUID } from './helpers';

/**
 * The node's Settings → On Error, with a failing item in the middle: Stop sends nothing after the
 * failure (and, for a mistake in the input, nothing at all); both Continue settings try every item
 * and turn each failure into an error item, in input order, with its pairedItem, on the main
 * output or on the error output. What the server received is counted from the simulator's log.
 */
type OnError = 'stopWorkflow' | 'continueRegularOutput' | 'continueErrorOutput';

const pairedOf = (items: INodeExecutionData[] | undefined) => (items ?? []).map((item) => item.pairedItem);

/** Main output and error output as n8n would route them. */
function outputs(result: ExecuteResult): { main: INodeExecutionData[]; errors: INodeExecutionData[] } {
	expect(result.error).toBeUndefined();
	return { main: result.items?.[0] ?? [], errors: result.items?.[1] ?? [] };
}

/** Under Continue the failure is an item: on the main output, or alone on the error output. */
function expectErrorItemAt(result: ExecuteResult, onError: OnError, failedIndex: number, itemCount: number, message: string): void {
	const { main, errors } = outputs(result);
	const others = Array.from({ length: itemCount }, (_, index) => index).filter((index) => index !== failedIndex);
	if (onError === 'continueErrorOutput') {
		expect(pairedOf(main)).toEqual(others.map((item) => ({ item })));
		expect(main.every((item) => item.json.error === undefined)).toBe(true);
		expect(pairedOf(errors)).toEqual([{ item: failedIndex }]);
		expect(String(errors[0].json.error)).toContain(message);
	} else {
		expect(pairedOf(main)).toEqual(Array.from({ length: itemCount }, (_, item) => ({ item })));
		expect(main.filter((item) => item.json.error !== undefined).map((item) => item.pairedItem)).toEqual([{ item: failedIndex }]);
		expect(String(main[failedIndex].json.error)).toContain(message);
		expect(errors).toEqual([]);
	}
}

const ON_ERROR: OnError[] = ['stopWorkflow', 'continueRegularOutput', 'continueErrorOutput'];

describe('Personnel Data: On Error with a failing middle item', () => {
	const bed = useTestBed();
	const sim = () => bed.simulator.sim;
	afterEach(() => {
		sim().clearFaults();
	});

	const create: INodeParameters = {
		resource: 'employee',
		operation: 'create',
		first_name: 'Item',
		last_name: '={{ $json.name }}',
		fields: { email: '={{ $json.email }}' },
		datedValues: { entry: [{ property: 'work_percentage', validFrom: '2026-01-01', value: '={{ $json.percentage }}' }] },
	};
	const person = (name: string, email: string, percentage: number) => ({ json: { name, email, percentage } });
	const postedNames = () =>
		apiRequests(bed)
			.filter((entry) => entry.method === 'POST')
			.map((entry) => (entry.body as { data: { last_name: string } }).data.last_name);

	describe.each(ON_ERROR)('Create, %s', (onError) => {
		it('a server error on item 2 (work percentage 150)', async () => {
			const items = [person('First', 'a@north.example', 50), person('Second', 'b@north.example', 150), person('Third', 'c@north.example', 60)];
			const result = await run(bed, create, { items, onError });
			if (onError === 'stopWorkflow') {
				expect(result.error?.message).toContain('400');
				// The third employee was never sent: a retry of the execution cannot create it twice.
				expect(postedNames()).toEqual(['First', 'Second']);
				return;
			}
			expect(postedNames()).toEqual(['First', 'Second', 'Third']);
			expectErrorItemAt(result, onError, 1, 3, '400');
			const failed = onError === 'continueErrorOutput' ? result.items?.[1]?.[0] : result.items?.[0]?.[1];
			// n8n keeps an error item's json to the message; the details travel in its error.
			expect(failed?.json).toEqual({ error: failed?.error?.message });
			expect(failed?.error?.description).toContain('data.properties.work_percentage[0].value');
			expect((failed?.error as { httpCode?: string } | undefined)?.httpCode).toBe('400');
		});

		it('an input error on item 2 (a malformed email)', async () => {
			const items = [person('First', 'a@north.example', 50), person('Second', 'not-an-email', 60), person('Third', 'c@north.example', 60)];
			const result = await run(bed, create, { items, onError });
			if (onError === 'stopWorkflow') {
				expect(result.error?.message).toContain('Fields › email: "not-an-email" is not an email address');
				// Every item's input is checked before the first request: nothing was written.
				expect(apiRequests(bed)).toEqual([]);
				return;
			}
			expect(postedNames()).toEqual(['First', 'Third']);
			expectErrorItemAt(result, onError, 1, 3, 'Fields › email');
		});
	});

	describe.each(ON_ERROR)('Update, %s', (onError) => {
		it('a 404 on item 2', async () => {
			const [first, third] = sim().getRecords('employees').slice(0, 2).map((record) => record.id);
			const ids = [first, UNKNOWN_UUID, third];
			const result = await run(
				bed,
				{ resource: 'employee', operation: 'update', id: byId('={{ $json.id }}'), fields: { phone2: '+46 70 000 00 00' } },
				{ items: ids.map((id) => ({ json: { id } })), onError },
			);
			const patched = apiRequests(bed)
				.filter((entry) => entry.method === 'PATCH')
				.map((entry) => entry.path.split('/').pop());
			if (onError === 'stopWorkflow') {
				expect(result.error?.message).toBe(`Employee ${UNKNOWN_UUID} was not found`);
				expect(patched).toEqual([first, UNKNOWN_UUID]);
				return;
			}
			expect(patched).toEqual(ids);
			expectErrorItemAt(result, onError, 1, 3, `Employee ${UNKNOWN_UUID} was not found`);
		});
	});

	describe.each(ON_ERROR)('Get with Concurrency 3, %s', (onError) => {
		it('a 404 on item 2 answered at once while items 1 and 3 take 150 ms', async () => {
			const ids = sim()
				.getRecords('employees')
				.slice(0, 8)
				.map((record) => record.id);
			sim().setFaults({ latencyMs: 150, applyToProvisioning: false });
			sim().queueFault({ pathPrefix: `/v1/org/employees/${ids[1]}`, status: 404, count: 1, latencyMs: 0 });
			const result = await run(
				bed,
				{ resource: 'employee', operation: 'get', id: byId('={{ $json.id }}'), simplify: false, options: { concurrency: 3, readInBatches: false } },
				{ items: ids.map((id) => ({ json: { id } })), onError },
			);
			const requested = apiRequests(bed).map((entry) => entry.path.split('/').pop());
			if (onError === 'stopWorkflow') {
				expect(result.error?.message).toBe(`Employee ${ids[1]} was not found`);
				// Items 1 and 3 were in flight and finished; no item started after the failure.
				expect([...requested].sort()).toEqual([ids[0], ids[1], ids[2]].sort());
				return;
			}
			expect([...requested].sort()).toEqual([...ids].sort());
			expectErrorItemAt(result, onError, 1, 8, `Employee ${ids[1]} was not found`);
			const records = outputs(result).main.filter((item) => item.json.error === undefined);
			expect(records.map((item) => item.json.id)).toEqual(ids.filter((_, index) => index !== 1));
		});
	});

	it('a node-wide mistake (Concurrency 0) under Continue (using error output) fails every item, sending nothing', async () => {
		const ids = sim()
			.getRecords('employees')
			.slice(0, 2)
			.map((record) => record.id);
		const result = await run(
			bed,
			{ resource: 'employee', operation: 'get', id: byId('={{ $json.id }}'), options: { concurrency: 0 } },
			{ items: ids.map((id) => ({ json: { id } })), onError: 'continueErrorOutput' },
		);
		const { main, errors } = outputs(result);
		expect(main).toEqual([]);
		expect(pairedOf(errors)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(errors.every((item) => String(item.json.error).startsWith('Options › Concurrency'))).toBe(true);
		expect(apiRequests(bed)).toEqual([]);
	});
});
