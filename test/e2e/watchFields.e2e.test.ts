/**
 * The demo's example "notify when an employee's manager changes" (demo/workflows/7-manager-changed.json:
 * Options → Watch Fields `properties.manager_id`, Include Previous Values) active in real n8n: a
 * manager change comes out once, with what changed and the previous manager; a change of another
 * field does not come out at all.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

import { startSimulator, type RunningSimulator } from '../../scripts/simulator/server';
import type { JsonObject, SimRecord } from '../../scripts/simulator/types';
import {
	acceptsSubMinutePolls,
	assertPackageBuilt,
	importCredentials,
	importWorkflow,
	loadProblems,
	n8nInstance,
	nodeItems,
	prepareUserFolder,
	startServer,
	type N8nServer,
	type N8nUserFolder,
	type WorkflowFile,
} from '../../scripts/n8n/driver';
import { triggerNode, type CredentialRef } from '../../scripts/n8n/driver/workflowBuilders';

declare const N8N_KEY: string;
const key = N8N_KEY;

assertPackageBuilt();

const EXAMPLE_FILE = path.resolve(__dirname, '../../demo/workflows/7-manager-changed.json');
const TRIGGER = 'Manager changed';
const MESSAGE = 'Message';
const ADMIN: CredentialRef = { id: 'pdWfCredAdmin01', name: 'Personnel Data admin (watch fields e2e)' };
/** n8n 1.x and 2.8 accept a poll every few seconds; 2.41 at most one a minute (one at a second ~30 s from now). */
const FAST = acceptsSubMinutePolls(n8nInstance(key));
const CRON = FAST ? '0-59/4 * * * * *' : `${(new Date().getUTCSeconds() + 30) % 60} * * * * *`;
const POLL_WAIT_MS = FAST ? 30_000 : 150_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The demo's workflow with the test's credential and schedule (the demo polls every minute). */
function exampleWorkflow(): WorkflowFile {
	const workflow = JSON.parse(readFileSync(EXAMPLE_FILE, 'utf8')) as WorkflowFile;
	workflow.nodes = workflow.nodes.map((node) => {
		if (node.name !== TRIGGER) return node;
		const { pollTimes: _demoSchedule, ...parameters } = node.parameters;
		return { ...triggerNode(TRIGGER, ADMIN, parameters, CRON), id: node.id, position: node.position };
	});
	return workflow;
}

type History = JsonObject[];
const managerHistory = (employee: SimRecord) => (employee.properties as { manager_id: History }).manager_id;

describe(`Watch Fields in ${key}: the manager-changed example`, () => {
	let simulator: RunningSimulator;
	let folder: N8nUserFolder;
	let server: N8nServer | undefined;
	let workflowId = '';

	beforeAll(async () => {
		simulator = await startSimulator({ seed: 23, clockStart: new Date().toISOString() });
		folder = await prepareUserFolder(key);
		const { jti, refreshToken } = simulator.credentials.admin;
		await importCredentials(folder, [
			{ ...ADMIN, type: 'personnelDataApi', data: { baseUrl: simulator.baseUrl, authMode: 'refreshToken', jti, refreshToken } },
		]);
		const workflow = exampleWorkflow();
		workflowId = workflow.id;
		await importWorkflow(folder, workflow);
		server = await startServer(folder);
		expect(loadProblems(server.logs())).toEqual([]);
	}, 200_000);

	afterAll(async () => {
		await server?.stop();
		folder?.cleanup();
		await simulator?.close();
	});

	test('a manager change is sent once with the previous manager; a phone number change is not sent', async () => {
		const active = server as N8nServer;
		const sim = simulator.sim;
		// The activation poll reads the baseline: every employee's manager history.
		await active.activateWorkflow(workflowId);
		await sleep(1100);

		const [moved, phoneChanged, newManager] = sim.getRecords('employees');
		const previous = managerHistory(moved);
		const today = new Date().toISOString().slice(0, 10);
		const changed: History = [{ valid_from: today, value: newManager.id }, ...previous];
		// The unwatched change first: any poll that reads the manager change has read it too.
		sim.touchRecords('employees', [phoneChanged.id], { changes: { phone1: '+46 70 123 45 67' } });
		sim.touchRecords('employees', [moved.id], { changes: { properties: { ...(moved.properties as JsonObject), manager_id: changed } } });

		const [first] = await active.waitForExecutions(workflowId, 1, POLL_WAIT_MS);
		// Later polls (every 4 s on the fast schedule) find nothing more to send.
		if (FAST) await sleep(10_000);
		const executions = await active.listExecutions(workflowId);
		expect(executions.map((e) => e.id)).toEqual([first.id]);

		const execution = await active.getExecution(first.id);
		expect(execution.status).toBe('success');
		const emitted = nodeItems(execution.data.resultData, TRIGGER);
		expect(emitted.map((item) => item.id)).toEqual([moved.id]);
		const event = emitted[0]._event as { type: string; changedFields: string[]; previous: Record<string, unknown> };
		expect(event.type).toBe('updated');
		expect(event.changedFields).toContain('properties.manager_id');
		expect(event.previous['properties.manager_id']).toEqual(previous);

		const [message] = nodeItems(execution.data.resultData, MESSAGE);
		const previousManager = previous[0]?.value === undefined ? '' : String(previous[0].value);
		expect(message).toMatchObject({ employee_id: moved.id, event: 'updated', new_manager_id: newManager.id, previous_manager_id: previousManager });
		expect(String(message.message)).toContain(`has a new manager: ${newManager.id} (from ${today}), before: ${previousManager || 'none'}`);
		await active.deactivateWorkflow(workflowId);
	}, 300_000);
});
