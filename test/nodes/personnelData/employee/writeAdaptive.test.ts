import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { WRITE_CONCURRENCY_DEFAULT } from '../../../../nodes/PersonnelData/actions/concurrency';
import { useTestBed } from '../../setup';
import { apiRequests, jsonOf, maxInFlight, outputOf, run } from '../helpers';

/**
 * The writes at their defaults (node version 2): an adaptive number in flight, up to Options ›
 * Concurrency (WRITE_CONCURRENCY_DEFAULT unless set), fewer when the server refuses with 429; one record's writes in order.
 */
const V2 = { typeVersion: 2 };
const LATENCY_MS = 30;

const items = (rows: IDataObject[]): INodeExecutionData[] => rows.map((json) => ({ json }));
const automatically = (matchingColumns: string[] = []): INodeParameters => ({ mappingMode: 'autoMapInputData', value: null, matchingColumns, schema: [] });
const upsert: INodeParameters = { resource: 'employee', operation: 'upsert', columns: automatically(['employee_number']), options: {} };
const dataOf = (entry: { body?: unknown }): IDataObject => ((entry.body as IDataObject).data as IDataObject) ?? {};

describe('Personnel Data, version 2: writes at the defaults, adaptive', () => {
	const bed = useTestBed();
	const sim = () => bed.simulator.sim;
	const writes = () => apiRequests(bed).filter((entry) => entry.method !== 'GET');
	let numberSeq = 0;
	const freshNumber = () => `A-${process.pid}-${++numberSeq}`;
	const existing = (count: number): IDataObject[] =>
		Array.from({ length: count }, () => sim().createRecords('employees', 1, { restricted: false, overrides: { employee_number: freshNumber() } as never })[0] as unknown as IDataObject);
	const stored = (number: unknown): IDataObject[] => sim().getRecords('employees').filter((record) => record.employee_number === number) as unknown as IDataObject[];

	beforeEach(() => sim().setFaults({ latencyMs: LATENCY_MS, applyToProvisioning: false }));

	it(`Create with no Concurrency set: starts at 4, grows past it, never above ${WRITE_CONCURRENCY_DEFAULT}; outputs in input order with pairedItem`, async () => {
		const rows = Array.from({ length: 80 }, (_, index) => ({ employee_number: freshNumber(), first_name: 'Fast', last_name: `Hire ${index}` }));
		const result = await run(bed, { resource: 'employee', operation: 'create', columns: automatically(), options: {} }, { ...V2, items: items(rows) });
		const output = outputOf(result);
		expect(output.map((item) => item.pairedItem)).toEqual(rows.map((_, item) => ({ item })));
		expect(output.map((item) => item.json.employee_number)).toEqual(rows.map((row) => row.employee_number));
		expect(writes()).toHaveLength(80);
		expect(maxInFlight(writes().slice(0, 4))).toBeLessThanOrEqual(4);
		expect(maxInFlight(writes())).toBeGreaterThan(8);
		expect(maxInFlight(writes())).toBeLessThanOrEqual(WRITE_CONCURRENCY_DEFAULT);
	});

	it('a server that answers 429 above 6 requests at once: every row written exactly once, one record\'s rows in order, few refusals', async () => {
		sim().setFaults({ latencyMs: LATENCY_MS, applyToProvisioning: false, maxInFlight: 6, retryAfterSeconds: 0 });
		const changed = existing(30);
		const twin = freshNumber();
		const rows: IDataObject[] = [
			...changed.map((record, index) => ({ employee_number: record.employee_number, phone2: `+46 7${index}` })),
			...Array.from({ length: 30 }, (_, index) => ({ employee_number: freshNumber(), first_name: 'New', last_name: `Row ${index}` })),
		];
		// One new employee named by three rows far apart: one create, then two updates, in input order.
		rows.splice(5, 0, { employee_number: twin, first_name: 'Twin', last_name: 'Row', phone1: '+46 1' });
		rows.splice(20, 0, { employee_number: twin, phone1: '+46 2' });
		rows.splice(50, 0, { employee_number: twin, phone1: '+46 3' });
		const result = await run(bed, upsert, { ...V2, items: items(rows) });

		const output = outputOf(result);
		expect(result.error).toBeUndefined();
		expect(output.map((item) => item.pairedItem)).toEqual(rows.map((_, item) => ({ item })));
		const outcomes = output.map((item) => item.json.writeOutcome);
		expect(outcomes.filter((outcome) => outcome === 'created')).toHaveLength(31);
		expect(outcomes.filter((outcome) => outcome === 'updated')).toHaveLength(32);
		const accepted = writes().filter((entry) => entry.status < 300);
		const refused = writes().filter((entry) => entry.status === 429);
		expect(accepted).toHaveLength(63);
		expect(maxInFlight(accepted)).toBeLessThanOrEqual(6);
		// Halving on each overload keeps the refusals to a fraction of the writes.
		expect(refused.length).toBeLessThan(30);
		for (const row of rows) expect(stored(row.employee_number)).toHaveLength(1);
		expect(stored(twin)[0].phone1).toBe('+46 3');
		const twinWrites = accepted.filter((entry) => entry.method === 'POST' ? dataOf(entry).employee_number === twin : entry.path.endsWith(String(stored(twin)[0].id)));
		expect(twinWrites.map((entry) => [entry.method, dataOf(entry).phone1])).toEqual([
			['POST', '+46 1'],
			['PATCH', '+46 2'],
			['PATCH', '+46 3'],
		]);
	});

	it('a server that takes one write at a time and answers 429 with Retry-After: 0: every row written once, the retries spaced out', async () => {
		// "Retry after 0 s" repeated at once by every request in flight would meet the same limit
		// each time and use up the attempts within milliseconds: a 429 that names no wait (or 0)
		// waits the backoff, and pauses the run's other requests with it.
		sim().setFaults({ latencyMs: LATENCY_MS, applyToProvisioning: false, maxInFlight: 1, retryAfterSeconds: 0 });
		const rows = Array.from({ length: 24 }, (_, index) => ({ employee_number: freshNumber(), first_name: 'One', last_name: `At a time ${index}` }));
		const result = await run(bed, { resource: 'employee', operation: 'create', columns: automatically(), options: {} }, { ...V2, items: items(rows) });
		expect(result.error).toBeUndefined();
		expect(outputOf(result).map((item) => item.json.employee_number)).toEqual(rows.map((row) => row.employee_number));
		const accepted = writes().filter((entry) => entry.status < 300);
		expect(accepted).toHaveLength(24);
		for (const row of rows) expect(stored(row.employee_number)).toHaveLength(1);
	});

	it('On Error at Stop: a slow failure while later items were in flight; the error names the later items that were done', async () => {
		const records = existing(6);
		const failing = String(records[1].id);
		sim().queueFault({ pathPrefix: `/v1/org/employees/${failing}`, method: 'PATCH', status: 422, count: 1, latencyMs: 150 });
		const update: INodeParameters = { resource: 'employee', operation: 'update', id: { __rl: true, mode: 'id', value: '={{ $json.id }}' }, columns: automatically(), options: { ignoreColumns: 'id' } };
		const result = await run(bed, update, { ...V2, items: items(records.map((record, index) => ({ id: record.id, phone2: `+46 5${index}` }))) });
		expect(result.error?.message).toMatch(/422|injected/);
		expect(String((result.error as { description?: string }).description)).toMatch(/already sent when item 1 failed.*done: 2, 3, 4, 5/);
		expect(writes()).toHaveLength(6);
	});

	it('Options › Concurrency is the ceiling: 3 means never more than 3, also when the server is fast', async () => {
		const rows = Array.from({ length: 30 }, (_, index) => ({ employee_number: freshNumber(), first_name: 'Three', last_name: `At Most ${index}` }));
		await run(bed, { resource: 'employee', operation: 'create', columns: automatically(), options: { concurrency: 3 } }, { ...V2, items: items(rows) });
		expect(maxInFlight(writes())).toBe(3);
	});

	it('version 1 (no Concurrency option) still writes one at a time', async () => {
		const rows = Array.from({ length: 8 }, (_, index) => ({ number: freshNumber(), last: `V1 ${index}` }));
		const params: INodeParameters = {
			resource: 'employee',
			operation: 'create',
			first_name: 'One',
			last_name: '={{ $json.last }}',
			fields: { employee_number: '={{ $json.number }}' },
		};
		const result = await run(bed, params, { items: items(rows) });
		expect(result.error).toBeUndefined();
		expect(writes()).toHaveLength(8);
		expect(maxInFlight(writes())).toBe(1);
	});

	describe('System Time Type: Create or Update', () => {
		const integration = () => String(sim().getRecords('systemIntegrations')[1].id);
		const timeTypes = (fields: IDataObject[]): [INodeParameters, INodeExecutionData[]] => [
			{ resource: 'systemTimeType', operation: 'createOrUpdate', systemIntegrationId: integration(), typeName: '={{ $json.name }}', otherFields: '={{ JSON.stringify($json.fields) }}' },
			items(fields.map((entry, index) => ({ name: `Adaptive ${index}`, fields: entry }))),
		];

		it('items naming different type codes overlap; items naming one code are written in input order', async () => {
			const prefix = `AD${numberSeq++}-`;
			const fields = Array.from({ length: 24 }, (_, index) => ({ type_code: `${prefix}${index % 12}` }));
			const [params, input] = timeTypes(fields);
			const result = await run(bed, params, { ...V2, items: input });
			expect(result.error).toBeUndefined();
			expect(jsonOf(result).map((record) => record.type_name)).toEqual(input.map((item) => item.json.name));
			expect(maxInFlight(writes())).toBeGreaterThan(1);
			const stored12 = sim().getRecords('systemTimeTypes').filter((record) => String(record.type_code).startsWith(prefix));
			expect(stored12).toHaveLength(12);
			// The later item of each code was written last.
			for (let code = 0; code < 12; code++) {
				expect(stored12.find((record) => record.type_code === `${prefix}${code}`)?.type_name).toBe(`Adaptive ${code + 12}`);
			}
		});

		it('items that name a code and items that name an external ID may reach one stored type: written one at a time', async () => {
			const prefix = `AX${numberSeq++}-`;
			const fields = Array.from({ length: 8 }, (_, index) => (index % 2 === 0 ? { type_code: `${prefix}${index}` } : { external_type_id: `${prefix}${index}` }));
			const [params, input] = timeTypes(fields);
			const result = await run(bed, params, { ...V2, items: input });
			expect(result.error).toBeUndefined();
			expect(maxInFlight(writes())).toBe(1);
		});
	});
});
