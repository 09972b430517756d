import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { REQUESTS_PER_CHUNK } from '../../../../nodes/PersonnelData/actions/read/recordsWhere';
import type { NodeRuntime } from '../../../../scripts/harness';
import { expectNoSecrets } from '../../../helpers/secrets';
import { employee, HostileServer, hostileSecrets, JTI, page, REFRESH_TOKEN, sendJson } from '../../../transport/hostileServer';
import type { Role } from '../../setup';
import { useTestBed } from '../../setup';
import { apiRequests, queryValues, UNKNOWN_UUID } from '../helpers';
import { probeRuntime } from './probe';

interface Found {
	value: string;
	records: IDataObject[];
}

describe('readRecordsWhere: records by the values of one field, in batches', () => {
	const bed = useTestBed();
	const sim = () => bed.simulator.sim;
	let probe: NodeRuntime;

	const useRole = (role: Role) => {
		const credentials = bed.simulator.credentials[role];
		probe.setCredentials('personnelDataApi', {
			environment: 'custom',
			baseUrl: bed.simulator.baseUrl,
			authMode: 'refreshToken',
			jti: credentials.jti,
			refreshToken: credentials.refreshToken,
		});
	};

	beforeEach(() => {
		probe = probeRuntime();
		useRole('admin');
	});

	async function read(parameters: { resource?: string; field?: string; values: string[]; select?: string[]; concurrency?: number }) {
		sim().clearRequests();
		const result = await probe.execute({
			nodeType: 'readerProbe',
			parameters: {
				resource: parameters.resource ?? 'employee',
				field: parameters.field ?? 'id',
				values: JSON.stringify(parameters.values),
				select: JSON.stringify(parameters.select ?? []),
				concurrency: parameters.concurrency ?? 1,
			} as INodeParameters,
		});
		if (result.error) throw result.error;
		return (result.items?.[0] ?? []).map((item) => item.json as unknown as Found);
	}

	it('reads 250 ids in three list requests of at most 100 ids, each value to its record', async () => {
		const employees = sim().getRecords('employees');
		expect(employees.length).toBeGreaterThanOrEqual(250);
		const ids = employees.slice(0, 250).map((record) => String(record.id));
		// Repeats, another spelling of a UUID and an id no record has.
		const asked = [...ids, ids[0], ids[7].toUpperCase(), UNKNOWN_UUID];
		const found = await read({ values: asked });

		expect(found.map((entry) => entry.value)).toEqual([...ids, ids[7].toUpperCase(), UNKNOWN_UUID]);
		for (const index of ids.keys()) expect(found[index].records).toEqual([employees[index]]);
		expect(found.find((entry) => entry.value === ids[7].toUpperCase())?.records).toEqual([employees[7]]);
		expect(found.find((entry) => entry.value === UNKNOWN_UUID)?.records).toEqual([]);

		const requests = apiRequests(bed);
		expect(requests.map((entry) => `${entry.method} ${entry.path}`)).toEqual(Array(3).fill('GET /v1/org/employees'));
		const sent = requests.map((entry) => queryValues(entry.rawQuery, 'filters[id][value][]'));
		expect(sent.map((values) => values.length)).toEqual([100, 100, 51]);
		// Each value asked once, in first-seen order.
		expect(sent.flat()).toEqual([...ids, UNKNOWN_UUID]);
		expect(requests.every((entry) => queryValues(entry.rawQuery, 'filters[id][op]').join() === 'in')).toBe(true);
	});

	it('chunks may be read several at a time, with the same answer', async () => {
		const ids = sim()
			.getRecords('employees')
			.slice(0, 230)
			.map((record) => String(record.id));
		const found = await read({ values: ids, concurrency: 3 });
		expect(found.map((entry) => String(entry.records[0]?.id))).toEqual(ids);
		expect(apiRequests(bed)).toHaveLength(3);
	});

	it('a field that several records share: every record of every value, over several pages', async () => {
		const reports = sim().getRecords('timeReports');
		const employeeIds = [...new Set(reports.map((report) => String(report.employee_id)))].slice(0, 60);
		const found = await read({ resource: 'timeReport', field: 'employee_id', values: employeeIds });
		for (const entry of found) {
			const expected = reports.filter((report) => report.employee_id === entry.value).map((report) => report.id);
			expect(entry.records.map((record) => record.id).sort()).toEqual([...expected].sort());
		}
		const total = found.reduce((sum, entry) => sum + entry.records.length, 0);
		expect(total).toBe(reports.filter((report) => employeeIds.includes(String(report.employee_id))).length);
		// More records than one page holds: the chunk's pages were walked.
		expect(apiRequests(bed).length).toBe(Math.ceil((total + 1) / 100));
	});

	it('Fields to Return: the field looked up is always selected', async () => {
		const ids = sim()
			.getRecords('employees')
			.slice(0, 3)
			.map((record) => String(record.id));
		const found = await read({ values: ids, select: ['first_name'] });
		expect(found.map((entry) => entry.records[0])).toEqual(
			sim()
				.getRecords('employees')
				.slice(0, 3)
				.map((record) => ({ id: record.id, first_name: record.first_name })),
		);
		expect(queryValues(apiRequests(bed)[0].rawQuery, 'select[]')).toEqual(['id', 'first_name']);
	});

	it('a record the role may not read is left out by the list: its value maps to []', async () => {
		useRole('limited');
		const restricted = sim().restrictedIds().employees[0];
		const allowed = sim()
			.getRecords('employees')
			.find((record) => !sim().restrictedIds().employees.includes(String(record.id))) as IDataObject;
		const found = await read({ values: [restricted, String(allowed.id)] });
		expect(found).toEqual([
			{ value: restricted, records: [] },
			{ value: allowed.id, records: [allowed] },
		]);
	});

	it('eq: one request per distinct value, each value to its record', async () => {
		const ids = sim()
			.getRecords('employees')
			.slice(0, 3)
			.map((record) => String(record.id));
		sim().clearRequests();
		const result = await probe.execute({
			nodeType: 'readerProbe',
			parameters: { resource: 'employee', field: 'id', values: JSON.stringify([...ids, ids[1]]), select: '[]', concurrency: 1, operator: 'eq' },
		});
		if (result.error) throw result.error;
		const found = (result.items?.[0] ?? []).map((item) => item.json as unknown as Found);
		expect(found.map((entry) => [entry.value, entry.records.map((record) => record.id)])).toEqual(ids.map((id) => [id, [id]]));
		expect(apiRequests(bed).map((entry) => queryValues(entry.rawQuery, 'filters[id][op]'))).toEqual([['eq'], ['eq'], ['eq']]);
	});

	it('no values: nothing is sent', async () => {
		expect(await read({ values: [] })).toEqual([]);
		expect(apiRequests(bed)).toEqual([]);
	});
});

describe('readRecordsWhere against a server that answers another question', () => {
	let server: HostileServer;
	let probe: NodeRuntime;

	beforeEach(async () => {
		server = await new HostileServer().start();
		probe = probeRuntime();
		probe.setCredentials('personnelDataApi', { environment: 'custom', baseUrl: server.baseUrl, authMode: 'refreshToken', jti: JTI, refreshToken: REFRESH_TOKEN });
	});
	afterEach(async () => await server.close());

	const read = async (values: string[], operator: 'in' | 'eq' = 'in') => {
		const result = await probe.execute({
			nodeType: 'readerProbe',
			parameters: { resource: 'employee', field: 'id', values: JSON.stringify(values), select: '[]', concurrency: 1, operator },
		});
		expectNoSecrets([result.items, result.error, probe.logs], hostileSecrets(server));
		return result;
	};

	it('a record that was not asked for is an error, not a record for the wrong value', async () => {
		server.api = (_request, response) => sendJson(response, 200, page([employee(1), employee(2)], null, false));
		const result = await read([String(employee(1).id)]);
		expect(result.error?.message).toContain('GET /v1/org/employees');
		expect(result.error?.message).toContain(String(employee(2).id));
		expect(result.error?.message).toContain('not asked for');
	});

	it('with eq (one request per value) too: a server that ignores the filter sends a record not asked for, an error', async () => {
		const queries: URLSearchParams[] = [];
		server.api = (request, response) => {
			queries.push(request.query);
			sendJson(response, 200, page([employee(2)], null, false));
		};
		const result = await read([String(employee(1).id)], 'eq');
		expect(queries).toHaveLength(1);
		expect(queries[0].get('filters[id][op]')).toBe('eq');
		expect(queries[0].get('filters[id][value]')).toBe(String(employee(1).id));
		expect(result.error?.message).toContain('not asked for');
	});

	it('a record without the field is an error', async () => {
		server.api = (_request, response) => sendJson(response, 200, page([{ first_name: 'No Id' }], null, false));
		const result = await read([String(employee(1).id)]);
		expect(result.error?.message).toContain('no value in id');
	});

	it('a chunk whose pages never end stops after a bounded number of requests', async () => {
		let cursor = 0;
		server.api = (_request, response) => sendJson(response, 200, page([], `c${++cursor}`, true));
		const result = await read([String(employee(1).id)]);
		expect(result.error?.message).toContain(`stopped after ${REQUESTS_PER_CHUNK} requests`);
		expect(server.apiRequests()).toHaveLength(REQUESTS_PER_CHUNK);
	});
});
