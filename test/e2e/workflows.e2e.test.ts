/**
 * Issue 5's end-to-end workflows: real n8n (one jest project per version, global N8N_KEY) loads
 * the packed package as a community package, credentials are imported headlessly, and ONE
 * `n8n start` per version runs every workflow through the REST API (`runFromTrigger`) against the
 * simulator in this process. The assertions are on the workflows' output and on the simulator's
 * own data, request log and stats.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';

import { evaluateRule } from '../../scripts/simulator/conditions';
import type { RequestLogEntry } from '../../scripts/simulator/requestLog';
import { startSimulator, type RunningSimulator } from '../../scripts/simulator/server';
import type { Json, SimRecord } from '../../scripts/simulator/types';
import {
	importCredentials,
	importWorkflow,
	loadProblems,
	nodeError,
	nodeItems,
	prepareUserFolder,
	assertPackageBuilt,
	startServer,
	type CredentialFile,
	type ExecutionDetails,
	type N8nServer,
	type N8nUserFolder,
	type WorkflowFile,
} from '../../scripts/n8n/driver';
import {
	actionNode,
	byId,
	chainWorkflow,
	fanOutWorkflow,
	itemsOf,
	triggerWorkflow,
	type CredentialRef,
} from '../../scripts/n8n/driver/workflowBuilders';

declare const N8N_KEY: string;
const key = N8N_KEY;

assertPackageBuilt();

// Credentials: the admin role, the limited role (403 on restricted records), and an admin one
// used only by the token-expiry workflow (so that no token from other runs is cached in it).
const ADMIN: CredentialRef = { id: 'pdWfCredAdmin01', name: 'Personnel Data admin (e2e)' };
const LIMITED: CredentialRef = { id: 'pdWfCredLimit01', name: 'Personnel Data limited (e2e)' };
const SHORT_TTL: CredentialRef = { id: 'pdWfCredTtl0001', name: 'Personnel Data short tokens (e2e)' };
/** Admin of a second simulator whose employees have another customer's fields (the `remapped` schema). */
const REMAPPED: CredentialRef = { id: 'pdWfCredRemap01', name: 'Personnel Data other customer (e2e)' };

const WF = {
	returnAll: 'pdWfReturnAll01',
	condition: 'pdWfCondition01',
	gets: 'pdWfGetThree001',
	write: 'pdWfWriteEmp001',
	transfer: 'pdWfTransfer001',
	errors: 'pdWfErrors00001',
	trigger: 'pdWfTrigger0001',
	tokenExpiry: 'pdWfTokenTtl001',
	history: 'pdWfHistory0001',
	discovered: 'pdWfDiscover001',
} as const;

const TRIGGER_NODE = 'Employee changes';
/** Placeholder schedule until the test sets the real second (once a year: never fires here). */
const IDLE_CRON = '0 0 0 1 1 *';
const UNKNOWN_UUID = '00000000-0000-4000-8000-000000000000';

type Row = Record<string, unknown>;
interface DatedEntry {
	valid_from: string | null;
	value: unknown;
}

function credentialFile(ref: CredentialRef, sim: RunningSimulator, role: 'admin' | 'limited'): CredentialFile {
	const { jti, refreshToken } = sim.credentials[role];
	return {
		...ref,
		type: 'personnelDataApi',
		data: { baseUrl: sim.baseUrl, authMode: 'refreshToken', jti, refreshToken },
	};
}

function workflows(conditionId: string, fileTransferId: string, ids: ErrorCaseIds, unitId: string): WorkflowFile[] {
	return [
		chainWorkflow(WF.discovered, 'E2E: filter and write fields the registry does not know', [
			actionNode('Employees of one unit', REMAPPED, {
				resource: 'employee',
				operation: 'getMany',
				limit: 2,
				simplify: false,
				filters: { filter: [{ field: 'organizational_unit_id', operator: 'eq', value: unitId }] },
				options: { orderBy: 'employment_start_date', orderDirection: 'asc' },
			}),
			actionNode('Write their own fields', REMAPPED, {
				resource: 'employee',
				operation: 'update',
				id: byId('={{ $json.id }}'),
				fields: {},
				datedValues: { entry: [{ property: 'weekly_hours', mode: 'replaceHistory', validFrom: '2026-03-01', value: '={{ 30 }}' }] },
				fieldsByName: { field: [{ name: 'employment_start_date', value: '2018-08-01' }] },
			}),
		]),
		chainWorkflow(WF.returnAll, 'E2E: all employees', [
			actionNode('All employees', ADMIN, { resource: 'employee', operation: 'getMany', returnAll: true, simplify: false }),
		]),
		chainWorkflow(WF.condition, 'E2E: employees passing a condition', [
			actionNode('Full-time employees', ADMIN, {
				resource: 'employee',
				operation: 'getMany',
				returnAll: true,
				condition: byId(conditionId),
				simplify: false,
			}),
		]),
		fanOutWorkflow(WF.gets, 'E2E: get three resources', [
			actionNode('Time report', ADMIN, { resource: 'timeReport', operation: 'get', id: byId(ids.timeReport), simplify: false }),
			actionNode('Competence', ADMIN, { resource: 'competence', operation: 'get', id: byId(ids.competence), simplify: false }),
			actionNode('Org unit', ADMIN, { resource: 'organizationalUnit', operation: 'get', id: byId(ids.orgUnit), simplify: false }),
		]),
		chainWorkflow(WF.write, 'E2E: create, update, get an employee', [
			actionNode('Create employee', ADMIN, {
				resource: 'employee',
				operation: 'create',
				first_name: 'Ada',
				last_name: 'E2E',
				fields: { email: 'ada.e2e@north.example' },
				datedValues: {
					entry: [
						{ property: 'title', validFrom: '', value: 'Trainee' },
						{ property: 'title', validFrom: '2024-01-01', value: 'Analyst' },
						{ property: 'cost_center', validFrom: '2024-01-01', value: 'CC-7' },
					],
				},
			}),
			actionNode('Update title', ADMIN, {
				resource: 'employee',
				operation: 'update',
				id: byId('={{ $json.id }}'),
				fields: {},
				datedValues: { entry: [{ property: 'title', mode: 'replaceHistory', validFrom: '2026-12-01', value: 'Head of Things' }] },
			}),
			actionNode('Get employee', ADMIN, {
				resource: 'employee',
				operation: 'get',
				id: byId("={{ $('Create employee').item.json.id }}"),
				simplify: false,
			}),
		]),
		chainWorkflow(WF.history, 'E2E: update titles keeping the history', [
			actionNode('Create employee', ADMIN, {
				resource: 'employee',
				operation: 'create',
				first_name: 'Grace',
				last_name: 'History',
				datedValues: {
					entry: [
						{ property: 'title', validFrom: '', value: 'Trainee' },
						{ property: 'title', validFrom: '2024-01-01', value: 'Analyst' },
					],
				},
			}),
			actionNode('Add a title', ADMIN, {
				resource: 'employee',
				operation: 'update',
				id: byId('={{ $json.id }}'),
				datedValues: { entry: [{ property: 'title', validFrom: '2026-12-01', value: 'Head of Things' }] },
			}),
			actionNode('Remove a title', ADMIN, {
				resource: 'employee',
				operation: 'update',
				id: byId('={{ $json.id }}'),
				datedValues: { entry: [{ property: 'title', mode: 'remove', validFrom: '2024-01-01' }] },
			}),
		]),
		chainWorkflow(WF.transfer, 'E2E: wait for a file transfer', [
			actionNode('Wait for delivery', ADMIN, {
				resource: 'fileTransfer',
				operation: 'get',
				id: byId(fileTransferId),
				options: { waitUntilDone: true, waitInterval: 1, waitTimeout: 60 },
			}),
		]),
		chainWorkflow(WF.errors, 'E2E: 404 and 403 with Continue On Fail', [
			...itemsOf('employeeId', [ids.allowed, UNKNOWN_UUID, ids.restricted, ids.allowed2]),
			actionNode(
				'Get employee',
				LIMITED,
				{ resource: 'employee', operation: 'get', id: byId('={{ $json.employeeId }}'), simplify: false },
				{ onError: 'continueRegularOutput' },
			),
		]),
		triggerWorkflow(
			WF.trigger,
			'E2E: trigger on employee changes',
			TRIGGER_NODE,
			ADMIN,
			{ resource: 'employee', event: 'createdOrUpdated' },
			IDLE_CRON,
		),
		chainWorkflow(WF.tokenExpiry, 'E2E: all employees with short-lived tokens', [
			actionNode('All employees', SHORT_TTL, { resource: 'employee', operation: 'getMany', returnAll: true, simplify: false }),
		]),
	];
}

interface ErrorCaseIds {
	timeReport: string;
	competence: string;
	orgUnit: string;
	allowed: string;
	allowed2: string;
	restricted: string;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe(`workflows users build (lists, reads, writes, errors, trigger, tokens) on ${key}`, () => {
	let simulator: RunningSimulator;
	let folder: N8nUserFolder;
	let server: N8nServer;
	let ids: ErrorCaseIds;
	let conditionId: string;
	let fileTransferId: string;
	let remapped: RunningSimulator;
	let unitId: string;

	const sim = () => simulator.sim;
	/** Employees the admin role can list: all but hidden ones. */
	const visibleEmployees = (): SimRecord[] => {
		const hidden = new Set(sim().hiddenIds().employees);
		return sim()
			.getRecords('employees')
			.filter((r) => !hidden.has(r.id));
	};
	const firstUnrestricted = (collection: 'employees' | 'timeReports' | 'competences' | 'orgUnits', skip = 0): string => {
		const restricted = new Set(sim().restrictedIds()[collection]);
		return sim()
			.getRecords(collection)
			.filter((r) => !restricted.has(r.id))[skip].id;
	};
	/** Requests that reached the API (provisioning left out). */
	const apiRequests = (): RequestLogEntry[] => sim().requests().filter((r) => !r.path.startsWith('/provisioning'));

	async function run(workflowId: string, timeoutMs = 120_000): Promise<ExecutionDetails> {
		const executionId = await server.runFromTrigger(workflowId, 'Start');
		const execution = await server.waitForExecution(executionId, timeoutMs);
		if (execution.status !== 'success') {
			const failed = Object.keys(execution.data.resultData.runData)
				.map((name) => ({ name, error: nodeError(execution.data.resultData, name) }))
				.find((n) => n.error);
			throw new Error(
				`execution ${executionId} of ${workflowId} ended "${execution.status}": ` +
					(failed ? `${failed.name}: ${failed.error?.message ?? ''} ${failed.error?.description ?? ''}` : (execution.data.resultData.error?.message ?? '?')),
			);
		}
		return execution;
	}
	const items = (execution: ExecutionDetails, node: string): Row[] => nodeItems(execution.data.resultData, node);

	beforeAll(async () => {
		simulator = await startSimulator({ seed: 11 });
		remapped = await startSimulator({ seed: 12, employeeSchema: 'remapped', sizes: { employees: 60 } });
		const units = remapped.sim.getRecords('employees').map((r) => String(r.organizational_unit_id));
		// The unit with the most employees, so that the filter has more than one match.
		unitId = units.sort((a, b) => units.filter((u) => u === b).length - units.filter((u) => u === a).length)[0];
		conditionId = sim().conditionIds().fullTime;
		fileTransferId = sim().createFileTransfer({ deliverAfterReads: 3 }).id;
		const restricted = sim().restrictedIds().employees;
		ids = {
			timeReport: firstUnrestricted('timeReports'),
			competence: firstUnrestricted('competences'),
			orgUnit: firstUnrestricted('orgUnits'),
			allowed: firstUnrestricted('employees'),
			allowed2: firstUnrestricted('employees', 1),
			restricted: restricted[0],
		};
		folder = await prepareUserFolder(key);
		await importCredentials(folder, [
			credentialFile(ADMIN, simulator, 'admin'),
			credentialFile(LIMITED, simulator, 'limited'),
			credentialFile(SHORT_TTL, simulator, 'admin'),
			credentialFile(REMAPPED, remapped, 'admin'),
		]);
		await importWorkflow(folder, workflows(conditionId, fileTransferId, ids, unitId));
		server = await startServer(folder);
		expect(loadProblems(server.logs())).toEqual([]);
	});

	afterAll(async () => {
		await server?.stop();
		folder?.cleanup();
		await simulator?.close();
		await remapped?.close();
	});

	afterEach(() => {
		sim().clearFaults();
		sim().setTokenTtl(3600);
		sim().setScanLimit(250);
	});

	test('1. Return All of employees: the simulator\'s count, unique ids', async () => {
		const execution = await run(WF.returnAll);
		const got = items(execution, 'All employees').map((r) => String(r.id));
		const expected = visibleEmployees().map((r) => r.id);
		expect(got).toHaveLength(expected.length);
		expect(new Set(got).size).toBe(got.length);
		expect([...got].sort()).toEqual([...expected].sort());
	});

	test('2. Get Many with a condition, short and empty pages: exactly the simulator\'s own evaluation', async () => {
		sim().setScanLimit(20);
		sim().clearRequests();
		const execution = await run(WF.condition);
		const got = items(execution, 'Full-time employees').map((r) => String(r.id));

		const [condition] = sim().getRecords('conditions', [conditionId]);
		const today = sim().clock.now().slice(0, 10);
		const expected = visibleEmployees()
			.filter((r) => evaluateRule(condition.data_engine as Json, r, today))
			.map((r) => r.id);
		expect(expected.length).toBeGreaterThan(0);
		expect(expected.length).toBeLessThan(visibleEmployees().length);
		expect(new Set(got).size).toBe(got.length);
		expect([...got].sort()).toEqual([...expected].sort());

		// The scan limit made the API page through the collection 20 records at a time.
		const pages = apiRequests().filter((r) => r.path === '/v1/org/employees' && r.rawQuery.includes('condition_id'));
		expect(pages.length).toBeGreaterThanOrEqual(Math.ceil(visibleEmployees().length / 20));
	});

	test('3. Get of a time report, a competence and a v2 organizational unit', async () => {
		sim().clearRequests();
		const execution = await run(WF.gets);
		expect(items(execution, 'Time report').map((r) => r.id)).toEqual([ids.timeReport]);
		expect(items(execution, 'Competence').map((r) => r.id)).toEqual([ids.competence]);
		const [unit] = items(execution, 'Org unit');
		expect(unit.id).toBe(ids.orgUnit);
		const [stored] = sim().getRecords('orgUnits', [ids.orgUnit]);
		expect(unit.properties).toEqual(stored.properties);

		const paths = apiRequests().map((r) => `${r.method} ${r.path}`);
		expect(paths).toEqual(
			expect.arrayContaining([
				`GET /v1/org/time-reports/${ids.timeReport}`,
				`GET /v1/org/competences/${ids.competence}`,
				`GET /v2/org/organizational-units/${ids.orgUnit}`,
			]),
		);
		expect(paths.filter((p) => p.includes('/v1/org/organizational-units/'))).toEqual([]);
	});

	test('4. Employee Create, Update of one dated property, Get: that property replaced whole, the others untouched', async () => {
		sim().clearRequests();
		const execution = await run(WF.write);
		const [created] = items(execution, 'Create employee');
		const [fetched] = items(execution, 'Get employee');
		const createdProps = created.properties as Record<string, DatedEntry[]>;
		expect(createdProps.title).toEqual([
			{ valid_from: '2024-01-01', value: 'Analyst' },
			{ valid_from: null, value: 'Trainee' },
		]);
		expect(fetched.id).toBe(created.id);
		const props = fetched.properties as Record<string, DatedEntry[]>;
		// PATCH replaces the targeted dated property whole: the earlier titles are gone ...
		expect(props.title).toEqual([{ valid_from: '2026-12-01', value: 'Head of Things' }]);
		// ... and a dated property the PATCH did not name is untouched.
		expect(props.cost_center).toEqual([{ valid_from: '2024-01-01', value: 'CC-7' }]);
		expect(fetched.email).toBe('ada.e2e@north.example');

		const patch = apiRequests().find((r) => r.method === 'PATCH');
		expect(patch?.path).toBe(`/v1/org/employees/${String(created.id)}`);
		expect(patch?.body).toEqual({ data: { properties: { title: [{ valid_from: '2026-12-01', value: 'Head of Things' }] } } });
	});

	test('4b. Employee Update with the default mode adds a title and keeps the others; Remove takes one out: GET + PATCH each', async () => {
		sim().clearRequests();
		const execution = await run(WF.history);
		const [created] = items(execution, 'Create employee');
		const [added] = items(execution, 'Add a title');
		const [removed] = items(execution, 'Remove a title');
		expect((added.properties as Record<string, DatedEntry[]>).title).toEqual([
			{ valid_from: '2026-12-01', value: 'Head of Things' },
			{ valid_from: '2024-01-01', value: 'Analyst' },
			{ valid_from: null, value: 'Trainee' },
		]);
		expect((removed.properties as Record<string, DatedEntry[]>).title).toEqual([
			{ valid_from: '2026-12-01', value: 'Head of Things' },
			{ valid_from: null, value: 'Trainee' },
		]);
		const id = String(created.id);
		expect(apiRequests().map((r) => `${r.method} ${r.path}`)).toEqual([
			'POST /v1/org/employees',
			'GET /v1/org/employees',
			`PATCH /v1/org/employees/${id}`,
			'GET /v1/org/employees',
			`PATCH /v1/org/employees/${id}`,
		]);
	});

	test('5. File Transfer: Get with Wait for Delivery returns it delivered', async () => {
		sim().clearRequests();
		const execution = await run(WF.transfer);
		const [transfer] = items(execution, 'Wait for delivery');
		expect(transfer.id).toBe(fileTransferId);
		expect(transfer.status).toBe('delivered');
		const reads = apiRequests().filter((r) => r.path === `/v1/org/file-transfers/${fileTransferId}` || r.path.endsWith(`/${fileTransferId}`));
		expect(reads.length).toBeGreaterThanOrEqual(4); // 3 pending reads, then delivered
	});

	test('6. 404 and 403 with Continue On Fail: error items name the record, the other items go on', async () => {
		const execution = await run(WF.errors);
		const out = items(execution, 'Get employee');
		expect(out).toHaveLength(4);
		expect(out[0].id).toBe(ids.allowed);
		expect(out[3].id).toBe(ids.allowed2);
		expect(String(out[1].error)).toContain(UNKNOWN_UUID);
		expect(String(out[2].error)).toContain(ids.restricted);
		expect(String(out[2].error)).toMatch(/forbidden|permission|not allowed/i);
		// What the API answered (the limited role): one batched list read for the four ids (it leaves
		// out the missing and the forbidden one), then those two asked for on their own.
		const [list, ...misses] = sim()
			.requests()
			.filter((r) => r.path === '/v1/org/employees' || r.path.startsWith('/v1/org/employees/'))
			.slice(-3);
		expect([list.path, list.status]).toEqual(['/v1/org/employees', 200]);
		expect(misses.map((r) => `${r.path} ${r.status}`).sort()).toEqual(
			[`/v1/org/employees/${UNKNOWN_UUID} 404`, `/v1/org/employees/${ids.restricted} 403`].sort(),
		);
	});

	test('7. The credential test through n8n\'s REST API: OK with good data, a clear failure with a wrong refresh token', async () => {
		const good = credentialFile(ADMIN, simulator, 'admin');
		const body = (data: Record<string, unknown>) => ({ credentials: { id: good.id, name: good.name, type: good.type, data } });
		const ok = await server.rest<{ status: string; message: string }>('POST', '/rest/credentials/test', body(good.data));
		expect(ok).toMatchObject({ status: 'OK' });

		const bad = await server.rest<{ status: string; message: string }>(
			'POST',
			'/rest/credentials/test',
			body({ ...good.data, refreshToken: 'rt_wrong' }),
		);
		expect(bad.status).toBe('Error');
		expect(bad.message).toMatch(/refresh token|signature|401|unauthori/i);
		expect(bad.message).toContain('The service refused the JTI or the refresh token');

		// The token works, the role may not list employees: the test names the role, not the token.
		sim().queueFault({ pathPrefix: '/v1/org/employees', status: 403, count: 1 });
		const role = await server.rest<{ status: string; message: string }>('POST', '/rest/credentials/test', body(good.data));
		expect(role.status).toBe('Error');
		expect(role.message).toMatch(/^The token works, but its role may not list employees/);

		// An address that is not the API (a web server's 404 page): the test names Base URL.
		const web = createServer((request, response) => {
			request.resume();
			response.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>Not Found</body></html>');
		});
		await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
		try {
			const webUrl = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
			const notApi = await server.rest<{ status: string; message: string }>('POST', '/rest/credentials/test', body({ ...good.data, baseUrl: webUrl }));
			expect(notApi.status).toBe('Error');
			expect(notApi.message).toContain("The credential's Base URL did not answer as the Personnel Data API");
		} finally {
			await new Promise<void>((resolve) => web.close(() => resolve()));
		}

		// A credential saved by 0.1 with Environment Production: refused naming Base URL.
		const { baseUrl: _unused, ...withoutAddress } = good.data;
		const retired = await server.rest<{ status: string; message: string }>('POST', '/rest/credentials/test', body({ ...withoutAddress, environment: 'production' }));
		expect(retired.status).toBe('Error');
		expect(retired.message).toContain('Base URL (credential) is empty: this credential was saved with Environment "Production"');
	});

	test('8. The trigger, activated, emits exactly the changes made after activation', async () => {
		// Poll Times "Custom" with a fixed second: one poll a minute, as "Every Minute" (which
		// picks a random second), but at a second chosen to come soon after the changes below.
		const second = (new Date().getUTCSeconds() + 15) % 60;
		const stored = await server.getWorkflow(WF.trigger);
		const nodes = stored.nodes.map((node) =>
			node.name === TRIGGER_NODE
				? { ...node, parameters: { ...node.parameters, pollTimes: { item: [{ mode: 'custom', cronExpression: `${second} * * * * *` }] } } }
				: node,
		);
		await server.rest('PATCH', `/rest/workflows/${WF.trigger}`, { ...stored, nodes });
		await server.activateWorkflow(WF.trigger);
		expect((await server.getWorkflow(WF.trigger)).active).toBe(true);
		// Activation polled once (mode "trigger"): it only remembered where the changes stand.
		expect(await server.listExecutions(WF.trigger)).toEqual([]);

		await sleep(1100); // a later updated_at than anything the activation poll saw
		const created = sim().createRecords('employees', 2, { restricted: false }).map((r) => r.id);
		const touched = sim()
			.touchRecords('employees', [ids.allowed, ids.allowed2], { changes: { phone2: '+46 70 555 55 55' } })
			.map((r) => r.id);
		const expected = [...created, ...touched].sort();

		const [summary] = await server.waitForExecutions(WF.trigger, 1, 140_000);
		const execution = await server.getExecution(summary.id);
		expect(execution.mode).toBe('trigger');
		const emitted = items(execution, TRIGGER_NODE).map((r) => String(r.id));
		expect(new Set(emitted).size).toBe(emitted.length);
		expect([...emitted].sort()).toEqual(expected);

		const wf = await server.getWorkflow(WF.trigger);
		expect(JSON.stringify(wf.staticData ?? {})).toContain(`node:${TRIGGER_NODE}`);
		await server.deactivateWorkflow(WF.trigger);
	}, 200_000);

	test('9. An access token that expires during a long Return All is re-provisioned without the user noticing', async () => {
		// Tokens carry whole-second expiries, so a 3 s token lives 2–3 s: always longer than one
		// request (1.5 s of latency), never as long as the three pages of the Return All (4.5 s+).
		sim().setTokenTtl(3);
		sim().setFaults({ latencyMs: 1500, applyToProvisioning: false });
		sim().resetStats();
		sim().clearRequests();
		const started = Date.now();
		const execution = await run(WF.tokenExpiry);
		const elapsedMs = Date.now() - started;
		const got = items(execution, 'All employees').map((r) => String(r.id));
		const expected = visibleEmployees().map((r) => r.id);
		expect(new Set(got).size).toBe(got.length);
		expect([...got].sort()).toEqual([...expected].sort());

		const stats = sim().stats();
		const provisionings = stats.provisioning.refresh;
		expect(elapsedMs).toBeGreaterThan(4500); // the run outlived a token
		expect(provisionings).toBeGreaterThan(1);
		// Every page that reached the API was answered with records in the end. Far away, the node may
		// also have asked for the listing's other end (one record, newest first) beside its third page.
		const pages = apiRequests().filter((r) => r.path === '/v1/org/employees');
		const otherEnd = (r: { rawQuery: string }) => decodeURIComponent(r.rawQuery).includes('order[direction]=desc');
		expect(pages.filter((r) => r.status === 200 && !otherEnd(r)).length).toBe(Math.ceil(expected.length / 100));
		expect(pages.filter((r) => r.status === 200 && otherEnd(r)).length).toBeLessThanOrEqual(1);
		expect(pages.every((r) => r.status === 200 || r.status === 401)).toBe(true);
	});
	test('10. Another customer\'s fields: the form lists them from its records, a workflow filters and writes them', async () => {
		// The editor's call for the Filters › Field choices, through n8n's REST API.
		remapped.sim.clearRequests();
		const choices = await server.rest<Array<{ name: string; value: string }>>('POST', '/rest/dynamic-node-parameters/options', {
			nodeTypeAndVersion: { name: 'n8n-nodes-personnel-data.personnelData', version: 1 },
			methodName: 'getFilterFields',
			path: 'filters.filter.field',
			currentNodeParameters: { resource: 'employee', operation: 'getMany' },
			credentials: { personnelDataApi: REMAPPED },
		});
		expect(choices.map((choice) => choice.value)).toEqual(expect.arrayContaining(['organizational_unit_id', 'employment_start_date', 'deleted_at', 'updated_at']));
		expect(remapped.sim.requests().filter((r) => r.path === '/v1/org/employees')).toHaveLength(1);

		// The two earliest starters of the unit, worked out before the workflow changes their start dates.
		const expected = remapped.sim
			.getRecords('employees')
			.filter((r) => r.organizational_unit_id === unitId)
			.sort((a, b) => String(a.employment_start_date).localeCompare(String(b.employment_start_date)) || (a.id < b.id ? -1 : 1))
			.slice(0, 2)
			.map((r) => r.id);
		expect(expected).toHaveLength(2);
		remapped.sim.clearRequests();
		const execution = await run(WF.discovered);
		expect(items(execution, 'Employees of one unit').map((r) => r.id)).toEqual(expected);
		const list = remapped.sim.requests().find((r) => r.path === '/v1/org/employees');
		expect(decodeURIComponent(list?.rawQuery ?? '')).toContain(`filters[organizational_unit_id][value]=${unitId}`);

		const written = items(execution, 'Write their own fields');
		expect(written.map((r) => r.id)).toEqual(expected);
		for (const record of remapped.sim.getRecords('employees', expected)) {
			expect(record.employment_start_date).toBe('2018-08-01');
			expect((record.properties as Record<string, unknown>).weekly_hours).toEqual([{ valid_from: '2026-03-01', value: 30 }]);
		}
		const patches = remapped.sim.requests().filter((r) => r.method === 'PATCH');
		expect(patches.map((r) => r.body)).toEqual(
			expected.map(() => ({ data: { employment_start_date: '2018-08-01', properties: { weekly_hours: [{ valid_from: '2026-03-01', value: 30 }] } } })),
		);
	});

	test('11. A proxy\'s HTML page (200) in the middle of a Return All fails the execution instead of returning a short list', async () => {
		sim().clearRequests();
		// Page 1 is real; the first request that follows a cursor gets an HTML login page with 200.
		sim().queueFault({ pathPrefix: '/v1/org/employees', queryIncludes: 'pagination%5Bafter%5D', status: 'html200', count: 1 });
		const executionId = await server.runFromTrigger(WF.returnAll, 'Start');
		const execution = await server.waitForExecution(executionId, 120_000);
		expect(execution.status).toBe('error');
		const error = nodeError(execution.data.resultData, 'All employees');
		expect(error?.message).toBe('The Personnel Data API answered GET /v1/org/employees with 200 but expected JSON, got text/html, 55 bytes');
		expect(items(execution, 'All employees')).toEqual([]);
		const pages = apiRequests().filter((r) => r.path === '/v1/org/employees');
		expect(pages.map((r) => r.fault ?? r.status)).toEqual([200, 'html200']);
	});
});
