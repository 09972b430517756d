/**
 * The built package inside a real n8n (one jest project per n8n version, global N8N_KEY), against
 * the Personnel Data API simulator running in this process: the action node from `n8n execute`,
 * the polling trigger from the REST API ("Fetch Test Event") and after activation.
 */
import { startSimulator, type RunningSimulator } from '../../scripts/simulator/server';
import {
	assertExecutionOk,
	executeWorkflow,
	importCredentials,
	importWorkflow,
	loadProblems,
	NODE_TYPE_PREFIX,
	nodeItems,
	prepareUserFolder,
	assertPackageBuilt,
	publishWorkflow,
	startServer,
	type N8nServer,
	type N8nUserFolder,
	type WorkflowFile,
} from '../../scripts/n8n/driver';

declare const N8N_KEY: string;
const key = N8N_KEY;

assertPackageBuilt();

const CRED = { id: 'pdCredAdmin01', name: 'Personnel Data (simulator)' };
const credentials = { personnelDataApi: CRED };

const listWorkflow: WorkflowFile = {
	id: 'wfPkgList0001',
	name: 'Package: list employees',
	nodes: [
		{ name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
		{
			name: 'Employees',
			type: `${NODE_TYPE_PREFIX}personnelData`,
			typeVersion: 1,
			position: [200, 0],
			parameters: { resource: 'employee', operation: 'getMany', returnAll: false, limit: 3 },
			credentials,
		},
	],
	connections: { Start: { main: [[{ node: 'Employees', type: 'main', index: 0 }]] } },
};

function triggerWorkflow(id: string, name: string): WorkflowFile {
	return {
		id,
		name,
		nodes: [
			{
				name: 'New Employees',
				type: `${NODE_TYPE_PREFIX}personnelDataTrigger`,
				typeVersion: 1,
				position: [0, 0],
				parameters: {
					pollTimes: { item: [{ mode: 'everyHour' }] },
					resource: 'employee',
					event: 'created',
				},
				credentials,
			},
		],
		connections: {},
	};
}
const manualTriggerWf = triggerWorkflow('wfPkgTrig0001', 'Package: trigger, manual');
const activeTriggerWf = triggerWorkflow('wfPkgTrig0002', 'Package: trigger, active');

describe(`n8n-nodes-personnel-data on ${key}`, () => {
	let sim: RunningSimulator;
	let folder: N8nUserFolder;
	let server: N8nServer | undefined;

	beforeAll(async () => {
		sim = await startSimulator({ seed: 7 });
		folder = await prepareUserFolder(key);
		const admin = sim.credentials.admin;
		await importCredentials(folder, [
			{
				...CRED,
				type: 'personnelDataApi',
				data: { baseUrl: sim.baseUrl, authMode: 'refreshToken', jti: admin.jti, refreshToken: admin.refreshToken },
			},
		]);
		await importWorkflow(folder, [listWorkflow, manualTriggerWf, activeTriggerWf]);
	});

	afterAll(async () => {
		await server?.stop();
		folder?.cleanup();
		await sim?.close();
	});

	test('the action node lists employees (n8n execute)', async () => {
		const result = await executeWorkflow(folder, listWorkflow.id);
		assertExecutionOk(result);
		const items = nodeItems(result, 'Employees');
		expect(items).toHaveLength(3);
		for (const item of items) expect(typeof item.id).toBe('string');
	});

	test('the server loads the package and runs the trigger', async () => {
		await publishWorkflow(folder, activeTriggerWf.id);
		server = await startServer(folder);
		expect(loadProblems(server.logs())).toEqual([]);
		expect(await server.nodeTypes()).toEqual(
			expect.arrayContaining([`${NODE_TYPE_PREFIX}personnelData`, `${NODE_TYPE_PREFIX}personnelDataTrigger`]),
		);

		// "Fetch Test Event": a manual run starting from the polling trigger.
		const execId = await server.runFromTrigger(manualTriggerWf.id, 'New Employees');
		const execution = await server.waitForExecution(execId);
		expect(execution.status).toBe('success');
		expect(execution.data.resultData.runData['New Employees']).toBeDefined();

		// Activation polls once at once: the poll ran without an activation error.
		const wf = await server.getWorkflow(activeTriggerWf.id);
		expect(wf.active).toBe(true);
		expect(server.logs()).not.toMatch(/could not be activated|There was a problem activating/i);
	});

	test("the node panel's search terms (codex alias) reach the editor", async () => {
		if (!server) throw new Error('n8n did not start');
		const types = (await (await server.request('GET', '/types/nodes.json')).json()) as Array<{
			name: string;
			codex?: { alias?: string[] };
		}>;
		for (const node of ['personnelData', 'personnelDataTrigger']) {
			const alias = types.find((t) => t.name === `${NODE_TYPE_PREFIX}${node}`)?.codex?.alias;
			expect({ node, alias }).toEqual({
				node,
				alias: expect.arrayContaining(['HR', 'Employee', 'Personnel', 'Time Report', 'Absence']),
			});
		}
	});
});
