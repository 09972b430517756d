/**
 * The Personnel Data Trigger in real n8n, where its behaviour depends on n8n itself: an n8n
 * restart between two polls (static data as n8n saves it), and a schedule faster than the server
 * (n8n starts the next poll while one still runs). Every change must come out exactly once.
 */
import { startSimulator, type RunningSimulator } from '../../scripts/simulator/server';
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
	waitForPublication,
} from '../../scripts/n8n/driver';
import { baseNode, linkedWorkflow, triggerNode, triggerWorkflow, type CredentialRef } from '../../scripts/n8n/driver/workflowBuilders';

declare const N8N_KEY: string;
const key = N8N_KEY;

assertPackageBuilt();

const ADMIN: CredentialRef = { id: 'pdTrCredAdmin01', name: 'Personnel Data admin (trigger e2e)' };
const NODE = 'Employee changes';
const WF = { restart: 'pdTrRestart0001', fast: 'pdTrFastPoll001', dedupe: 'pdTrDedupe00001', dateStep: 'pdTrDateStep001', release: 'pdTrRelease0001' } as const;
/** docs/trigger.md's recipe: Remove Duplicates keyed on `_event.key`, after a trigger sending the last poll again. */
const DEDUPE_NODE = 'Remove Duplicates';
/** n8n 1.x and 2.8 accept a poll every few seconds; 2.41 at most one a minute per schedule entry. */
const FAST = acceptsSubMinutePolls(n8nInstance(key));
const RESTART_CRON = FAST ? '0-59/4 * * * * *' : `${(new Date().getUTCSeconds() + 30) % 60} * * * * *`;
const POLL_WAIT_MS = FAST ? 30_000 : 150_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe(`Personnel Data Trigger in ${key}`, () => {
	let simulator: RunningSimulator;
	let folder: N8nUserFolder;
	let server: N8nServer | undefined;

	const sim = () => simulator.sim;
	/**
	 * `id@updated_at` of every item every finished execution of the workflow emitted, but for copies
	 * marked `_event.possiblyRepeated` of a change already counted (n8n stopped soon after a
	 * hand-over: announced, not silent; docs/trigger.md, Liveness).
	 */
	async function emitted(workflowId: string): Promise<string[]> {
		const pairs: string[] = [];
		const markedCopies: string[] = [];
		for (const summary of await (server as N8nServer).listExecutions(workflowId)) {
			const execution = await (server as N8nServer).getExecution(summary.id);
			// One still running is counted once it has finished (a busy machine makes polls slow).
			if (execution.status === 'new' || execution.status === 'running') continue;
			expect(execution.status).toBe('success');
			for (const row of nodeItems(execution.data.resultData, NODE)) {
				const pair = `${String(row.id)}@${String(row.updated_at)}`;
				const marked = (row._event as { possiblyRepeated?: unknown } | undefined)?.possiblyRepeated === true;
				(marked ? markedCopies : pairs).push(pair);
			}
		}
		// A marked copy counts as a delivery only where no unmarked one came (the hand-over was lost).
		return [...pairs, ...markedCopies.filter((pair) => !pairs.includes(pair))];
	}
	const pairsOf = (records: Array<{ id: string; updated_at?: unknown }>) => records.map((r) => `${r.id}@${String(r.updated_at)}`);
	async function waitForPairs(workflowId: string, count: number, timeoutMs = POLL_WAIT_MS): Promise<string[]> {
		const until = Date.now() + timeoutMs;
		for (;;) {
			const pairs = await emitted(workflowId);
			if (pairs.length >= count || Date.now() > until) return pairs;
			await sleep(1000);
		}
	}

	beforeAll(async () => {
		simulator = await startSimulator({ seed: 17, clockStart: new Date().toISOString() });
		folder = await prepareUserFolder(key);
		const { jti, refreshToken } = simulator.credentials.admin;
		await importCredentials(folder, [
			{ ...ADMIN, type: 'personnelDataApi', data: { baseUrl: simulator.baseUrl, authMode: 'refreshToken', jti, refreshToken } },
		]);
		const parameters = { resource: 'employee', event: 'createdOrUpdated', simplify: false };
		await importWorkflow(folder, [
			triggerWorkflow(WF.restart, 'E2E: trigger across a restart', NODE, ADMIN, parameters, RESTART_CRON),
			triggerWorkflow(WF.fast, 'E2E: trigger faster than the server', NODE, ADMIN, parameters, '0-59 * * * * *'),
			triggerWorkflow(WF.dateStep, 'E2E: the server\'s Date clock steps forward', NODE, ADMIN, { ...parameters, options: { lookbackMinutes: 1 } }, RESTART_CRON),
			triggerWorkflow(WF.release, 'E2E: a server release writes records differently', NODE, ADMIN, { ...parameters, options: { lookbackMinutes: 1 } }, RESTART_CRON),
			linkedWorkflow(WF.dedupe, 'E2E: at least once, repeats dropped by Remove Duplicates', [
				triggerNode(NODE, ADMIN, { ...parameters, options: { onRestart: 'sendAgain' } }, RESTART_CRON),
				baseNode(DEDUPE_NODE, 'removeDuplicates', 2, {
					operation: 'removeItemsSeenInPreviousExecutions',
					logic: 'removeItemsWithAlreadySeenKeyValues',
					dedupeValue: '={{ $json._event.key }}',
					options: {},
				}),
			]),
		]);
		server = await startServer(folder);
		expect(loadProblems(server.logs())).toEqual([]);
	}, 200_000);

	afterAll(async () => {
		await server?.stop();
		folder?.cleanup();
		await simulator?.close();
	});

	test('an n8n restart between two polls: no change lost, none repeated', async () => {
		await (server as N8nServer).activateWorkflow(WF.restart);
		// n8n 2.41 activates in the background: changes made before its activation poll are old ones.
		expect((await waitForPublication(server as N8nServer, WF.restart)).status).toMatch(/^(published|synchronous)$/);
		await sleep(1100);
		const before = pairsOf(sim().createRecords('employees', 3, { restricted: false }));
		expect((await waitForPairs(WF.restart, 3)).sort()).toEqual([...before].sort());

		await (server as N8nServer).stop();
		// Changed while n8n is down.
		const during = pairsOf(sim().createRecords('employees', 4, { restricted: false }));
		server = await startServer(folder);
		// n8n activates the workflow at start ("init") with the static data it saved: it resumes.
		await sleep(1100);
		const after = pairsOf(sim().createRecords('employees', 2, { restricted: false }));
		const all = await waitForPairs(WF.restart, 9);
		expect(new Set(all).size).toBe(all.length);
		expect([...all].sort()).toEqual([...before, ...during, ...after].sort());
		await (server as N8nServer).deactivateWorkflow(WF.restart);
	}, 600_000);

	// A poll every few seconds (n8n 2.41 polls at most once a minute: the model test and
	// test/unit/changeFeed/clockSteps.test.ts cover every n8n).
	if (FAST) test('the server\'s Date clock steps an hour forward (Settle Window 1 min): the changes after it still come, each once', async () => {
		const active = server as N8nServer;
		await active.activateWorkflow(WF.dateStep);
		expect((await waitForPublication(active, WF.dateStep)).status).toMatch(/^(published|synchronous)$/);
		await sleep(1100);
		const before = pairsOf(sim().createRecords('employees', 3, { restricted: false }));
		expect((await waitForPairs(WF.dateStep, 3)).sort()).toEqual([...before].sort());
		// Believed alone, the Date clock would move the settle point an hour ahead: 59 minutes of changes never sent.
		sim().dateHeaderStepMs = 3_600_000;
		try {
			await sleep(10_000);
			const after = pairsOf(sim().createRecords('employees', 3, { restricted: false }));
			await sleep(6_000);
			const later = pairsOf(sim().createRecords('employees', 2, { restricted: false }));
			const all = await waitForPairs(WF.dateStep, 8);
			await sleep(8_000);
			const settled = await emitted(WF.dateStep);
			expect(new Set(settled).size).toBe(settled.length);
			expect([...settled].sort()).toEqual([...before, ...after, ...later].sort());
			expect(all.length).toBe(settled.length);
		} finally {
			sim().dateHeaderStepMs = 0;
		}
		await active.deactivateWorkflow(WF.dateStep);
	}, 300_000);

	if (FAST) test('a server release between two polls adds fields to every record and stops sending empty ones: nothing inside the settle window is sent again, the next change is', async () => {
		const active = server as N8nServer;
		await active.activateWorkflow(WF.release);
		expect((await waitForPublication(active, WF.release)).status).toMatch(/^(published|synchronous)$/);
		await sleep(1100);
		const before = pairsOf(sim().createRecords('employees', 4, { restricted: false }));
		expect((await waitForPairs(WF.release, 4)).sort()).toEqual([...before].sort());
		// The records inside the window are read again by every poll, now written differently.
		sim().setVariation({ unknownFields: 'present', emptyOptionalFields: 'absent' });
		try {
			await sleep(12_000);
			const after = pairsOf(sim().createRecords('employees', 2, { restricted: false }));
			await waitForPairs(WF.release, 6);
			await sleep(8_000);
			const settled = await emitted(WF.release);
			expect(new Set(settled).size).toBe(settled.length);
			expect([...settled].sort()).toEqual([...before, ...after].sort());
		} finally {
			sim().setVariation({ unknownFields: 'none', emptyOptionalFields: 'null' });
		}
		await active.deactivateWorkflow(WF.release);
	}, 300_000);

	test('Send the Last Poll Again, then Remove Duplicates on _event.key: after a restart the last poll comes again marked, and the workflow sees each change once', async () => {
		const active = server as N8nServer;
		await active.activateWorkflow(WF.dedupe);
		expect((await waitForPublication(active, WF.dedupe)).status).toMatch(/^(published|synchronous)$/);
		await sleep(1100);
		const before = pairsOf(sim().createRecords('employees', 3, { restricted: false }));
		expect((await waitForPairs(WF.dedupe, 3)).sort()).toEqual([...before].sort());
		await active.stop();
		const during = pairsOf(sim().createRecords('employees', 2, { restricted: false }));
		server = await startServer(folder);
		/** What the trigger sent, marked or not, and what Remove Duplicates let through, over every finished execution. */
		const outputs = async () => {
			const sent: Array<{ pair: string; marked: boolean }> = [];
			const through: string[] = [];
			for (const summary of await (server as N8nServer).listExecutions(WF.dedupe)) {
				const execution = await (server as N8nServer).getExecution(summary.id);
				if (execution.status === 'new' || execution.status === 'running') continue;
				for (const row of nodeItems(execution.data.resultData, NODE)) {
					sent.push({ pair: `${String(row.id)}@${String(row.updated_at)}`, marked: (row._event as { possiblyRepeated?: unknown } | undefined)?.possiblyRepeated === true });
				}
				for (const row of nodeItems(execution.data.resultData, DEDUPE_NODE)) through.push(`${String(row.id)}@${String(row.updated_at)}`);
			}
			return { sent, through };
		};
		const until = Date.now() + POLL_WAIT_MS;
		let result = await outputs();
		while (result.sent.length < 8 && Date.now() < until) {
			await sleep(1000);
			result = await outputs();
		}
		// The trigger sent the last poll again, marked (a poll that n8n starts before it saved the
		// state of the one before may send them once more, marked again); nothing unmarked came
		// twice, and Remove Duplicates dropped the copies.
		expect([...new Set(result.sent.filter((entry) => entry.marked).map((entry) => entry.pair))].sort()).toEqual([...before].sort());
		const unmarked = result.sent.filter((entry) => !entry.marked).map((entry) => entry.pair);
		expect(new Set(unmarked).size).toBe(unmarked.length);
		expect([...result.through].sort()).toEqual([...before, ...during].sort());
		await (server as N8nServer).deactivateWorkflow(WF.dedupe);
	}, 600_000);

	(FAST ? test : test.skip)('a schedule faster than the server (every second, 1.5 s a request): each change once', async () => {
		const active = server as N8nServer;
		await active.activateWorkflow(WF.fast);
		sim().setFaults({ latencyMs: 1500, applyToProvisioning: false });
		const pairs: string[] = [];
		for (let round = 0; round < 3; round++) {
			pairs.push(...pairsOf(sim().createRecords('employees', 120, { restricted: false })));
			await sleep(2500);
		}
		const all = await waitForPairs(WF.fast, pairs.length, 120_000);
		// Settle: later polls find nothing new.
		await sleep(8000);
		const settled = await emitted(WF.fast);
		sim().setFaults({ latencyMs: 0 });
		expect([...settled].sort()).toEqual([...all].sort());
		expect(new Set(all).size).toBe(all.length);
		expect([...all].sort()).toEqual([...pairs].sort());
		await active.deactivateWorkflow(WF.fast);
	}, 300_000);
});
