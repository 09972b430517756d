/**
 * The Personnel Data Trigger on n8n's distributed engine: active on the main (which polls), its
 * executions on two workers. Bursts larger than a page, faults, a worker killed mid-execution and
 * the main restarted between two polls; every change must reach exactly one execution. Then the
 * same trigger under n8n's durable scheduler, with durable poll cursors on and off.
 *
 * Poll Times holds four "Custom" entries (seconds 0, 15, 30 and 45 of every minute): n8n allows at
 * most one poll a minute per entry, and several entries are an ordinary setting, so polls come
 * every 15 s and the suite stays within minutes.
 */
import type { SimRecord } from '../../../scripts/simulator/types';
import { startSimulator, type RunningSimulator } from '../../../scripts/simulator/server';
import { assertPackageBuilt, importCredentials, importWorkflow, type WorkflowFile } from '../../../scripts/n8n/driver';
import { PROCESS_NAME_VARIABLE, startPostgres, startQueueCluster, startRedis, type Postgres, type QueueCluster, type Redis } from '../queue';
import { actionNode, byId, linkedWorkflow, setFieldNode, triggerNode, type CredentialRef } from '../../../scripts/n8n/driver/workflowBuilders';
import { credentialFile } from './measure';
import { changesOf, emittedExecutions, pollTimes, tally, type EmittedExecution } from './triggerLedger';

declare const N8N_KEY: string;
const key = N8N_KEY;

assertPackageBuilt();

const CREDENTIAL: CredentialRef = { id: 'pdQueueTrig0001', name: 'Personnel Data (queue trigger e2e)' };
const WORKFLOW_ID = 'pdQueueTrigger1';
const TRIGGER = 'Employee changes';
const POLL_EVERY_S = 15;
const POLL_TIMES = [0, 15, 30, 45].map((second) => `${second} * * * * *`);
const EMPLOYEES_PATH = '/v1/org/employees';
/** More than one page (the API's largest page is 100). */
const BURST = 130;
/** Bull's job lock, short so that a killed worker's job is declared stalled within seconds. */
const SHORT_LOCKS = { QUEUE_WORKER_LOCK_DURATION: '8000', QUEUE_WORKER_LOCK_RENEW_TIME: '2000', QUEUE_WORKER_STALLED_INTERVAL: '4000' };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Trigger → which process runs the execution → one Get per change (work that takes time). */
function triggerFlow(competenceId: string): WorkflowFile {
	return linkedWorkflow(WORKFLOW_ID, 'Queue e2e: employee changes', [
		triggerNode(TRIGGER, CREDENTIAL, { resource: 'employee', event: 'createdOrUpdated' }, POLL_TIMES),
		setFieldNode('Worker', 'worker', `={{ $env.${PROCESS_NAME_VARIABLE} }}`),
		actionNode('Competence per change', CREDENTIAL, { resource: 'competence', operation: 'get', id: byId(competenceId), simplify: false }, {
			onError: 'continueRegularOutput',
		}),
	]);
}

/** One cluster with the trigger workflow active, the simulator, and the changes made so far. */
class TriggerRun {
	readonly expected = new Set<string>();
	private employeeCursor = 0;

	constructor(
		readonly simulator: RunningSimulator,
		readonly cluster: QueueCluster,
		/** Sequence number of the simulator's first request of this run. */
		private readonly firstRequest: number,
	) {}

	get sim() {
		return this.simulator.sim;
	}

	static async start(simulator: RunningSimulator, env: Record<string, string>, infra: { postgres: Postgres; redis: Redis }, workers = 2) {
		const cluster = await startQueueCluster(key, { workers, env: { ...SHORT_LOCKS, ...env }, ...infra });
		try {
			await importCredentials(cluster.main.folder, [credentialFile(CREDENTIAL, simulator)]);
			await importWorkflow(cluster.main.folder, triggerFlow(simulator.sim.getRecords('competences')[0].id));
			const firstRequest = (simulator.sim.requests(1)[0]?.seq ?? 0) + 1;
			await cluster.main.activateWorkflow(WORKFLOW_ID);
			// n8n 2.x applies a publication asynchronously: the activation poll (which asks the API
			// for its newest change, newest first, and starts there) may come after the REST call
			// returned. Changes made before that request are "existing"; later ones are sent.
			const deadline = Date.now() + 60_000;
			const activationPolled = () =>
				simulator.sim
					.requests()
					.filter((r) => r.seq >= firstRequest)
					.some((r) => r.path === EMPLOYEES_PATH && decodeURIComponent(r.rawQuery).includes('[direction]=desc'));
			while (!activationPolled()) {
				if (Date.now() > deadline) throw new Error('the activation poll did not reach the API');
				await sleep(200);
			}
			return new TriggerRun(simulator, cluster, firstRequest);
		} catch (error) {
			await cluster.stop();
			throw error;
		}
	}

	/** `count` employees not touched before in this run (each change is then a new record state). */
	nextEmployees(count: number): string[] {
		const all = this.sim.getRecords('employees');
		const ids = all.slice(this.employeeCursor, this.employeeCursor + count).map((r) => r.id);
		this.employeeCursor += count;
		if (ids.length < count) throw new Error('the simulator ran out of employees for this run');
		return ids;
	}

	record(records: SimRecord[]): SimRecord[] {
		for (const change of changesOf(records)) this.expected.add(change);
		return records;
	}

	/** A burst: `count` employees changed at one shared timestamp. */
	burst(count: number, timestamp?: string): SimRecord[] {
		return this.record(this.sim.touchRecords('employees', this.nextEmployees(count), { sameTimestamp: true, timestamp }));
	}

	create(count: number): SimRecord[] {
		return this.record(this.sim.createRecords('employees', count));
	}

	/** What each execution was seen to hold, over time. */
	private readonly observed = new Map<string, EmittedExecution>();

	/**
	 * The executions of the trigger, each with every change it was ever seen holding: n8n replaces
	 * the stored data of an execution whose worker died by the error alone, and the changes it had
	 * received must still count as emitted (once).
	 */
	async executions(): Promise<EmittedExecution[]> {
		for (const execution of await emittedExecutions(this.cluster, WORKFLOW_ID, TRIGGER)) {
			const before = this.observed.get(execution.id);
			const changes = [...new Set([...(before?.changes ?? []), ...execution.changes])];
			this.observed.set(execution.id, { ...execution, worker: execution.worker ?? before?.worker, changes });
		}
		return [...this.observed.values()];
	}

	/** The changes an execution holds in n8n's database now. */
	async storedChanges(id: string): Promise<string[]> {
		const stored = (await emittedExecutions(this.cluster, WORKFLOW_ID, TRIGGER)).find((e) => e.id === id);
		return stored?.changes ?? [];
	}

	/** Waits until every change made so far reached an execution. */
	async untilEmitted(timeoutMs = 4 * POLL_EVERY_S * 1000): Promise<EmittedExecution[]> {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const executions = await this.executions();
			const { lost } = tally(this.expected, executions);
			if (lost.length === 0) return executions;
			if (Date.now() > deadline) throw new Error(`${lost.length} of ${this.expected.size} changes not emitted after ${timeoutMs} ms`);
			await sleep(1000);
		}
	}

	/**
	 * Waits until `records` reached executions, but gives up quietly after `polls` more polls:
	 * for settings that lose changes (the final tally tells).
	 */
	async settle(records: readonly SimRecord[], polls = 2): Promise<void> {
		const wanted = new Set(changesOf(records));
		const target = this.polls().length + polls;
		const deadline = Date.now() + (polls + 3) * POLL_EVERY_S * 1000;
		while (tally(wanted, await this.executions()).lost.length > 0) {
			if (this.polls().length >= target || Date.now() > deadline) return;
			await sleep(1000);
		}
	}

	/** Polls of this run that reached the API. */
	polls(): number[] {
		return pollTimes(this.sim.requests().filter((r) => r.seq >= this.firstRequest), EMPLOYEES_PATH);
	}

	/** Waits for `count` more polls to reach the API. */
	async nextPolls(count: number): Promise<void> {
		const target = this.polls().length + count;
		const deadline = Date.now() + (count + 2) * POLL_EVERY_S * 1000;
		while (this.polls().length < target) {
			if (Date.now() > deadline) throw new Error(`no ${count} polls within ${(count + 2) * POLL_EVERY_S} s`);
			await sleep(500);
		}
	}
}

describe(`the trigger on n8n's distributed engine (queue mode, ${key})`, () => {
	let simulator: RunningSimulator;
	let postgres: Postgres;
	let redis: Redis;

	beforeAll(async () => {
		simulator = await startSimulator({ seed: 23, requestLogCapacity: 100_000, sizes: { employees: 1200 } });
		[postgres, redis] = await Promise.all([startPostgres(), startRedis()]);
	}, 120_000);

	afterAll(async () => {
		await redis?.stop();
		await postgres?.stop();
		await simulator?.close();
	}, 60_000);

	test('over 8+ polls with bursts, faults, a killed worker and a restarted main, every change reaches exactly one execution', async () => {
		const run = await TriggerRun.start(simulator, {}, { postgres, redis });
		const { cluster, sim } = run;
		const report: Record<string, unknown> = {};
		try {
			// Activation polled once and only noted where the changes stand.
			expect(await run.executions()).toEqual([]);

			// 1. New records, then a burst larger than a page, all at one (the newest) timestamp.
			run.create(5);
			const burst = run.burst(BURST);
			await run.untilEmitted();

			// 2. More records at exactly that timestamp, arriving after the poll that read it
			//    (the trigger's watermark): new ids there are emitted, those sent are not.
			run.burst(20, String(burst[0].updated_at));
			await run.untilEmitted();

			// 3. A poll that fails outright: every attempt at the list answers 503. Nothing is
			//    emitted; the next poll reads the same window again.
			sim.queueFault({ pathPrefix: EMPLOYEES_PATH, method: 'GET', status: 503, count: 5 });
			run.burst(BURST);
			const failedPollAt = Date.now();
			await run.untilEmitted();
			expect(sim.getFaults().queue).toEqual([]);

			// 4. Random faults (500s, dropped connections) over a multi-page poll.
			sim.setFaults({ rate500: 0.2, rateDrop: 0.05 });
			run.burst(BURST);
			run.create(3);
			try {
				await run.untilEmitted();
			} finally {
				sim.setFaults({ rate500: 0, rateDrop: 0 });
			}

			// 5. A worker killed while it runs an execution of the trigger.
			sim.setFaults({ latencyMs: 60 });
			const killedChanges = new Set(changesOf(run.burst(BURST)));
			const running = await waitForRunning(run, killedChanges);
			const victim = cluster.workers.find((w) => w.startedExecutions().includes(running.id));
			if (!victim) throw new Error(`no worker logged execution ${running.id}`);
			await victim.kill();
			sim.setFaults({ latencyMs: 0 });
			const killed = await waitForStatus(run, running.id, (s) => !['new', 'running'].includes(s), 90_000);
			report.killedExecution = {
				id: killed.id,
				worker: victim.name,
				status: killed.status,
				error: killed.error,
				changesReceived: killed.changes.length,
				changesStillStored: (await run.storedChanges(killed.id)).length,
			};
			// The execution had received the whole burst (and no other execution will: see the tally).
			expect(new Set(killed.changes)).toEqual(killedChanges);
			expect(killed.status).not.toBe('success');
			// n8n does not run it again by itself; a retry (as from the execution list) runs
			// whatever input n8n still holds for it, on the surviving worker.
			await cluster.main.rest('POST', `/rest/executions/${killed.id}/retry`, { loadWorkflow: false });
			const retry = await waitForRetry(run, killed.id);
			report.retryExecution = { id: retry.id, status: retry.status, worker: retry.worker, changes: retry.changes.length, error: retry.error };
			await cluster.addWorker();

			// 6. The main restarted between two polls; changes made while it was down.
			await cluster.restartMain(async () => {
				run.burst(110);
				run.create(4);
			});
			await run.untilEmitted();

			// 7. Quiet polls: nothing new, nothing emitted again.
			run.create(2);
			await run.untilEmitted();
			await run.nextPolls(2);

			const executions = await run.executions();
			const result = tally(run.expected, executions);
			const polls = run.polls();
			report.polls = polls.length;
			report.tally = { ...result, lost: result.lost.length, unexpected: result.unexpected.length };
			report.executions = executions.map((e) => ({
				id: e.id,
				status: e.status,
				mode: e.mode,
				worker: e.worker,
				changes: e.changes.length,
				...(e.otherItems ? { otherItems: e.otherItems } : {}),
				...(e.error ? { error: e.error.slice(0, 160) } : {}),
			}));
			report.failedPollRecovered = polls.some((at) => at > failedPollAt);
			console.log(`[queue] trigger in queue mode (${key}):\n${JSON.stringify(report, null, 1)}`);

			expect(polls.length).toBeGreaterThanOrEqual(8);
			expect(result.lost).toEqual([]);
			expect(result.repeated).toEqual({});
			expect(result.unexpected).toEqual([]);
			// Executions ran on the workers, never on the main.
			const workers = new Set(executions.map((e) => e.worker).filter((w) => w !== undefined));
			expect([...workers].every((w) => String(w).startsWith('worker-'))).toBe(true);
		} catch (error) {
			const executions = await run.executions().catch(() => []);
			console.log(
				`[queue] trigger run failed; so far: ${JSON.stringify(report)}\npolls: ${run.polls().length}\n` +
					executions.map((e) => JSON.stringify({ ...e, changes: e.changes.length })).join('\n'),
			);
			throw error;
		} finally {
			await cluster.stop();
		}
	}, 720_000);
});

/** n8n's durable scheduler taking over poll triggers (n8n ≥ 2.36), its executor and materializer fast. */
const DURABLE_SCHEDULER = {
	N8N_SCHEDULER_ENABLED: 'true',
	N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true',
	N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'true',
	N8N_SCHEDULER_EXECUTOR_INTERVAL: '1',
	N8N_SCHEDULER_MATERIALIZATION_INTERVAL: '1',
};

describe(`the trigger under n8n's durable scheduler, durable poll cursors on and off (${key})`, () => {
	let simulator: RunningSimulator;
	let postgres: Postgres;
	let redis: Redis;
	const outcomes: Record<string, Record<string, unknown>> = {};

	beforeAll(async () => {
		simulator = await startSimulator({ seed: 29, requestLogCapacity: 100_000, sizes: { employees: 1200 } });
		[postgres, redis] = await Promise.all([startPostgres(), startRedis()]);
	}, 120_000);

	afterAll(async () => {
		console.log(`[queue] durable poll cursors (${key}):\n${JSON.stringify(outcomes, null, 1)}`);
		await redis?.stop();
		await postgres?.stop();
		await simulator?.close();
	}, 60_000);

	/** Changes right after activation, a burst, changes while the main is down; what reached executions. */
	async function scenario(durableCursors: boolean) {
		const run = await TriggerRun.start(
			simulator,
			{ ...DURABLE_SCHEDULER, N8N_POLLER_DURABLE_CURSORS_ENABLED: String(durableCursors) },
			{ postgres, redis },
			1,
		);
		try {
			// Right after the activation poll, before the first scheduled one.
			await run.settle(run.create(3));
			await run.settle(run.burst(BURST));
			let whileDown: SimRecord[] = [];
			await run.cluster.restartMain(async () => {
				whileDown = run.burst(110);
			});
			await run.settle(whileDown);
			await run.settle(run.create(2));
			const result = tally(run.expected, await run.executions());
			const cursors = await run.cluster.query<{ cursor: unknown }>('SELECT cursor FROM poller_state');
			const staticData = await run.cluster.query<{ staticData: unknown }>(`SELECT "staticData" FROM workflow_entity WHERE id = '${WORKFLOW_ID}'`);
			const outcome = {
				polls: run.polls().length,
				expected: result.expected,
				lost: result.lost.length,
				repeated: Object.keys(result.repeated).length,
				unexpected: result.unexpected.length,
				stateIn: cursors.length > 0 ? 'poller_state' : 'workflow static data',
				staticDataKept: JSON.stringify(staticData[0]?.staticData ?? null).includes('watermark'),
			};
			outcomes[`durable cursors ${durableCursors ? 'on' : 'off'}`] = outcome;
			return { result, outcome };
		} finally {
			await run.cluster.stop();
		}
	}

	test('durable poll cursors off: the trigger keeps its state in static data', async () => {
		const { result, outcome } = await scenario(false);
		expect(outcome.stateIn).toBe('workflow static data');
		expect(result.repeated).toEqual({});
		expect(result.unexpected).toEqual([]);
		expect(result.lost).toEqual([]);
	}, 600_000);

	test('durable poll cursors on: the state lives in poller_state, committed with each execution', async () => {
		const { result, outcome } = await scenario(true);
		expect(outcome.stateIn).toBe('poller_state');
		// n8n 2.41 drops the cursor the activation poll staged (it runs as a test poll); the
		// trigger's in-process memory of its last state bridges the gap to the first scheduled
		// poll on the same main, so the changes made in between are not lost.
		expect(result.repeated).toEqual({});
		expect(result.unexpected).toEqual([]);
		expect(result.lost).toEqual([]);
	}, 600_000);
});

async function waitForRunning(run: TriggerRun, changes: ReadonlySet<string>): Promise<EmittedExecution> {
	const deadline = Date.now() + 4 * POLL_EVERY_S * 1000;
	for (;;) {
		const found = (await run.executions()).find((e) => e.changes.some((c) => changes.has(c)));
		if (found?.status === 'running') return found;
		if (found && found.status !== 'new') throw new Error(`execution ${found.id} was already ${found.status} before the worker could be killed`);
		if (Date.now() > deadline) throw new Error('the burst never reached a running execution');
		await sleep(200);
	}
}

async function waitForStatus(run: TriggerRun, id: string, done: (status: string) => boolean, timeoutMs: number): Promise<EmittedExecution> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const found = (await run.executions()).find((e) => e.id === id);
		if (found && done(found.status)) return found;
		if (Date.now() > deadline) throw new Error(`execution ${id} still ${found?.status}`);
		await sleep(1000);
	}
}

async function waitForRetry(run: TriggerRun, originalId: string): Promise<EmittedExecution> {
	const deadline = Date.now() + 120_000;
	for (;;) {
		const rows = await run.cluster.query<{ id: number; status: string }>(
			`SELECT id, status FROM execution_entity WHERE "retryOf" = '${originalId}' ORDER BY id`,
		);
		const finished = rows.find((r) => !['new', 'running', 'waiting'].includes(r.status));
		if (finished) {
			const all = await run.executions();
			const retry = all.find((e) => e.id === String(finished.id));
			if (retry) return retry;
		}
		if (Date.now() > deadline) throw new Error(`no finished retry of execution ${originalId}: ${JSON.stringify(rows)}`);
		await sleep(1000);
	}
}
