import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { TOOL_MAX_BYTES, TOOL_MAX_RECORDS } from '../../../nodes/PersonnelData/actions/toolMode';
import type { ToolCallResult } from '../../../scripts/harness';
import { useTestBed } from '../setup';
import { apiRequests, byId, queryValues } from './helpers';

/** The Personnel Data Tool as a workflow author sets it up: the model fills in the $fromAI arguments. */
const listEmployees: INodeParameters = {
	resource: 'employee',
	operation: 'getMany',
	returnAll: "={{ $fromAI('return_all', 'Whether to return every match', 'boolean') }}",
	limit: "={{ $fromAI('limit', 'How many employees at most', 'number') }}",
	filters: {
		filter: [{ field: 'last_name', operator: 'ilike', value: "={{ $fromAI('last_name_pattern', 'SQL ILIKE pattern', 'string') }}" }],
	},
};
const getEmployee: INodeParameters = {
	resource: 'employee',
	operation: 'get',
	id: byId("={{ $fromAI('employee_id', 'The employee UUID', 'string') }}"),
};

describe('Personnel Data as an AI Agent tool', () => {
	const bed = useTestBed();

	async function call(parameters: INodeParameters, args: IDataObject): Promise<ToolCallResult> {
		bed.simulator.sim.clearRequests();
		return await bed.runtime.invokeTool({ nodeType: 'personnelData', parameters, args });
	}

	/** The records and the marker the model got; fails with the call's error if it threw. */
	function answerOf(result: ToolCallResult): { records: IDataObject[]; marker?: IDataObject; bytes: number } {
		if (result.error) throw result.error;
		const answer = JSON.parse(result.response as string) as IDataObject[];
		const last = answer[answer.length - 1];
		const marker = last && 'truncated' in last ? last : undefined;
		return { records: marker ? answer.slice(0, -1) : answer, marker, bytes: Buffer.byteLength(result.response as string) };
	}

	const listRequests = () => apiRequests(bed).filter((entry) => entry.path === '/v1/org/employees');

	it('n8n describes the tool by the operation: what it does, and in which node', async () => {
		const result = await call(listEmployees, { return_all: false, limit: 3, last_name_pattern: 'A%' });
		expect(result.description).toBe('Get many employees matching filters in Personnel Data');
	});

	it('a Limit under the cap: that many records, simplified, and a marker that more match', async () => {
		const result = await call(listEmployees, { return_all: false, limit: 3, last_name_pattern: '%' });
		const { records, marker } = answerOf(result);
		expect(records).toHaveLength(3);
		// Simplify is on by default: a dated property is its value, not a history.
		expect(records.every((record) => !Array.isArray((record.properties as IDataObject).title))).toBe(true);
		expect(marker?.truncated).toMatch(/^at least 1 more record not shown \(3 shown\): the Limit is 3/);
		// One request, one record beyond the Limit to know that more match.
		expect(listRequests().map((entry) => queryValues(entry.rawQuery, 'pagination[first]'))).toEqual([['4']]);
		expect(queryValues(listRequests()[0].rawQuery, 'filters[last_name][op]')).toEqual(['ilike']);
		expect(queryValues(listRequests()[0].rawQuery, 'filters[last_name][value]')).toEqual(['%']);
	});

	it('no marker when every match is shown', async () => {
		const matches = bed.simulator.sim.createRecords('employees', 2, { overrides: { last_name: 'Onlytwo' }, restricted: false });
		const { records, marker } = answerOf(await call(listEmployees, { return_all: false, limit: 50, last_name_pattern: 'Onlytwo' }));
		expect(records.map((record) => record.id).sort()).toEqual(matches.map((record) => record.id).sort());
		expect(marker).toBeUndefined();
	});

	it('Return All is capped at TOOL_MAX_RECORDS, fetched in one bounded request, and the marker says so', async () => {
		const { records, marker, bytes } = answerOf(await call(listEmployees, { return_all: true, limit: 1, last_name_pattern: '%' }));
		expect(records).toHaveLength(TOOL_MAX_RECORDS);
		expect(marker?.truncated).toContain(`Return All is capped at ${TOOL_MAX_RECORDS} employees`);
		expect(marker?.truncated).toMatch(/^at least 1 more record not shown/);
		expect(bytes).toBeLessThanOrEqual(TOOL_MAX_BYTES);
		expect(listRequests().map((entry) => queryValues(entry.rawQuery, 'pagination[first]'))).toEqual([[String(TOOL_MAX_RECORDS + 1)]]);
		expect(bed.simulator.sim.counts().employees).toBeGreaterThan(TOOL_MAX_RECORDS + 1);
	});

	it('a Limit of 5000 is capped the same way', async () => {
		const { records, marker } = answerOf(await call(listEmployees, { return_all: false, limit: 5000, last_name_pattern: '%' }));
		expect(records).toHaveLength(TOOL_MAX_RECORDS);
		expect(marker?.truncated).toContain(`Limit 5000 is capped at ${TOOL_MAX_RECORDS} employees`);
	});

	it('the JSON the model gets stays under TOOL_MAX_BYTES: whole records dropped, counted in the marker', async () => {
		// Employees with 3 kB of notes each: 50 of them do not fit.
		bed.simulator.sim.createRecords('employees', TOOL_MAX_RECORDS + 10, { overrides: { last_name: 'Longnotes', phone2: 'x'.repeat(3000) }, restricted: false });
		const { records, marker, bytes } = answerOf(await call(listEmployees, { return_all: true, limit: 1, last_name_pattern: 'Longnotes' }));
		expect(bytes).toBeLessThanOrEqual(TOOL_MAX_BYTES);
		expect(records.length).toBeGreaterThan(0);
		expect(records.length).toBeLessThan(TOOL_MAX_RECORDS);
		const notShown = TOOL_MAX_RECORDS + 1 - records.length;
		expect(marker?.truncated).toBe(
			`at least ${notShown} more records not shown (${records.length} shown): Return All is capped at ${TOOL_MAX_RECORDS} employees when Personnel Data is used as a tool; ` +
				`the answer is capped at ${TOOL_MAX_BYTES / 1000} kB of JSON. Narrow the filter (or ask for fewer fields) to get the rest.`,
		);
		// Every record shown is whole.
		expect(records.every((record) => typeof record.id === 'string' && record.phone2 === 'x'.repeat(3000))).toBe(true);
	});

	it('a name where a UUID belongs: a readable answer to the model, not a failed run, and nothing sent', async () => {
		const result = await call(getEmployee, { employee_id: 'Anna Andersson' });
		expect(result.error).toBeUndefined();
		const [answer, ...rest] = JSON.parse(result.response as string) as IDataObject[];
		expect(rest).toEqual([]);
		expect(answer.error).toBe('Employee: "Anna Andersson" is not a valid Employee ID; expected a UUID such as 3f2b8c1e-5d4a-4e7b-9c1d-2a6f8e0b7c9d');
		expect(answer.hint).toMatch(/Correct the arguments/);
		expect(apiRequests(bed)).toEqual([]);
	});

	it('a bad Limit gets the node\'s own message, and nothing is sent', async () => {
		const [answer] = JSON.parse((await call(listEmployees, { return_all: false, limit: -5, last_name_pattern: '%' })).response as string) as IDataObject[];
		expect(answer.error).toMatch(/^Limit: expected a whole number from 1/);
		expect(apiRequests(bed)).toEqual([]);
	});

	it('an API error (unknown employee) is an answer too, with the API\'s details and a hint', async () => {
		const result = await call(getEmployee, { employee_id: '00000000-0000-4000-8000-000000000000' });
		expect(result.error).toBeUndefined();
		const [answer] = JSON.parse(result.response as string) as IDataObject[];
		const unknown = '00000000-0000-4000-8000-000000000000';
		// The record it names, the API's own code and the request, and what the model should do next.
		expect(answer.error).toBe(`Employee ${unknown} was not found`);
		expect(String(answer.details)).toContain('employees/not_found');
		expect(String(answer.details)).toContain(`GET /v1/org/employees/${unknown}`);
		expect(String(answer.hint)).toMatch(/call the tool again/);
		expect(apiRequests(bed).map((entry) => entry.status)).toEqual([404]);
	});

	it('a found employee comes back as one simplified record', async () => {
		const [first] = answerOf(await call(listEmployees, { return_all: false, limit: 1, last_name_pattern: '%' })).records;
		const { records, marker } = answerOf(await call(getEmployee, { employee_id: first.id as string }));
		expect(marker).toBeUndefined();
		expect(records).toEqual([first]);
	});

	it('outside tool mode the node is unchanged: Return All returns every employee', async () => {
		bed.simulator.sim.clearRequests();
		const result = await bed.runtime.execute({ nodeType: 'personnelData', parameters: { resource: 'employee', operation: 'getMany', returnAll: true } });
		expect(result.items?.[0]).toHaveLength(bed.simulator.sim.counts().employees);
	});
});
