/**
 * The action node on n8n's distributed engine (queue mode: PostgreSQL, Redis, one main, two
 * workers; test/e2e/queue.ts): production executions fired through a Webhook trigger, 20 at once,
 * run on the workers against the simulator in this process. Checked on the executions n8n stored
 * and on the simulator's data and request log.
 *
 * Each test has its own workflow, webhook path and credential, and its own batch of markers: what
 * it checks in the simulator's log is its own batch's, so a late execution of another test cannot
 * count as its own. Calls are fired only once n8n serves the webhook (waitForWebhook), and a test
 * waits for the execution of every call n8n accepted before it judges the answers.
 */
import { randomBytes } from 'node:crypto';

import type { RequestLogEntry } from '../../../scripts/simulator/requestLog';
import { startSimulator, type RunningSimulator } from '../../../scripts/simulator/server';
import {
	assertPackageBuilt,
	importCredentials,
	importWorkflow,
	nodeItems,
	waitForPublication,
	waitForWebhook,
	type ExecutionDetails,
	type WorkflowFile,
} from '../../../scripts/n8n/driver';
import { PROCESS_NAME_VARIABLE, startQueueCluster, type QueueCluster } from '../queue';
import { actionNode, linkedWorkflow, setFieldNode, webhookNode, type CredentialRef } from '../../../scripts/n8n/driver/workflowBuilders';
import { credentialFile, provisioningReport, type ProvisioningReport } from './measure';

declare const N8N_KEY: string;
const key = N8N_KEY;

assertPackageBuilt();

const ADMIN: CredentialRef = { id: 'pdQueueAdmin001', name: 'Personnel Data (queue e2e)' };
/** Used only by the short-token run, so that no token provisioned earlier is stored in it. */
const SHORT_TTL: CredentialRef = { id: 'pdQueueShort001', name: 'Personnel Data short tokens (queue e2e)' };
const WF = { writes: 'pdQueueWrites01', shortTokens: 'pdQueueTokens01' } as const;
const PATHS = { writes: 'pd-queue-writes', shortTokens: 'pd-queue-short-tokens' } as const;
const PARALLEL = 20;
const WORKERS = 2;

/** Webhook → which process runs it → one employee created → every time report (Return All). */
function webhookWorkflow(id: string, name: string, webhookPath: string, credential: CredentialRef): WorkflowFile {
	return linkedWorkflow(id, name, [
		webhookNode('Webhook', webhookPath),
		setFieldNode('Worker', 'worker', `={{ $env.${PROCESS_NAME_VARIABLE} }}`),
		actionNode('Create employee', credential, {
			resource: 'employee',
			operation: 'create',
			first_name: 'Queue',
			last_name: '={{ $json.body.marker }}',
			fields: {},
		}),
		actionNode('All time reports', credential, { resource: 'timeReport', operation: 'getMany', returnAll: true, simplify: false }),
	]);
}

interface RunSummary {
	/** The prefix of this run's markers. */
	batch: string;
	executions: ExecutionDetails[];
	/** Execution id → the process that ran it, as the workflow itself saw it ($env). */
	workerOf: Map<string, string>;
	/** Marker sent in the webhook body → execution id. */
	executionOfMarker: Map<string, string>;
}

describe(`the action node on n8n workers (queue mode, ${key})`, () => {
	let simulator: RunningSimulator;
	let cluster: QueueCluster;
	const sim = () => simulator.sim;

	beforeAll(async () => {
		simulator = await startSimulator({ seed: 17, requestLogCapacity: 20_000 });
		cluster = await startQueueCluster(key, { workers: WORKERS });
		await importCredentials(cluster.main.folder, [credentialFile(ADMIN, simulator), credentialFile(SHORT_TTL, simulator)]);
		await importWorkflow(cluster.main.folder, [
			webhookWorkflow(WF.writes, 'Queue e2e: writes and Return All', PATHS.writes, ADMIN),
			webhookWorkflow(WF.shortTokens, 'Queue e2e: short-lived tokens', PATHS.shortTokens, SHORT_TTL),
		]);
		for (const name of ['writes', 'shortTokens'] as const) {
			await cluster.main.activateWorkflow(WF[name]);
			expect((await waitForPublication(cluster.main, WF[name])).status).toMatch(/^(published|synchronous)$/);
			await waitForWebhook(cluster.main, PATHS[name]);
		}
	}, 420_000);

	afterAll(async () => {
		await cluster?.stop();
		await simulator?.close();
	}, 120_000);

	/** Fires PARALLEL webhook calls at once, each with its own marker; waits for every execution. */
	async function fire(workflowId: string, webhookPath: string): Promise<RunSummary> {
		const batch = `queue-${randomBytes(3).toString('hex')}-`;
		const markers = Array.from({ length: PARALLEL }, (_, i) => `${batch}${String(i).padStart(2, '0')}`);
		const answers = await Promise.all(
			markers.map((marker) =>
				fetch(cluster.webhookUrl(webhookPath), {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: JSON.stringify({ marker }),
				}).then(async (r) => ({ status: r.status, body: await r.text() })),
			),
		);
		// What n8n accepted runs to its end before the answers are judged: no execution of this test
		// is still writing when the next one starts.
		const accepted = answers.filter((answer) => answer.status === 200).length;
		const summaries = accepted ? await cluster.main.waitForExecutions(workflowId, accepted, 240_000) : [];
		for (const answer of answers) expect(answer).toMatchObject({ status: 200 });
		expect(summaries).toHaveLength(PARALLEL);
		const executions = await Promise.all(summaries.map((s) => cluster.main.getExecution(s.id)));
		const workerOf = new Map<string, string>();
		const executionOfMarker = new Map<string, string>();
		for (const execution of executions) {
			const [worker] = nodeItems(execution.data.resultData, 'Worker');
			workerOf.set(execution.id, String(worker.worker));
			const body = worker.body as { marker?: unknown };
			expect(markers).toContain(body.marker);
			expect(executionOfMarker.has(String(body.marker))).toBe(false);
			executionOfMarker.set(String(body.marker), execution.id);
		}
		expect([...executionOfMarker.keys()].sort()).toEqual(markers);
		return { batch, executions, workerOf, executionOfMarker };
	}

	/** Every execution: production (webhook) mode, success, the exact Return All, one employee created. */
	function expectAllSucceeded(run: RunSummary) {
		const visibleTimeReports = new Set(sim().getRecords('timeReports').map((r) => r.id));
		for (const hidden of sim().hiddenIds().timeReports) visibleTimeReports.delete(hidden);
		for (const execution of run.executions) {
			const failure = execution.data.resultData.error?.message;
			expect({ id: execution.id, status: execution.status, failure }).toEqual({ id: execution.id, status: 'success', failure: undefined });
			expect(execution.mode).toBe('webhook');
			const reports = nodeItems(execution.data.resultData, 'All time reports').map((r) => String(r.id));
			expect(reports).toHaveLength(visibleTimeReports.size);
			expect(new Set(reports)).toEqual(visibleTimeReports);
			expect(nodeItems(execution.data.resultData, 'Create employee')).toHaveLength(1);
		}
	}

	/** Each marker of the run was POSTed exactly once (simulator request log) and exists once in its data. */
	function expectOneWriteEach(run: RunSummary, requests: RequestLogEntry[]) {
		const markerOf = (r: RequestLogEntry) => String((r.body as { data?: { last_name?: unknown } } | undefined)?.data?.last_name);
		const posts = requests.filter((r) => r.method === 'POST' && r.path === '/v1/org/employees' && markerOf(r).startsWith(run.batch));
		// A POST the server refused with 401 (its token had just expired) was not acted on: the node
		// renews and sends it again. Every other POST is a create that happened.
		const creates = posts.filter((r) => r.status !== 401);
		const markers = [...run.executionOfMarker.keys()].sort();
		expect(creates.map(markerOf).sort()).toEqual(markers);
		expect(creates.every((r) => r.status === 201 || r.status === 200)).toBe(true);
		const stored = sim()
			.getRecords('employees')
			.map((r) => String(r.last_name))
			.filter((name) => markers.includes(name));
		expect(stored.sort()).toEqual(markers);
	}

	/** The worker of each execution: from the workflow ($env) and from the worker's own log. */
	function workerDistribution(run: RunSummary): Record<string, number> {
		const counts: Record<string, number> = {};
		for (const [executionId, worker] of run.workerOf) {
			counts[worker] = (counts[worker] ?? 0) + 1;
			const logged = cluster.workers.filter((w) => w.startedExecutions().includes(executionId)).map((w) => w.name);
			expect({ executionId, logged }).toEqual({ executionId, logged: [worker] });
		}
		return counts;
	}

	test(`${PARALLEL} production executions at once run on the workers: exact Return All, one write each`, async () => {
		sim().clearRequests();
		const run = await fire(WF.writes, PATHS.writes);
		const perWorker = workerDistribution(run);
		console.log(`[queue] ${PARALLEL} webhook executions per process: ${JSON.stringify(perWorker)}`);
		expectAllSucceeded(run);
		expectOneWriteEach(run, sim().requests());
		// Both workers took executions; the main only enqueued them.
		expect(Object.keys(perWorker).sort()).toEqual(cluster.workers.map((w) => w.name).sort());
	});

	let tokenReport: ProvisioningReport;

	test('short-lived tokens while executions run on 2 workers: all succeed, provisioning bounded per lifetime', async () => {
		// 3 s tokens live 2–3 s (whole-second expiry); with 700 ms per request an execution (one
		// write, four pages) takes about 3.5 s, so the 20 executions outlive several tokens. Tokens
		// of 2 s (1–2 s, not much more than one request) made a worker renew more than once per
		// lifetime now and then: a request whose adopted tokens keep expiring in flight renews on
		// its own after three rounds (tokens.ts MAX_ADOPTIONS).
		const ttlSeconds = 3;
		sim().setTokenTtl(ttlSeconds);
		sim().setFaults({ latencyMs: 700, applyToProvisioning: false });
		sim().resetStats();
		sim().clearRequests();
		const credentialUpdatesBefore = await cluster.query<{ updated: string }>(
			`SELECT "updatedAt"::text AS updated FROM credentials_entity WHERE id = '${SHORT_TTL.id}'`,
		);
		try {
			const run = await fire(WF.shortTokens, PATHS.shortTokens);
			expectAllSucceeded(run);
			const requests = sim().requests();
			expectOneWriteEach(run, requests);
			const perWorker = workerDistribution(run);
			tokenReport = provisioningReport(requests, ttlSeconds);
			console.log(
				`[queue] short tokens (${ttlSeconds} s) on ${WORKERS} workers ${JSON.stringify(perWorker)}:\n` +
					JSON.stringify(tokenReport, null, 1),
			);
			const credentialUpdatesAfter = await cluster.query<{ updated: string }>(
				`SELECT "updatedAt"::text AS updated FROM credentials_entity WHERE id = '${SHORT_TTL.id}'`,
			);
			// Each renewal was written back to the shared database (the credential row changed).
			expect(credentialUpdatesAfter[0].updated).not.toBe(credentialUpdatesBefore[0].updated);
		} finally {
			sim().setFaults({ latencyMs: 0 });
			sim().setTokenTtl(3600);
		}

		// At most one provisioning per worker process per token lifetime.
		expect(tokenReport.maxProvisioningsPerLifetime).toBeLessThanOrEqual(WORKERS);
		// No 401 storm: once a 401 for a token is answered, no process sends that token again (it
		// renews, or adopts the renewed one). The 401s of requests in flight when it expired are
		// counted in the report, each refused once.
		expect(tokenReport.unauthorized).toBeGreaterThan(0);
		expect(tokenReport.refusedNamed).toBe(tokenReport.unauthorized);
		expect(tokenReport.refusedAfterLearnt).toBe(0);
		expect(tokenReport.provisionings).toBeGreaterThan(WORKERS); // the run did outlive tokens
	});
});
