/**
 * One lane of durableScheduler.e2e.test.ts: one n8n (one scheduler mode), a slow simulator, three
 * active Personnel Data Trigger workflows, a timeline of changes with an n8n restart in the middle,
 * and what the executions n8n stored delivered, per workflow (see ledger.ts for the counting).
 * Changes count from the moment n8n has finished activating (2.41 activates in the background).
 *
 * - burst:    Employee Mappings, On Activation → Resume. A burst spread over many timestamps, a
 *             burst at one timestamp (a bulk import), small changes around them.
 * - capped:   the same changes, Max Changes per Poll CAPPED_MAX_CHANGES: the one-timestamp burst
 *             is cut inside the group by the cap (four times) and by the poll budget, and later
 *             changes come after it (the trigger once stalled there, issue 35).
 * - watch:    Employees, Watch Fields `last_name`: a baseline longer than n8n's poll timeout,
 *             read over several polls (Time Budget per Poll 3 s); renames are sent, phone number
 *             changes are not.
 * - backfill: Employee Competences, On Activation → Start From a Date: several polls of records
 *             changed since the date, then the changes made meanwhile.
 */
import { startSimulator } from '../../scripts/simulator/server';
import type { ResourceName, SimRecord } from '../../scripts/simulator/types';
import {
	importCredentials,
	importWorkflow,
	loadProblems,
	prepareUserFolder,
	startServer,
	waitForPublication,
	type N8nServer,
	type N8nUserFolder,
} from '../../scripts/n8n/driver';
import { linkedWorkflow, triggerNode, type CredentialRef } from '../../scripts/n8n/driver/workflowBuilders';
import { FLOWS, Ledger, NODE, type Flow, type LaneResult } from './ledger';

/** Sizes (records) and pace; the file header explains the choice. */
export const SIZES = { burst: 4000, employees: 6000, competences: 4500, backfill: 4000, small: 20, late: 5, whileDown: 50 };
export const LATENCY_MS = 300;
/**
 * The capped workflow's Max Changes per Poll: a quarter of the one-timestamp burst, so the cap cuts
 * inside the group. 500 cut it too, but took about 17 polls, 10 s apart, and each lane waited for them.
 */
export const CAPPED_MAX_CHANGES = SIZES.burst / 4;
/** Six Poll Times entries, each once a minute (n8n refuses a shorter interval per entry): a poll about every 10 s. */
export const POLL_CRONS = [0, 10, 20, 30, 40, 50].map((second) => `${second} * * * * *`);
const POLL_PERIOD_MS = 10_000;
/** Options → Time Budget per Poll of the watch workflow (the others keep the default). */
const WATCH_BUDGET_SECONDS = 3;
/** After the burst: about two polls before the restart. */
const BEFORE_RESTART_MS = 2 * POLL_PERIOD_MS;
/** Waiting for delivery: ends when complete, after this long without any new item, or at the deadline. */
const STALL_MS = 50_000;
const DRAIN_DEADLINE_MS = 200_000;
/** After delivery: polls that must find nothing more. */
const SETTLE_MS = 15_000;

export interface LaneSpec {
	key: string;
	label: string;
	/** Environment of every `n8n start` of the lane. */
	env: Record<string, string>;
}

const CREDENTIAL: CredentialRef = { id: 'pdDsCredAdmin01', name: 'Personnel Data admin (durable e2e)' };
const WORKFLOW_IDS: Record<Flow, string> = { burst: 'pdDsBurst000001', capped: 'pdDsCapped00001', watch: 'pdDsWatch000001', backfill: 'pdDsBackfill001' };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const pairOf = (record: SimRecord) => `${record.id}@${String(record.updated_at)}`;
/** The simulator's timestamp form (six fraction digits), comparable as text. */
const stampOf = (iso: string) => `${iso.slice(0, 19)}.000000Z`;

function workflows(startDate: string) {
	const trigger = (resource: string, options: Record<string, unknown>) =>
		triggerNode(NODE, CREDENTIAL, { resource, event: 'createdOrUpdated', simplify: false, options }, POLL_CRONS);
	return [
		linkedWorkflow(WORKFLOW_IDS.burst, 'E2E durable: bursts', [trigger('employeeMapping', {})]),
		linkedWorkflow(WORKFLOW_IDS.capped, `E2E durable: bursts, Max Changes per Poll ${CAPPED_MAX_CHANGES}`, [trigger('employeeMapping', { maxChangesPerPoll: CAPPED_MAX_CHANGES })]),
		// A 3 s budget: the activation poll, which no scheduler bounds, reads only part of the 60-page
		// baseline too, so the rest is read by scheduled polls, across the restart, while renames happen.
		linkedWorkflow(WORKFLOW_IDS.watch, 'E2E durable: Watch Fields baseline', [
			trigger('employee', { watchFields: ['last_name'], timeBudgetSeconds: WATCH_BUDGET_SECONDS }),
		]),
		linkedWorkflow(WORKFLOW_IDS.backfill, 'E2E durable: backfill', [trigger('employeeCompetence', { onActivation: 'startFromDate', startDate })]),
	];
}

/** A whole second at or before the `count`-th newest change of `records`: the backfill's Start Date. */
function backfillStart(records: readonly SimRecord[], count: number): string {
	const stamps = records.map((record) => String(record.updated_at)).sort();
	return `${stamps[Math.max(0, stamps.length - count)].slice(0, 19)}.000Z`;
}

export async function runLane(spec: LaneSpec): Promise<LaneResult> {
	const started = Date.now();
	const simulator = await startSimulator({
		seed: 29,
		clockStart: new Date().toISOString(),
		sizes: { employees: SIZES.employees, employeeCompetences: SIZES.competences },
	});
	const sim = simulator.sim;
	const ledger = new Ledger(spec, WORKFLOW_IDS, started);
	let folder: N8nUserFolder | undefined;
	let server: N8nServer | undefined;
	try {
		const competences = sim.getRecords('employeeCompetences');
		const startDate = backfillStart(competences, SIZES.backfill);
		const older = competences.filter((record) => String(record.updated_at) < stampOf(startDate));
		ledger.expect('backfill', 'backfill', competences.filter((record) => String(record.updated_at) >= stampOf(startDate)).map(pairOf));
		const staff = sim.getRecords('employees');
		const take = (list: SimRecord[], count: number) => list.splice(0, count).map((record) => record.id);
		const renamed = staff.slice(0, 200);
		const phoned = staff.slice(200, 400);
		const touchable = [...older];
		/** The bursts go to both workflows on Employee Mappings. */
		const bursts = (phase: string, pairs: string[]) => {
			ledger.expect('burst', phase, pairs);
			ledger.expect('capped', phase, pairs);
		};

		const create = (resource: ResourceName, count: number) => sim.createRecords(resource, count, { restricted: false }).map(pairOf);
		const rename = (count: number, phase: string) =>
			sim.touchRecords('employees', take(renamed, count), { changes: { last_name: `Renamed ${phase}` } }).map(pairOf);
		const rephone = (count: number) => sim.touchRecords('employees', take(phoned, count), { changes: { phone1: '+46 70 000 00 00' } }).map(pairOf);
		const retouch = (count: number) => sim.touchRecords('employeeCompetences', take(touchable, count)).map(pairOf);
		/** Changes of the watch and backfill workflows in one phase. */
		const sideChanges = (phase: string, count: number) => {
			ledger.expect('watch', phase, rename(count, phase));
			ledger.tolerate('watch', rephone(count));
			ledger.expect('backfill', phase, [...retouch(count), ...create('employeeCompetences', count)]);
		};

		folder = await prepareUserFolder(spec.key);
		const { jti, refreshToken } = simulator.credentials.admin;
		await importCredentials(folder, [
			{ ...CREDENTIAL, type: 'personnelDataApi', data: { baseUrl: simulator.baseUrl, authMode: 'refreshToken', jti, refreshToken } },
		]);
		await importWorkflow(folder, workflows(startDate));
		server = await startServer(folder, { env: spec.env });
		ledger.problems.push(...loadProblems(server.logs()));
		sim.setFaults({ latencyMs: LATENCY_MS, applyToProvisioning: false });
		sim.resetStats();

		// Changes made from here on are the workflows' to send: n8n 2.41 activates in the background, so wait for it.
		for (const flow of FLOWS) await server.activateWorkflow(WORKFLOW_IDS[flow]);
		for (const flow of FLOWS) {
			const publication = await waitForPublication(server, WORKFLOW_IDS[flow]);
			if (!['published', 'synchronous'].includes(publication.status)) {
				const errors = (publication.triggers ?? []).map((trigger) => trigger.errorMessage).filter(Boolean);
				ledger.problems.push(`${flow}: activation ${publication.status}: ${errors.join('; ')}`);
			}
		}
		ledger.mark('activated');
		await sleep(1100);

		// A burst over many timestamps (one each, the clock running), with the side changes.
		bursts('spread burst', create('employeeMappings', SIZES.burst));
		sideChanges('first', SIZES.small);
		await sleep(BEFORE_RESTART_MS);
		await ledger.update(server);
		ledger.mark('restart');

		// n8n restarts in the middle of the burst, the baseline and the backfill; changes made while it is down.
		ledger.logs.push(server.logs());
		await server.stop();
		bursts('while down', create('employeeMappings', SIZES.whileDown));
		sideChanges('while down', SIZES.small);
		server = await startServer(folder, { env: spec.env });
		ledger.mark('restarted');

		// A bulk import: every record at one timestamp.
		sim.freezeClock();
		bursts('one-timestamp burst', create('employeeMappings', SIZES.burst));
		sim.unfreezeClock();
		sideChanges('after restart', SIZES.small);
		await sleep(2000);
		bursts('after the bursts', create('employeeMappings', SIZES.late));
		sideChanges('last', SIZES.late);

		const drain = async (deadlineMs: number) => {
			const deadline = Date.now() + deadlineMs;
			let lastProgress = Date.now();
			let lastCount = -1;
			for (;;) {
				await ledger.update(server as N8nServer);
				if (ledger.complete()) return;
				const count = ledger.itemCount();
				if (count !== lastCount) [lastCount, lastProgress] = [count, Date.now()];
				if (Date.now() - lastProgress > STALL_MS || Date.now() > deadline) return;
				await sleep(3000);
			}
		};
		await drain(DRAIN_DEADLINE_MS);
		ledger.mark('drained');

		// The baseline is long done: a phone number change must not come out now, a rename must.
		ledger.expect('watch', 'after the baseline', rename(SIZES.late, 'after the baseline'));
		rephone(SIZES.late);
		await drain(3 * POLL_PERIOD_MS);
		await sleep(SETTLE_MS);
		await ledger.update(server);
		ledger.mark('settled');
		ledger.logs.push(server.logs());
		ledger.requests = sim.stats().requests;
		return ledger.result(folder.userFolder);
	} finally {
		await server?.stop();
		folder?.cleanup();
		await simulator.close();
	}
}
