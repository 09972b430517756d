/**
 * The examples imported as the README says, in a fresh n8n outside Docker (one jest project per
 * version, global N8N_KEY): example 8 (demo/workflows/8-import-employees-from-a-file.json) as its
 * file is, a credential under the id its nodes name; examples 1 and 3–6 with your credential picked. n8n's allowed folder is left at its
 * default (`~/.n8n-files` of the OS user: HOME is a folder of the test's own). Issue 45: a run
 * that read no file or whose rows failed is never reported as a success, and its message says
 * what to do.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import { startSimulator, type RunningSimulator } from '../../scripts/simulator/server';
import { IDS, loadWorkflows } from '../../demo/workflows';
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
	type WorkflowFile,
} from '../../scripts/n8n/driver';

declare const N8N_KEY: string;
const key = N8N_KEY;

assertPackageBuilt();

const ROOT = path.join(__dirname, '../..');
const EXAMPLE = JSON.parse(readFileSync(path.join(ROOT, 'demo/workflows/8-import-employees-from-a-file.json'), 'utf8')) as WorkflowFile;
const READ = 'Read employees file';
const WRITE = 'Create or update employees';
/** The credential the example's node names; the test imports one under that id. */
const EXAMPLE_CREDENTIAL = EXAMPLE.nodes.find((node) => node.name === WRITE)?.credentials?.personnelDataApi;
const GOOD_CREDENTIAL = { id: 'pdExImpGoodCred1', name: 'Personnel Data (example 8 e2e)' };
const FILE_WORKFLOW = 'pdExImpWithFile1';
const GOOD_WORKFLOW = 'pdExImpGoodCred2';
/** The examples started by hand (2 and 7 are triggers), each with your credential picked in its nodes. */
const MANUAL = [IDS.changed, IDS.title, IDS.transfer, IDS.condition, IDS.timeType];
const manualExamples = (): WorkflowFile[] =>
	loadWorkflows()
		.filter((workflow) => (MANUAL as readonly string[]).includes(workflow.id))
		.map((workflow) => {
			for (const node of workflow.nodes) if (node.credentials?.personnelDataApi) node.credentials = { personnelDataApi: GOOD_CREDENTIAL };
			return workflow;
		});

const CSV = [
	'employee_number,first_name,last_name,email,phone1,title',
	'E945001,Alma,Example,alma.example@north.example,+46 70 000 00 01,Analyst',
	'E945002,Bo,Example,not-an-email,+46 70 000 00 02,Analyst',
	'E945003,Cleo,Example,cleo.example@north.example,+46 70 000 00 03,Analyst',
].join('\n');

/** The example with its file path changed (what the README asks), and optionally another credential. */
function withPath(id: string, file: string, credential?: { id: string; name: string }): WorkflowFile {
	const copy = structuredClone(EXAMPLE);
	copy.id = id;
	copy.name = `${EXAMPLE.name} (${id})`;
	for (const node of copy.nodes) {
		if (node.name === READ) node.parameters.fileSelector = file;
		if (node.name === WRITE && credential) node.credentials = { personnelDataApi: credential };
	}
	return copy;
}

describe(`the examples as imported into ${key}, outside Docker: they run or fail loudly`, () => {
	let simulator: RunningSimulator;
	let folder: N8nUserFolder;
	let server: N8nServer;
	let home: string;
	let file: string;

	async function run(workflowId: string): Promise<ExecutionDetails> {
		simulator.sim.clearRequests();
		const id = await server.runFromTrigger(workflowId, 'Start');
		return server.waitForExecution(id, 120_000);
	}
	const employeeRequests = () => simulator.sim.requests().filter((request) => request.path.includes('/employees'));

	beforeAll(async () => {
		if (!EXAMPLE_CREDENTIAL) throw new Error(`example 8 has no credential on "${WRITE}"`);
		simulator = await startSimulator({ seed: 45, sizes: { employees: 20 } });
		home = mkdtempSync(path.join(tmpdir(), 'pd-example8-home-'));
		mkdirSync(path.join(home, '.n8n-files'));
		file = path.join(home, '.n8n-files', 'employees-import.csv');
		writeFileSync(file, `${CSV}\n`);

		folder = await prepareUserFolder(key, { env: { HOME: home, GENERIC_TIMEZONE: 'UTC' } });
		const { jti, refreshToken } = simulator.credentials.admin;
		const data = { baseUrl: simulator.baseUrl, authMode: 'refreshToken', jti };
		await importCredentials(folder, [
			{ ...EXAMPLE_CREDENTIAL, type: 'personnelDataApi', data: { ...data, refreshToken: 'a-wrong-refresh-token' } },
			{ ...GOOD_CREDENTIAL, type: 'personnelDataApi', data: { ...data, refreshToken } },
		]);
		await importWorkflow(folder, [EXAMPLE, withPath(FILE_WORKFLOW, file), withPath(GOOD_WORKFLOW, file, GOOD_CREDENTIAL), ...manualExamples()]);
		server = await startServer(folder);
		expect(loadProblems(server.logs())).toEqual([]);
	}, 300_000);

	afterAll(async () => {
		await server?.stop();
		folder?.cleanup();
		if (home) rmSync(home, { recursive: true, force: true });
		await simulator?.close();
	});

	test('no file at its path: the run fails naming the path and ~/.n8n-files, and nothing is sent', async () => {
		const selector = String(EXAMPLE.nodes.find((node) => node.name === READ)?.parameters.fileSelector);
		const execution = await run(EXAMPLE.id);
		expect(execution.status).toBe('error');
		const error = nodeError(execution.data.resultData, 'No file to import');
		expect(error?.message).toContain(`Cannot read ${selector}`);
		expect(error?.message).toContain('~/.n8n-files in the home folder of the OS user that runs n8n');
		expect(execution.data.resultData.runData[WRITE]).toBeUndefined();
		expect(employeeRequests()).toEqual([]);
	});

	test('a wrong refresh token: the run fails, counting every row as failed', async () => {
		const execution = await run(FILE_WORKFLOW);
		expect(execution.status).toBe('error');
		const error = nodeError(execution.data.resultData, 'Rows failed');
		expect(error?.message).toMatch(/^3 of 3 rows failed; the first: .+/);
		expect(simulator.sim.requests().filter((request) => request.method !== 'GET' && request.path.includes('/employees'))).toEqual([]);
	});

	test('one bad row with a good credential: the others are written, and the run fails naming it', async () => {
		const execution = await run(GOOD_WORKFLOW);
		expect(execution.status).toBe('error');
		const error = nodeError(execution.data.resultData, 'Rows failed');
		expect(error?.message).toMatch(/^1 of 3 rows failed; the first: .*email/);
		const created = employeeRequests().filter((request) => request.method === 'POST');
		expect(created).toHaveLength(2);
		const written = execution.data.resultData.runData[WRITE]?.[0]?.data?.main?.[0] ?? [];
		expect(written.map((item) => item.json.writeOutcome)).toEqual(['created', 'created']);
	});

	test('examples 1 and 3–6 as imported, with your credential picked: 1 runs, the others fail naming the record of the demo they did not find', async () => {
		const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;
		for (const workflow of manualExamples()) {
			const execution = await run(workflow.id);
			const failed = Object.keys(execution.data.resultData.runData).find((name) => nodeError(execution.data.resultData, name));
			if (workflow.id === IDS.changed) {
				expect([workflow.name, execution.status, failed]).toEqual([workflow.name, 'success', undefined]);
				continue;
			}
			// The record the example names is one of the demo's simulator: the message names it.
			const named = workflow.nodes.map((node) => JSON.stringify(node.parameters).match(uuid)?.[0]).find(Boolean);
			expect([workflow.name, execution.status]).toEqual([workflow.name, 'error']);
			expect(named).toBeDefined();
			expect(String(failed && nodeError(execution.data.resultData, failed)?.message)).toContain(named);
		}
	});
});
