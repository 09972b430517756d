/**
 * The Personnel Data Trigger in real n8n against two servers that answer the spec's open questions
 * in contrasting ways (scripts/simulator/variations.ts; docs/server-matrix.md): the simulator's
 * usual choices, and one with seconds-only timestamps written `+00:00`, no total_count, records
 * sharing a timestamp in a new order on every walk, upper-case UUIDs, empty values sorted first,
 * pages of at most 50, unknown and absent fields, and the optional time-report `updated_at` and
 * employee `deleted_at`. On each: employees Created or Updated cut by Max Changes per Poll inside a
 * group sharing one timestamp (the server's cursor kept between polls), and organizational units
 * Deleted (the first activation sends none of the old deletions). Every change exactly once.
 */
import type { ServerVariation } from '../../scripts/simulator/variations';
import { startSimulator, type RunningSimulator } from '../../scripts/simulator/server';
import { acceptsSubMinutePolls, assertPackageBuilt, importCredentials, importWorkflow, loadProblems, n8nInstance, nodeItems, prepareUserFolder, startServer, type N8nServer, type N8nUserFolder } from '../../scripts/n8n/driver';
import { triggerWorkflow, type CredentialRef } from '../../scripts/n8n/driver/workflowBuilders';

declare const N8N_KEY: string;
const key = N8N_KEY;

assertPackageBuilt();

const PROFILES: Record<string, Partial<ServerVariation>> = {
	usual: {},
	contrasting: {
		timestampPrecision: 'seconds',
		timestampOffset: '+00:00',
		totalCount: 'absent',
		sameValueOrder: 'randomPerWalk',
		uuidCase: 'upper',
		emptyValuesSort: 'firstAlways',
		maxPageSize: 50,
		unknownFields: 'present',
		emptyOptionalFields: 'absent',
		timeReportUpdatedAt: 'present',
		employeeDeletedAt: 'present',
	},
};

/**
 * A poll every 5 s on n8n 2.8 (it takes a seconds range with a step); n8n 2.41 refuses any cron
 * under a minute, so six entries, each once a minute, 10 s apart.
 */
const CRON = acceptsSubMinutePolls(n8nInstance(key)) ? '0-59/5 * * * * *' : [0, 10, 20, 30, 40, 50].map((second) => `${second} * * * * *`);
const WAIT_MS = 180_000;
const NODE = 'Changes';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe.each(Object.entries(PROFILES))(`Personnel Data Trigger in ${key} against the %s server`, (profile, variation) => {
	const credential: CredentialRef = { id: `pdProf${profile.slice(0, 6)}`, name: `Personnel Data (${profile})` };
	const wf = { employees: `pdPrEmp${profile.slice(0, 8)}`, deleted: `pdPrDel${profile.slice(0, 8)}` };
	let simulator: RunningSimulator;
	let folder: N8nUserFolder;
	let server: N8nServer | undefined;

	/** `id@changedAt` of what every finished execution of the workflow emitted. */
	async function emitted(workflowId: string): Promise<string[]> {
		const pairs: string[] = [];
		for (const summary of await (server as N8nServer).listExecutions(workflowId)) {
			const execution = await (server as N8nServer).getExecution(summary.id);
			if (execution.status === 'new' || execution.status === 'running') continue;
			expect(execution.status).toBe('success');
			for (const row of nodeItems(execution.data.resultData, NODE)) {
				const event = row._event as { changedAt?: unknown } | undefined;
				pairs.push(`${String(row.id).toLowerCase()}@${String(event?.changedAt)}`);
			}
		}
		return pairs;
	}
	async function waitFor(workflowId: string, count: number): Promise<string[]> {
		const until = Date.now() + WAIT_MS;
		for (;;) {
			const pairs = await emitted(workflowId);
			if (pairs.length >= count || Date.now() > until) return pairs;
			await sleep(2000);
		}
	}

	beforeAll(async () => {
		simulator = await startSimulator({ seed: 23, clockStart: new Date().toISOString(), variation });
		folder = await prepareUserFolder(key);
		const { jti, refreshToken } = simulator.credentials.admin;
		await importCredentials(folder, [{ ...credential, type: 'personnelDataApi', data: { baseUrl: simulator.baseUrl, authMode: 'refreshToken', jti, refreshToken } }]);
		await importWorkflow(folder, [
			triggerWorkflow(wf.employees, `E2E ${profile}: employees cut by Max Changes`, NODE, credential, { resource: 'employee', event: 'createdOrUpdated', simplify: false, options: { maxChangesPerPoll: 40 } }, CRON),
			triggerWorkflow(wf.deleted, `E2E ${profile}: deleted units`, NODE, credential, { resource: 'organizationalUnit', event: 'deleted', simplify: false }, CRON),
		]);
		server = await startServer(folder);
		expect(loadProblems(server.logs())).toEqual([]);
	}, 200_000);

	afterAll(async () => {
		await server?.stop();
		folder?.cleanup();
		await simulator?.close();
	});

	test('employees: a burst at one timestamp and changes after it, cut into polls of 40, each change once', async () => {
		const sim = simulator.sim;
		await (server as N8nServer).activateWorkflow(wf.employees);
		await sleep(1500);
		sim.freezeClock();
		const burst = sim.createRecords('employees', 150, { restricted: false });
		sim.unfreezeClock();
		await sleep(1100);
		const later = sim.createRecords('employees', 20, { restricted: false });
		const expected = [...burst, ...later].map((record) => `${String(record.id).toLowerCase()}@${String(record.updated_at)}`);
		const pairs = await waitFor(wf.employees, expected.length);
		expect(new Set(pairs).size).toBe(pairs.length);
		expect(pairs.map((pair) => pair.replace(/@.*/, '')).sort()).toEqual(expected.map((pair) => pair.replace(/@.*/, '')).sort());
		await (server as N8nServer).deactivateWorkflow(wf.employees);
	}, 300_000);

	test('organizational units: the first activation sends no old deletion, then each new one once', async () => {
		const sim = simulator.sim;
		const live = sim.getRecords('orgUnits').filter((unit) => unit.deleted_at === null || unit.deleted_at === undefined);
		sim.softDeleteRecords('orgUnits', [live[0].id]);
		await sleep(1100);
		await (server as N8nServer).activateWorkflow(wf.deleted);
		await sleep(12_000);
		expect(await emitted(wf.deleted)).toEqual([]);
		const gone = sim.softDeleteRecords('orgUnits', [live[1].id, live[2].id]);
		const pairs = await waitFor(wf.deleted, gone.length);
		await sleep(12_000);
		const settled = await emitted(wf.deleted);
		expect(settled.map((pair) => pair.replace(/@.*/, '')).sort()).toEqual(gone.map((unit) => String(unit.id).toLowerCase()).sort());
		expect(settled.length).toBe(pairs.length);
		await (server as N8nServer).deactivateWorkflow(wf.deleted);
	}, 300_000);
});
