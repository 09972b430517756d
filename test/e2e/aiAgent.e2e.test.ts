/**
 * The Personnel Data Tool under n8n's AI Agent (Tools Agent), in real n8n: Manual Trigger → AI
 * Agent, with an OpenAI Chat Model whose credential points at a scripted fake of the
 * chat-completions API (fakeChatModel.ts) and two Personnel Data tools against the simulator.
 * One `n8n execute` runs the whole conversation:
 *   1. the model lists employees (Limit 3, a last-name pattern): the simulator's request, and the
 *      records plus a "more match" marker in the tool message;
 *   2. it asks for an employee by a name where a UUID belongs: a readable error in the tool
 *      message, the run goes on, nothing reaches the simulator;
 *   3. it asks for Return All: 50 records, a marker that says Return All is capped, ≤ 64 kB;
 *   4. it answers with the names from the first tool result: the agent's output.
 * What n8n tells the model about the tools (description, argument schema) is recorded as well.
 */
import { TOOL_MAX_BYTES, TOOL_MAX_RECORDS } from '../../nodes/PersonnelData/actions/toolMode';
import { startSimulator, type RunningSimulator } from '../../scripts/simulator/server';
import { startFakeChatModel, type ChatRequest, type FakeChatModel } from '../../scripts/n8n/fakeChatModel';
import {
	assertExecutionOk,
	assertPackageBuilt,
	executeWorkflow,
	importCredentials,
	importWorkflow,
	nodeItems,
	prepareUserFolder,
	type ExecutionResult,
	type N8nUserFolder,
	type WorkflowFile,
} from '../../scripts/n8n/driver';
import { agentWorkflowParts, byId, LIST_EMPLOYEES_TOOL_PARAMETERS } from '../../scripts/n8n/driver/workflowBuilders';

declare const N8N_KEY: string;
const key = N8N_KEY;

assertPackageBuilt();

const PD_CRED = { id: 'pdAgentCred0001', name: 'Personnel Data (agent e2e)' };
const OPENAI_CRED = { id: 'pdAgentOpenAi01', name: 'Fake OpenAI (agent e2e)' };
const WORKFLOW_ID = 'pdAgentWorkflow1';
const LIST_TOOL = 'List employees';
const GET_TOOL = 'Get employee';
const PROMPT = 'Who are our employees whose last name starts with A?';

type Row = Record<string, unknown>;

const LIST_PARAMETERS = {
	...LIST_EMPLOYEES_TOOL_PARAMETERS,
	returnAll: "={{ $fromAI('return_all', 'true to get every matching employee', 'boolean') }}",
};

function agentWorkflow(): WorkflowFile {
	return {
		id: WORKFLOW_ID,
		name: 'E2E: AI Agent with the Personnel Data tool',
		...agentWorkflowParts({
			prompt: PROMPT,
			openAi: OPENAI_CRED,
			personnelData: PD_CRED,
			tools: [
				{ name: LIST_TOOL, parameters: LIST_PARAMETERS },
				{ name: GET_TOOL, parameters: { resource: 'employee', operation: 'get', id: byId("={{ $fromAI('employee_id', 'The employee ID, a UUID', 'string') }}") } },
			],
		}),
		settings: { executionOrder: 'v1' },
	};
}

const toolMessages = (request: ChatRequest) => request.messages.filter((message) => message.role === 'tool');
const toolName = (request: ChatRequest, nodeName: string): string => {
	const name = nodeName.replace(/[^a-zA-Z0-9_-]+/g, '_');
	if (!request.tools?.some((tool) => tool.function.name === name)) {
		throw new Error(`no tool ${name} offered (offered: ${request.tools?.map((tool) => tool.function.name).join(', ')})`);
	}
	return name;
};
const namesIn = (toolMessage: string): string[] =>
	(JSON.parse(toolMessage) as Row[]).filter((row) => 'id' in row).map((row) => `${String(row.first_name)} ${String(row.last_name)}`);

/** The model's part of the conversation, decided by how many tool results it has seen. */
function script(request: ChatRequest) {
	const seen = toolMessages(request);
	switch (seen.length) {
		case 0:
			return { toolCalls: [{ name: toolName(request, LIST_TOOL), args: { return_all: false, limit: 3, last_name_pattern: 'A%' } }] };
		case 1:
			return { toolCalls: [{ name: toolName(request, GET_TOOL), args: { employee_id: 'Anna Andersson' } }] };
		case 2:
			return { toolCalls: [{ name: toolName(request, LIST_TOOL), args: { return_all: true, limit: 1, last_name_pattern: '%' } }] };
		default:
			return { text: `Employees: ${namesIn(seen[0].content ?? '[]').join('; ')}` };
	}
}

describe(`AI Agent with the Personnel Data tool (${key})`, () => {
	let simulator: RunningSimulator;
	let model: FakeChatModel;
	let folder: N8nUserFolder;
	let result: ExecutionResult;

	beforeAll(async () => {
		simulator = await startSimulator({ clockStart: new Date().toISOString() });
		model = await startFakeChatModel(script);
		folder = await prepareUserFolder(key);
		const { jti, refreshToken } = simulator.credentials.admin;
		await importCredentials(folder, [
			{
				...PD_CRED,
				type: 'personnelDataApi',
				data: { baseUrl: simulator.baseUrl, authMode: 'refreshToken', jti, refreshToken },
			},
			{ ...OPENAI_CRED, type: 'openAiApi', data: { apiKey: 'sk-fake-e2e', url: model.baseUrl } },
		]);
		await importWorkflow(folder, agentWorkflow());
		simulator.sim.clearRequests();
		result = await executeWorkflow(folder, WORKFLOW_ID);
	});

	afterAll(async () => {
		await model?.close();
		await simulator?.close();
		folder?.cleanup();
	});

	const apiRequests = () => simulator.sim.requests().filter((entry) => !entry.path.startsWith('/provisioning'));
	const toolMessage = (index: number): string => toolMessages(model.requests[model.requests.length - 1])[index]?.content ?? '';

	it('the run succeeds and the model was asked four times', () => {
		assertExecutionOk(result);
		expect(model.requests).toHaveLength(4);
		expect(model.requests[0].messages.find((message) => message.role === 'user')?.content).toBe(PROMPT);
	});

	it('what n8n tells the model about the tools: the operation\'s action and the $fromAI arguments', () => {
		const tools = Object.fromEntries((model.requests[0].tools ?? []).map((tool) => [tool.function.name, tool.function]));
		expect(tools.List_employees.description).toBe('Get many employees matching filters in Personnel Data');
		expect(tools.Get_employee.description).toBe('Get an employee by ID in Personnel Data');
		expect(Object.keys(tools.List_employees.parameters.properties ?? {}).sort()).toEqual(['last_name_pattern', 'limit', 'return_all']);
		expect(tools.List_employees.parameters.properties?.last_name_pattern).toMatchObject({
			type: 'string',
			description: 'Last name as an SQL ILIKE pattern: % matches any text, e.g. A%',
		});
		expect(tools.Get_employee.parameters.properties?.employee_id).toMatchObject({ type: 'string', description: 'The employee ID, a UUID' });
	});

	it('1. a list call: the request the simulator got, and the records plus a marker in the tool message', () => {
		const [listCall] = apiRequests();
		expect(listCall.method).toBe('GET');
		expect(listCall.path).toBe('/v1/org/employees');
		const query = new URLSearchParams(listCall.rawQuery);
		expect(query.get('pagination[first]')).toBe('4');
		expect(query.get('filters[last_name][op]')).toBe('ilike');
		expect(query.get('filters[last_name][value]')).toBe('A%');
		const answer = JSON.parse(toolMessage(0)) as Row[];
		expect(answer).toHaveLength(4);
		expect(answer.slice(0, 3).every((row) => typeof row.id === 'string' && String(row.last_name).startsWith('A'))).toBe(true);
		expect(answer[3]).toEqual({
			truncated:
				'at least 1 more record not shown (3 shown): the Limit is 3 (at most 50 when Personnel Data is used as a tool). Narrow the filter (or ask for fewer fields) to get the rest.',
		});
	});

	it('2. a name where a UUID belongs: the model reads the error, the run goes on, nothing is sent', () => {
		const [answer, ...rest] = JSON.parse(toolMessage(1)) as Row[];
		expect(rest).toEqual([]);
		expect(answer.error).toBe('Employee: "Anna Andersson" is not a valid Employee ID; expected a UUID such as 3f2b8c1e-5d4a-4e7b-9c1d-2a6f8e0b7c9d');
		expect(apiRequests().filter((entry) => entry.path.startsWith('/v1/org/employees/'))).toEqual([]);
	});

	it('3. Return All: capped at 50 records in one bounded request, under 64 kB, and the marker says so', () => {
		const calls = apiRequests();
		expect(calls).toHaveLength(2);
		expect(new URLSearchParams(calls[1].rawQuery).get('pagination[first]')).toBe(String(TOOL_MAX_RECORDS + 1));
		const message = toolMessage(2);
		const answer = JSON.parse(message) as Row[];
		expect(answer).toHaveLength(TOOL_MAX_RECORDS + 1);
		expect(answer[TOOL_MAX_RECORDS].truncated).toMatch(/^at least 1 more record not shown \(50 shown\): Return All is capped at 50 employees/);
		const bytes = Buffer.byteLength(message);
		expect(bytes).toBeLessThanOrEqual(TOOL_MAX_BYTES);
		expect(bytes).toBeGreaterThan(10_000);
	});

	it('4. the final answer is built from the first tool result', () => {
		const names = namesIn(toolMessage(0));
		expect(names).toHaveLength(3);
		const [output] = nodeItems(result, 'AI Agent');
		expect(output.output).toBe(`Employees: ${names.join('; ')}`);
	});
});
