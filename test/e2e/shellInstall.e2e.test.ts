/**
 * The README's shell install, as a user runs it (one jest project per n8n version, global N8N_KEY):
 * the packed package is installed with the README's own `npm install n8n-nodes-personnel-data …`
 * line (the tarball in place of the name, every flag kept) in an empty `~/.n8n/nodes` folder
 * (`$N8N_USER_FOLDER/.n8n/nodes`); then n8n starts, loads the package and runs a workflow through it
 * against the simulator. A plain `npm install` of the package fails on Node 20: it also installs the
 * peer n8n-workflow@*, whose latest version needs isolated-vm (Node 24 and a native build).
 */
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

import { startSimulator, type RunningSimulator } from '../../scripts/simulator/server';
import {
	assertPackageBuilt,
	importCredentials,
	importWorkflow,
	loadProblems,
	NODE_TYPE_PREFIX,
	nodeItems,
	PACKAGE_NAME,
	prepareUserFolder,
	ROOT,
	startServer,
	type N8nServer,
	type N8nUserFolder,
} from '../../scripts/n8n/driver';
import { actionNode, chainWorkflow, START } from '../../scripts/n8n/driver/workflowBuilders';

declare const N8N_KEY: string;
const key = N8N_KEY;

assertPackageBuilt();

/** The flags of the README's `npm install n8n-nodes-personnel-data <flags>` line (exactly one such line). */
function readmeInstallFlags(): string[] {
	const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
	const lines = [...readme.matchAll(new RegExp(`^\\s*npm install ${PACKAGE_NAME}(?=\\s|$)(.*)$`, 'gm'))];
	if (lines.length !== 1) {
		throw new Error(`README.md must have exactly one "npm install ${PACKAGE_NAME} …" line, found ${lines.length}`);
	}
	return lines[0][1].replace(/#.*$/, '').trim().split(/\s+/).filter(Boolean);
}

const CRED = { id: 'pdShellCred0001', name: 'Personnel Data (simulator)' };
const workflow = chainWorkflow('pdShellList0001', 'Shell install: list employees', [
	actionNode('Employees', CRED, { resource: 'employee', operation: 'getMany', returnAll: false, limit: 3 }),
]);

describe(`the README's shell install on ${key}`, () => {
	const flags = readmeInstallFlags();
	let sim: RunningSimulator;
	let folder: N8nUserFolder;
	let server: N8nServer | undefined;

	beforeAll(async () => {
		sim = await startSimulator({ seed: 11 });
		folder = await prepareUserFolder(key, { install: { npmInstallArgs: flags } });
		const admin = sim.credentials.admin;
		await importCredentials(folder, [
			{
				...CRED,
				type: 'personnelDataApi',
				data: { baseUrl: sim.baseUrl, authMode: 'refreshToken', jti: admin.jti, refreshToken: admin.refreshToken },
			},
		]);
		await importWorkflow(folder, workflow);
		server = await startServer(folder);
	});

	afterAll(async () => {
		await server?.stop();
		folder?.cleanup();
		await sim?.close();
	});

	test('npm installs the package alone: n8n-workflow is left to n8n', () => {
		expect(folder.npmInstall?.args).toEqual(['install', expect.stringMatching(/\.tgz$/), ...flags]);
		expect(folder.packageDir).toBe(path.join(folder.userFolder, '.n8n', 'nodes', 'node_modules', PACKAGE_NAME));
		const installed = readdirSync(path.join(folder.userFolder, '.n8n', 'nodes', 'node_modules')).filter((name) => !name.startsWith('.'));
		expect(installed).toEqual([PACKAGE_NAME]);
	});

	test('n8n loads both nodes and runs a workflow through the package against the simulator', async () => {
		if (!server) throw new Error('n8n did not start');
		expect(loadProblems(server.logs())).toEqual([]);
		expect(await server.nodeTypes()).toEqual(
			expect.arrayContaining([`${NODE_TYPE_PREFIX}personnelData`, `${NODE_TYPE_PREFIX}personnelDataTrigger`]),
		);

		const execution = await server.waitForExecution(await server.runFromTrigger(workflow.id, START));
		expect(execution.status).toBe('success');
		const ids = nodeItems(execution.data.resultData, 'Employees').map((item) => item.id);
		expect(ids).toHaveLength(3);
		const known = new Set(sim.sim.getRecords('employees').map((r) => r.id));
		for (const id of ids) expect(known.has(String(id))).toBe(true);
		expect(sim.sim.requests().filter((r) => r.method === 'GET' && r.path === '/v1/org/employees' && r.status === 200)).toHaveLength(1);
	});
});
