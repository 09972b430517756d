/**
 * The Personnel Data Trigger in real n8n against two servers that answer the spec's open questions
 * in contrasting ways (scripts/simulator/variations.ts; docs/server-matrix.md): the simulator's
 * usual choices, and one with seconds-only timestamps written `+00:00`, no total_count, records
 * sharing a timestamp in a new order on every walk, upper-case UUIDs, empty values sorted first,
 * pages of at most 50, unknown and absent fields, and the optional time-report `updated_at` and
 * employee `deleted_at`. On each, n8n's default scheduler; the contrasting server also on n8n's
 * durable scheduler where n8n has it (8 s poll timeout, durable cursors on).
 *
 * Employees, Created or Updated, Max Changes per Poll 60 (issue 42's sequences, in real n8n): a
 * bulk import at one timestamp that a poll reads part of while the import goes on in the same
 * second; the server refusing the cursor inside that group; answers slowed to 100 ms, and records
 * already sent changing while a walk is on a later page (also in that same second: same timestamp,
 * other content). Every version exactly once. Organizational units, Deleted: the first activation
 * sends none of the old deletions, then each new one once.
 */
import type { SimRecord } from '../../scripts/simulator/types';
import type { ServerVariation } from '../../scripts/simulator/variations';
import { startSimulator, type RunningSimulator } from '../../scripts/simulator/server';
import { acceptsSubMinutePolls, assertPackageBuilt, installFeatures, importCredentials, importWorkflow, loadProblems, n8nInstance, nodeItems, prepareUserFolder, startServer, type N8nServer, type N8nUserFolder } from '../../scripts/n8n/driver';
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
const WAIT_MS = 240_000;
const NODE = 'Changes';
/** Max Changes per Poll of the employees workflow: it cuts the import's group. */
const MAX_CHANGES = 60;

const DURABLE = {
	N8N_SCHEDULER_ENABLED: 'true',
	N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true',
	N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'true',
	N8N_SCHEDULER_POLL_TIMEOUT: '8',
	N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true',
};
const LANES: Array<[string, Partial<ServerVariation>, Record<string, string>]> = [
	...Object.entries(PROFILES).map(([profile, variation]): [string, Partial<ServerVariation>, Record<string, string>] => [profile, variation, {}]),
	...(installFeatures(n8nInstance(key)).durableScheduler ? [['contrasting, durable scheduler', PROFILES.contrasting, DURABLE] as [string, Partial<ServerVariation>, Record<string, string>]] : []),
];

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe.each(LANES)(`Personnel Data Trigger in ${key} against the %s server`, (profile, variation, env) => {
	const tag = `${profile.slice(0, 4)}${profile.length}`;
	const credential: CredentialRef = { id: `pdProf${tag}`, name: `Personnel Data (${profile})` };
	const wf = { employees: `pdPrEmp${tag}`, deleted: `pdPrDel${tag}` };
	let simulator: RunningSimulator;
	let folder: N8nUserFolder;
	let server: N8nServer | undefined;

	/** `id@changedAt` of what every finished execution of the workflow emitted (`id|last_name` with `byName`). */
	async function emitted(workflowId: string, byName = false): Promise<string[]> {
		const pairs: string[] = [];
		for (const summary of await (server as N8nServer).listExecutions(workflowId)) {
			const execution = await (server as N8nServer).getExecution(summary.id);
			if (execution.status === 'new' || execution.status === 'running') continue;
			expect(execution.status).toBe('success');
			for (const row of nodeItems(execution.data.resultData, NODE)) {
				const event = row._event as { changedAt?: unknown } | undefined;
				pairs.push(byName ? `${String(row.id).toLowerCase()}|${String(row.last_name)}` : `${String(row.id).toLowerCase()}@${String(event?.changedAt)}`);
			}
		}
		return pairs;
	}
	async function waitFor(workflowId: string, count: number, byName = false): Promise<string[]> {
		const until = Date.now() + WAIT_MS;
		for (;;) {
			const pairs = await emitted(workflowId, byName);
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
			triggerWorkflow(wf.employees, `E2E ${profile}: employees cut by Max Changes`, NODE, credential, { resource: 'employee', event: 'createdOrUpdated', simplify: false, options: { maxChangesPerPoll: MAX_CHANGES } }, CRON),
			triggerWorkflow(wf.deleted, `E2E ${profile}: deleted units`, NODE, credential, { resource: 'organizationalUnit', event: 'deleted', simplify: false }, CRON),
		]);
		server = await startServer(folder, { env });
		expect(loadProblems(server.logs())).toEqual([]);
	}, 200_000);

	afterAll(async () => {
		await server?.stop();
		folder?.cleanup();
		await simulator?.close();
	});

	test('employees: an import spanning a poll at one timestamp, a refused cursor inside its group, records changed during a slow walk; every version once', async () => {
		const sim = simulator.sim;
		const versionOf = (record: SimRecord) => `${String(record.id).toLowerCase()}|${String(record.last_name)}`;
		await (server as N8nServer).activateWorkflow(wf.employees);
		await sleep(1500);
		sim.freezeClock();
		const firstPart = sim.createRecords('employees', 150, { restricted: false });
		// A poll reads part of the import (Max Changes per Poll) while it goes on in the same second.
		const early = await waitFor(wf.employees, MAX_CHANGES, true);
		expect(early.length).toBeLessThan(firstPart.length);
		const secondPart = sim.createRecords('employees', 150, { restricted: false });
		// The next request with a cursor is refused (expired): the pass is inside the group.
		sim.faults.enqueue({ pathPrefix: '/v1/org/employees', queryIncludes: 'after', status: 410, count: 1 });
		// Answers slow down; while a walk is past its first page, ten records already sent change (the same second: other content only).
		sim.setFaults({ latencyMs: 100, applyToProvisioning: false });
		const sentIds = new Set(early.map((pair) => pair.replace(/\|.*/, '')));
		const toTouch = firstPart.filter((record) => sentIds.has(String(record.id).toLowerCase())).slice(0, 10);
		let touched: SimRecord[] = [];
		const decide = sim.faults.decide.bind(sim.faults);
		sim.faults.decide = (method, path, rawQuery = '') => {
			if (touched.length === 0 && path.startsWith('/v1/org/employees') && rawQuery.includes('after')) {
				touched = sim.touchRecords('employees', toTouch.map((record) => record.id), { changes: { last_name: 'Changed during a walk' } });
			}
			return decide(method, path, rawQuery);
		};
		try {
			const expected = [...firstPart, ...secondPart].map(versionOf);
			const more = await waitFor(wf.employees, expected.length, true);
			expect(more.length).toBeGreaterThan(early.length);
			sim.unfreezeClock();
			await sleep(1100);
			const later = sim.createRecords('employees', 20, { restricted: false });
			expect(touched).toHaveLength(toTouch.length);
			// The cursor was refused once, as set up (the log keeps the last 2,000 requests: enough here).
			expect(sim.requests().filter((entry) => entry.status === 410 && entry.path.startsWith('/v1/org/employees'))).toHaveLength(1);
			expected.push(...touched.map(versionOf), ...later.map(versionOf));
			const sent = await waitFor(wf.employees, expected.length, true);
			await sleep(12_000);
			// Each version once: nothing lost, nothing twice, nothing else.
			expect((await emitted(wf.employees, true)).sort()).toEqual(expected.sort());
			expect(sent.length).toBe(expected.length);
		} finally {
			sim.faults.decide = decide;
			sim.unfreezeClock();
			sim.setFaults({ latencyMs: 0 });
		}
		await (server as N8nServer).deactivateWorkflow(wf.employees);
	}, 600_000);

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
