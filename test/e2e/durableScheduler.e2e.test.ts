/**
 * Issue 29, end to end: every change exactly once — none lost, none repeated, counted from the
 * executions n8n stored — on n8n 2.41's durable scheduler (durable cursors on and off) with its poll
 * timeout lowered to 8 s, and on n8n's default scheduler (2.41 without the scheduler, 2.8.4).
 *
 * Each lane is one n8n with three active trigger workflows (durableLanes.ts): bursts of changes
 * spread over many timestamps and at one timestamp, a Watch Fields baseline, a backfill from a
 * date, and an n8n restart in the middle of all of them, against a simulator answering in 300 ms.
 *
 * Sizes, chosen for CI's budget of about 10 minutes per n8n version (2.41 runs two lanes of
 * about 4 minutes in CI, three with N8N_E2E_DURABLE_LANES=all; 2.8.4 and 1.123 one):
 * - n8n gives a poll on the durable scheduler a budget of timeout − max(20 %, 5 s), at most half:
 *   4 s of an 8 s timeout (trigger-execution-context.factory.js), about 13 pages of 100 at
 *   300 ms; within the timeout itself a poll reads at most about 26 pages. Each burst is 4,000
 *   records (40 pages), three times a poll's budget and one and a half times the timeout; the
 *   baseline reads 6,000 employees (60 pages, 18 s); the backfill 4,000 competences (40 pages).
 * - Poll Times: six entries, each once a minute at seconds 0, 10, … 50. n8n refuses a sub-minute
 *   cron expression one by one (active-workflow-triggers.js: isSubMinuteCron) but not several;
 *   the durable scheduler keeps a custom expression's seconds (poll-trigger-job-registrar.js:
 *   seededCron), its executor claims due tasks every 5 s: a poll about every 10 s.
 * - A lane ends when every workflow delivered all it should, or after 50 s without a new item
 *   (a lane that loses changes), then waits 15 s more for polls that must find nothing.
 * - Measured here (2 cores, shared): 2.41 about 7.5 minutes for its three lanes, 2.8.4 about 2.
 *
 * Watch Fields: renames must arrive exactly once. A phone number change made while the baseline
 * is still being read, to an employee the baseline has not reached, may arrive once as an update
 * of every watched field (`updated`): the trigger never saw the earlier value (ledger.ts:
 * tolerate). Made after the baseline, it must not arrive at all (the lane's last phase).
 *
 * Reports: one line per workflow on the console, and .e2e-tmp/durable-scheduler/<key>-<lane>.json
 * with n8n's poll log (debug level: the scheduler's 'abandoned' warnings and back-offs).
 * Run: `N8N_E2E_KEYS=n8n-2.41 N8N_E2E_WORKERS=1 npx jest -c test/e2e/jest.config.js test/e2e/durableScheduler`.
 */
import { assertPackageBuilt, installFeatures, n8nInstance } from '../../scripts/n8n/driver';
import { runLane, type LaneSpec } from './durableLanes';
import { FLOWS, summaryLines, type LaneResult } from './ledger';

declare const N8N_KEY: string;
const key = N8N_KEY;

assertPackageBuilt();

const DEBUG_LOG = { N8N_LOG_LEVEL: 'debug' };
const DURABLE = {
	...DEBUG_LOG,
	N8N_SCHEDULER_ENABLED: 'true',
	N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true',
	N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'true',
	N8N_SCHEDULER_POLL_TIMEOUT: '8',
};

/**
 * Versions without the durable scheduler (before 2.33: 1.x, 2.8) run the default scheduler's lane
 * only. With it, CI runs durable cursors on and the default scheduler; the lane with durable
 * cursors off (the same trigger code, n8n keeping the state in static data) runs with
 * `N8N_E2E_DURABLE_LANES=all`, about 4 minutes more.
 */
const ALL_LANES = process.env.N8N_E2E_DURABLE_LANES === 'all';
const lanes: LaneSpec[] =
	!installFeatures(n8nInstance(key)).durableScheduler
		? [{ key, label: 'default scheduler', env: DEBUG_LOG }]
		: [
				{ key, label: 'durable scheduler, durable cursors on', env: { ...DURABLE, N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true' } },
				...(ALL_LANES ? [{ key, label: 'durable scheduler, durable cursors off', env: { ...DURABLE, N8N_POLLER_DURABLE_CURSORS_ENABLED: 'false' } }] : []),
				{ key, label: 'default scheduler', env: DEBUG_LOG },
			];

/** What an exact delivery looks like for each workflow. */
function verdict(result: LaneResult) {
	const flows = Object.fromEntries(
		FLOWS.map((flow) => {
			const r = result.flows[flow];
			return [flow, { missing: r.missing, duplicates: r.duplicates, unexpected: r.unexpected, failedExecutions: r.executions.error ?? 0 }];
		}),
	);
	return { problems: result.problems, ...flows };
}
const EXACT = {
	problems: [],
	...Object.fromEntries(FLOWS.map((flow) => [flow, { missing: 0, duplicates: 0, unexpected: 0, failedExecutions: 0 }])),
};

describe(`Personnel Data Trigger on n8n's schedulers (${key})`, () => {
	test.each(lanes.map((lane) => [lane.label, lane] as const))(
		'%s: bursts, a Watch Fields baseline and a backfill across a restart, each change exactly once',
		async (_label, lane) => {
			const result = await runLane(lane);
			console.log([...summaryLines(result), `  report: ${result.reportFile}`].join('\n'));
			expect(verdict(result)).toEqual(EXACT);
		},
		600_000,
	);
});
