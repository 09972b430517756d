/**
 * Settings → On Error in real n8n (one jest project per version, global N8N_KEY): a failing middle
 * item under Stop, Continue (regular output) and Continue (using error output), for a write
 * (a server error and an input error) and for Gets with Concurrency. What n8n stored for each
 * node's outputs is read from the execution; what the server received from the simulator's log.
 */
import { startSimulator, type RunningSimulator } from '../../scripts/simulator/server';
import type { RequestLogEntry } from '../../scripts/simulator/requestLog';
import {
	assertPackageBuilt,
	importCredentials,
	importWorkflow,
	loadProblems,
	nodeError,
	prepareUserFolder,
	startServer,
	type ExecutionDetails,
	type N8nServer,
	type N8nUserFolder,
	type NodeItem,
	type WorkflowFile,
} from '../../scripts/n8n/driver';
import { actionNode, byId, chainWorkflow, itemsOf, type CredentialRef } from '../../scripts/n8n/driver/workflowBuilders';

declare const N8N_KEY: string;
const key = N8N_KEY;

assertPackageBuilt();

const ADMIN: CredentialRef = { id: 'pdOeCredAdmin01', name: 'Personnel Data admin (on error e2e)' };
const SETTINGS = ['stopWorkflow', 'continueRegularOutput', 'continueErrorOutput'] as const;
type OnError = (typeof SETTINGS)[number];
const NODE = 'Personnel Data';

const workflowId = (kind: 'server' | 'input' | 'gets', onError: OnError) => `pdOe${kind.padEnd(6, '0')}${SETTINGS.indexOf(onError)}0000`.slice(0, 15);

/** Three people; the second fails at the server (work percentage 150) or in its input (email). */
const PEOPLE = ['First', 'Second', 'Third'];

function writeWorkflow(kind: 'server' | 'input', onError: OnError): WorkflowFile {
	return chainWorkflow(workflowId(kind, onError), `E2E on error: create (${kind}, ${onError})`, [
		...itemsOf('name', PEOPLE),
		actionNode(
			NODE,
			ADMIN,
			{
				resource: 'employee',
				operation: 'create',
				first_name: `OnError ${kind} ${onError}`,
				last_name: '={{ $json.name }}',
				fields: {
					email:
						kind === 'input'
							? "={{ $json.name === 'Second' ? 'not-an-email' : $json.name.toLowerCase() + '@north.example' }}"
							: '={{ $json.name.toLowerCase() + "@north.example" }}',
				},
				datedValues: {
					entry: [
						{
							property: 'work_percentage',
							validFrom: '2026-01-01',
							value: kind === 'server' ? "={{ $json.name === 'Second' ? 150 : 50 }}" : '50',
						},
					],
				},
			},
			{ onError },
		),
	]);
}

function getsWorkflow(onError: OnError, ids: readonly string[]): WorkflowFile {
	return chainWorkflow(workflowId('gets', onError), `E2E on error: concurrent gets (${onError})`, [
		...itemsOf('employeeId', ids),
		actionNode(
			NODE,
			ADMIN,
			{ resource: 'employee', operation: 'get', id: byId('={{ $json.employeeId }}'), simplify: false, options: { concurrency: 3, readInBatches: false } },
			{ onError },
		),
	]);
}

describe(`On Error settings on ${key}`, () => {
	let simulator: RunningSimulator;
	let folder: N8nUserFolder;
	let server: N8nServer;
	let ids: string[];

	const sim = () => simulator.sim;
	const apiRequests = (): RequestLogEntry[] => sim().requests().filter((r) => !r.path.startsWith('/provisioning'));
	const postedNames = () => apiRequests().filter((r) => r.method === 'POST').map((r) => (r.body as { data: { last_name: string } }).data.last_name);

	async function execute(id: string): Promise<ExecutionDetails> {
		sim().clearRequests();
		const executionId = await server.runFromTrigger(id, 'Start');
		return await server.waitForExecution(executionId, 120_000);
	}
	const output = (execution: ExecutionDetails, index: number): NodeItem[] =>
		execution.data.resultData.runData[NODE]?.[0]?.data?.main?.[index] ?? [];
	const pairedOf = (items: NodeItem[]) => items.map((item) => item.pairedItem);

	/** Continue: the failure is an item with the message, on the main output or the error output. */
	function expectErrorItem(execution: ExecutionDetails, onError: OnError, count: number, message: string): NodeItem {
		expect(execution.status).toBe('success');
		const others = Array.from({ length: count }, (_, item) => item).filter((item) => item !== 1);
		let failed: NodeItem;
		if (onError === 'continueErrorOutput') {
			expect(pairedOf(output(execution, 0))).toEqual(others.map((item) => ({ item })));
			expect(pairedOf(output(execution, 1))).toEqual([{ item: 1 }]);
			failed = output(execution, 1)[0];
		} else {
			const main = output(execution, 0);
			expect(pairedOf(main)).toEqual(Array.from({ length: count }, (_, item) => ({ item })));
			expect(main.filter((item) => item.json.error !== undefined)).toHaveLength(1);
			expect(output(execution, 1)).toEqual([]);
			failed = main[1];
		}
		expect(String(failed.json.error)).toContain(message);
		return failed;
	}

	beforeAll(async () => {
		simulator = await startSimulator({ seed: 23 });
		const restricted = new Set(sim().restrictedIds().employees);
		ids = sim()
			.getRecords('employees')
			.filter((r) => !restricted.has(r.id))
			.slice(0, 8)
			.map((r) => r.id);
		folder = await prepareUserFolder(key);
		const { jti, refreshToken } = simulator.credentials.admin;
		await importCredentials(folder, [
			{ ...ADMIN, type: 'personnelDataApi', data: { baseUrl: simulator.baseUrl, authMode: 'refreshToken', jti, refreshToken } },
		]);
		await importWorkflow(folder, [
			...SETTINGS.flatMap((onError) => [writeWorkflow('server', onError), writeWorkflow('input', onError), getsWorkflow(onError, ids)]),
		]);
		server = await startServer(folder);
		expect(loadProblems(server.logs())).toEqual([]);
	});

	afterAll(async () => {
		await server?.stop();
		folder?.cleanup();
		await simulator?.close();
	});

	afterEach(() => sim().clearFaults());

	describe.each(SETTINGS)('%s', (onError) => {
		test('Create, a server error on item 2: nothing sent after it under Stop, every item tried under Continue', async () => {
			const execution = await execute(workflowId('server', onError));
			if (onError === 'stopWorkflow') {
				expect(execution.status).toBe('error');
				expect(nodeError(execution.data.resultData, NODE)?.message).toContain('400');
				expect(postedNames()).toEqual(['First', 'Second']);
				return;
			}
			expect(postedNames()).toEqual(PEOPLE);
			const failed = expectErrorItem(execution, onError, 3, '400');
			// n8n stores an item that carries an error as { json: { error: message }, error }; the
			// error object survives as its JSON form, with the API's reason in its description.
			expect(failed.json).toEqual({ error: expect.stringContaining('400') });
			const stored = failed.error as { message?: string; description?: string; name?: string } | undefined;
			expect(stored?.message).toBe(failed.json.error);
			expect(stored?.name).toBe('NodeApiError');
			expect(stored?.description).toContain('data.properties.work_percentage[0].value');
		});

		test('Create, an input error on item 2: nothing sent at all under Stop', async () => {
			const execution = await execute(workflowId('input', onError));
			if (onError === 'stopWorkflow') {
				expect(execution.status).toBe('error');
				expect(nodeError(execution.data.resultData, NODE)?.message).toContain('Fields › email: "not-an-email"');
				expect(apiRequests()).toEqual([]);
				return;
			}
			expect(postedNames()).toEqual(['First', 'Third']);
			expectErrorItem(execution, onError, 3, 'Fields › email');
		});

		test('Get with Concurrency 3, a 404 on item 2: no new request after it under Stop', async () => {
			sim().setFaults({ latencyMs: 150, applyToProvisioning: false });
			sim().queueFault({ pathPrefix: `/v1/org/employees/${ids[1]}`, status: 404, count: 1, latencyMs: 0 });
			const execution = await execute(workflowId('gets', onError));
			const requested = apiRequests().map((r) => r.path.split('/').pop());
			if (onError === 'stopWorkflow') {
				expect(execution.status).toBe('error');
				expect(nodeError(execution.data.resultData, NODE)?.message).toBe(`Employee ${ids[1]} was not found`);
				expect([...requested].sort()).toEqual([ids[0], ids[1], ids[2]].sort());
				return;
			}
			expect([...requested].sort()).toEqual([...ids].sort());
			expectErrorItem(execution, onError, 8, `Employee ${ids[1]} was not found`);
		});
	});
});
