/**
 * The README's install routes, as a user runs them (one jest project per n8n version, global N8N_KEY):
 * - the shell block, run by bash as written in a fresh user folder (HOME = that folder, so
 *   `~/.n8n/nodes` is its nodes folder), its `curl` of the release tarball served the packed package;
 * - the Dockerfile, its steps replayed without Docker (no engine here): COPY puts the packed tarball
 *   where the Dockerfile copies it, RUN runs with /home/node standing for the user folder.
 * Then n8n starts, loads the package and runs a workflow through it against the simulator.
 */
import { readdirSync } from 'node:fs';
import * as path from 'node:path';

import { readmeInstall } from '../../scripts/docs/readmeInstall';
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
	type ScriptInstall,
} from '../../scripts/n8n/driver';
import { actionNode, chainWorkflow, START } from '../../scripts/n8n/driver/workflowBuilders';

declare const N8N_KEY: string;
const key = N8N_KEY;

assertPackageBuilt();

const readme = readmeInstall(ROOT);

/** The Dockerfile's COPY and RUN, for a user folder standing in for /home/node. */
function dockerfileReplay(): ScriptInstall {
	const copy = readme.dockerSteps.find((step) => step.instruction === 'COPY');
	const runs = readme.dockerSteps.filter((step) => step.instruction === 'RUN');
	if (!copy || runs.length === 0) throw new Error('README.md: the Dockerfile has no COPY or RUN');
	const [source, target] = copy.args.split(/\s+/).filter((arg) => !arg.startsWith('--'));
	const inFolder = (text: string) => text.replace(/\/home\/node\//g, '$HOME/').replace(/(^|\s)\/tmp\//g, '$1$HOME/tmp/');
	return {
		tarballAt: path.join(target.replace(/^\//, ''), path.basename(source)),
		script: runs.map((run) => inFolder(run.args)).join('\n'),
	};
}

const ROUTES: Array<[string, () => ScriptInstall]> = [
	['the shell block', () => ({ script: readme.shell, tarballUrl: readme.downloadUrl.replace(/\$version/g, readme.shellVersion) })],
	['the Dockerfile', dockerfileReplay],
];

const CRED = { id: 'pdShellCred0001', name: 'Personnel Data (simulator)' };
const workflow = chainWorkflow('pdShellList0001', 'Shell install: list employees', [
	actionNode('Employees', CRED, { resource: 'employee', operation: 'getMany', returnAll: false, limit: 3 }),
]);

describe.each(ROUTES)(`the README's install, %s, on ${key}`, (_route, scriptOf) => {
	let sim: RunningSimulator;
	let folder: N8nUserFolder;
	let server: N8nServer | undefined;

	beforeAll(async () => {
		sim = await startSimulator({ seed: 11 });
		folder = await prepareUserFolder(key, { install: { script: scriptOf() } });
		const admin = sim.credentials.admin;
		await importCredentials(folder, [
			{ ...CRED, type: 'personnelDataApi', data: { baseUrl: sim.baseUrl, authMode: 'refreshToken', jti: admin.jti, refreshToken: admin.refreshToken } },
		]);
		await importWorkflow(folder, workflow);
		server = await startServer(folder);
	});

	afterAll(async () => {
		await server?.stop();
		folder?.cleanup();
		await sim?.close();
	});

	test('installs the package alone into ~/.n8n/nodes: n8n-workflow is left to n8n', () => {
		expect(folder.scriptInstall?.rc).toBe(0);
		expect(folder.packageDir).toBe(path.join(folder.userFolder, '.n8n', 'nodes', 'node_modules', PACKAGE_NAME));
		const installed = readdirSync(path.join(folder.userFolder, '.n8n', 'nodes', 'node_modules')).filter((name) => !name.startsWith('.'));
		expect(installed).toEqual([PACKAGE_NAME]);
	});

	test('n8n loads both nodes and runs a workflow through the package against the simulator', async () => {
		if (!server) throw new Error('n8n did not start');
		expect(loadProblems(server.logs())).toEqual([]);
		expect(await server.nodeTypes()).toEqual(expect.arrayContaining([`${NODE_TYPE_PREFIX}personnelData`, `${NODE_TYPE_PREFIX}personnelDataTrigger`]));

		const execution = await server.waitForExecution(await server.runFromTrigger(workflow.id, START));
		expect(execution.status).toBe('success');
		const ids = nodeItems(execution.data.resultData, 'Employees').map((item) => item.id);
		expect(ids).toHaveLength(3);
		const known = new Set(sim.sim.getRecords('employees').map((r) => r.id));
		for (const id of ids) expect(known.has(String(id))).toBe(true);
		expect(sim.sim.requests().filter((r) => r.method === 'GET' && r.path === '/v1/org/employees' && r.status === 200)).toHaveLength(1);
	});
});
