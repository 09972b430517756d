/**
 * Smoke tests of the n8n driver (test/e2e/n8n.ts) against one real n8n per jest project
 * (the global N8N_KEY, see test/e2e/jest.config.js).
 */
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import {
	assertExecutionOk,
	executeWorkflow,
	importWorkflow,
	loadProblems,
	n8nInstance,
	NODE_TYPE_PREFIX,
	PACKAGE_SOURCE,
	nodeItems,
	prepareUserFolder,
	startServer,
	type N8nServer,
	type N8nUserFolder,
	type WorkflowFile,
} from '../../scripts/n8n/driver';

declare const N8N_KEY: string;
const key = N8N_KEY;

const manualSetWorkflow: WorkflowFile = {
	id: 'wfSmokeSet01',
	name: 'Smoke: manual + set',
	nodes: [
		{
			id: 'a0000000-0000-4000-8000-000000000001',
			name: 'Start',
			type: 'n8n-nodes-base.manualTrigger',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		},
		{
			id: 'a0000000-0000-4000-8000-000000000002',
			name: 'Set',
			type: 'n8n-nodes-base.set',
			typeVersion: 3.4,
			position: [200, 0],
			parameters: {
				assignments: {
					assignments: [
						{ id: 'x1', name: 'greeting', value: 'hello', type: 'string' },
						{ id: 'x2', name: 'n', value: '={{ 40 + 2 }}', type: 'number' },
					],
				},
				options: {},
			},
		},
	],
	connections: { Start: { main: [[{ node: 'Set', type: 'main', index: 0 }]] } },
};

const distBuilt = existsSync(path.join(PACKAGE_SOURCE, 'dist/nodes'));

describe(`n8n driver on ${key}`, () => {
	test('the pinned install is there', () => {
		const install = n8nInstance(key);
		expect(existsSync(install.n8nBin)).toBe(true);
		expect(existsSync(install.nodeBin)).toBe(true);
	});

	describe('CLI', () => {
		let folder: N8nUserFolder;
		beforeAll(async () => {
			folder = await prepareUserFolder(key, { withPackage: false });
		});
		afterAll(() => folder?.cleanup());

		test('imports and executes Manual Trigger → Set', async () => {
			await importWorkflow(folder, manualSetWorkflow);
			const result = await executeWorkflow(folder, manualSetWorkflow.id);
			assertExecutionOk(result);
			expect(nodeItems(result, 'Set')).toEqual([{ greeting: 'hello', n: 42 }]);
		});
	});

	describe('server', () => {
		let folder: N8nUserFolder;
		let server: N8nServer;
		beforeAll(async () => {
			folder = await prepareUserFolder(key, { withPackage: distBuilt });
			await importWorkflow(folder, manualSetWorkflow);
			server = await startServer(folder);
		});
		afterAll(async () => {
			await server?.stop();
			folder?.cleanup();
		});

		test('runs a workflow from its trigger through the REST API', async () => {
			const id = await server.runFromTrigger(manualSetWorkflow.id, 'Start');
			const execution = await server.waitForExecution(id);
			expect(execution.status).toBe('success');
			expect(nodeItems(execution.data.resultData, 'Set')).toEqual([{ greeting: 'hello', n: 42 }]);
			const list = await server.listExecutions(manualSetWorkflow.id);
			expect(list.map((e) => String(e.id))).toContain(id);
		});

		(distBuilt ? test : test.skip)('loads the community package', async () => {
			const pkg = JSON.parse(readFileSync(path.join(folder.packageDir!, 'package.json'), 'utf8')) as {
				n8n: { nodes: string[]; credentials: string[] };
			};
			for (const f of [...pkg.n8n.nodes, ...pkg.n8n.credentials]) {
				expect(existsSync(path.join(folder.packageDir!, f))).toBe(true);
			}
			const types = await server.nodeTypes();
			expect(types).toEqual(expect.arrayContaining([`${NODE_TYPE_PREFIX}personnelData`]));
			expect(await server.credentialTypes()).toContain('personnelDataApi');
			expect(loadProblems(server.logs())).toEqual([]);
		});
	});
});
