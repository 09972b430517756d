/**
 * `npm run demo [-- --once] [-- --n8n <key>]`: the Personnel Data API simulator and a real n8n on
 * 127.0.0.1, with this package installed as a community package, a ready credential and the example
 * workflows of demo/workflows/. Stays up until Ctrl-C; with --once runs the examples and exits.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import {
	importCredentials,
	importWorkflow,
	loadProblems,
	OWNER,
	prepareUserFolder,
	startServer,
	type N8nServer,
	type N8nUserFolder,
} from '../scripts/n8n/driver';
import { parseArgs } from './args';
import { prepareApprovalFile, prepareDemoData, prepareImportFile, reportTime } from './demoData';
import { elapsed, say, timeZone, todayIn, warn } from './log';
import { runOnce } from './once';
import { ensureBuilt, ensureN8n } from './prepare';
import { demoNeeds, machineFacts, missingPrerequisites } from './prerequisites';
import { startSimulatorProcess, DEMO_EMPLOYEES, type SimulatorProcess } from './simulatorProcess';
import { bindWorkflows, CREDENTIAL_NAME, demoCredential, IDS, loadWorkflows } from './workflows';

/** How often the interactive demo reports new time, for the active trigger to find. */
const REPORT_EVERY_MS = 30_000;

interface Running {
	sim?: SimulatorProcess;
	folder?: N8nUserFolder;
	server?: N8nServer;
	timer?: NodeJS.Timeout;
	/** The folder n8n may read files from (the CSVs of examples 8 and 9); removed at the end. */
	filesDir?: string;
	/** The folder `npm pack` wrote the package into (.e2e-tmp/pack-<pid>-0). */
}

const running: Running = {};
let stopping: Promise<void> | undefined;

function stopAll(): Promise<void> {
	stopping ??= (async () => {
		if (running.timer) clearInterval(running.timer);
		if (running.server) {
			say('stopping n8n…');
			await running.server.stop();
		}
		if (running.sim) {
			say('stopping the simulator…');
			await running.sim.stop();
		}
		running.folder?.cleanup();
		if (running.filesDir) rmSync(running.filesDir, { recursive: true, force: true });
	})();
	return stopping;
}

function onSignal(code: number): void {
	if (stopping) return;
	console.log('');
	stopAll().then(
		() => {
			say('stopped');
			process.exit(code);
		},
		(error: unknown) => {
			warn(`stopping failed: ${String(error)}`);
			process.exit(1);
		},
	);
}

function printWelcome(server: N8nServer, sim: SimulatorProcess): void {
	const lines = [
		'',
		'──────────────────────────────────────────────────────────────────────────────',
		` n8n with the Personnel Data nodes:  ${server.baseUrl}`,
		` Log in as:                         ${OWNER.email}  /  ${OWNER.password}`,
		` Personnel Data API simulator:      ${sim.baseUrl}  (${DEMO_EMPLOYEES} employees)`,
		` Credential:                        "${CREDENTIAL_NAME}" (the simulator's Base URL, refresh token)`,
		'',
		' What to click:',
		'  • Overview → "List employees changed since yesterday" → Execute workflow; click the',
		'    "Employees changed since yesterday" node to see its settings, "CSV file" to download.',
		'  • "New time reports" is active and polls every minute; the demo reports new time every',
		'    30 s. Open it → Executions to see each report arrive once.',
		'  • "Update an employee\'s title (keeps history)" → Execute workflow: compare the title',
		'    history in "Get employee" and "Set new title, keep history" (read the sticky note).',
		'  • "Wait for a file transfer" → Execute workflow: the node polls until "delivered".',
		'  • "Employees that pass a condition", "Create or update a system time type": the same.',
		'  • "Notify when an employee\'s manager changes": activate it, then give an employee a new',
		'    manager (Personnel Data → Employee → Update); the next poll sends it, previous manager included.',
		'  • "Import employees from a file": reads a CSV (path in "Read employees file") and creates',
		'    or updates each employee by employee number; run it twice: the second run writes nothing.',
		'  • "Approve an import before it writes": previews another CSV (nothing written), then waits;',
		'    n8n opens the approval form (its link is also on "Wait for approval" and in "Summary"):',
		'    Approve writes exactly the previewed changes, Reject writes nothing.',
		'  • Add your own: search the node panel for "Personnel Data".',
		'',
		' Ctrl-C stops n8n and the simulator.',
		'──────────────────────────────────────────────────────────────────────────────',
	];
	console.log(lines.join('\n'));
}

async function main(): Promise<number> {
	const args = parseArgs(process.argv.slice(2));
	const started = Date.now();
	process.on('SIGINT', () => onSignal(args.once ? 130 : 0));
	process.on('SIGTERM', () => onSignal(args.once ? 143 : 0));

	const missing = missingPrerequisites(machineFacts(), demoNeeds(args.n8nKey));
	if (missing.length > 0) {
		warn(`the demo cannot run on this machine yet; missing:\n${missing.map((line) => `  • ${line}`).join('\n')}`);
		return 2;
	}
	await ensureBuilt();
	await ensureN8n(args.n8nKey);

	say('starting the Personnel Data API simulator…');
	const sim = (running.sim = await startSimulatorProcess());
	const workflows = loadWorkflows();
	// n8n reads files only from N8N_RESTRICT_FILE_ACCESS_TO: a folder of the demo's own.
	const filesDir = (running.filesDir = mkdtempSync(path.join(tmpdir(), 'personnel-data-demo-')));
	const targets = await prepareDemoData(sim.client, workflows, {
		importFile: path.join(filesDir, 'employees-import.csv'),
		approvalFile: path.join(filesDir, 'employees-to-approve.csv'),
	});
	await prepareImportFile(sim.client, targets.importFile, todayIn(timeZone()));
	await prepareApprovalFile(sim.client, targets.approvalFile, todayIn(timeZone()));
	say(`simulator on ${sim.baseUrl}: ${DEMO_EMPLOYEES} employees, some changed today, a file transfer pending`);

	say(`preparing an n8n user folder with the package, the credential and ${workflows.length} workflows…`);
	// n8n's $today and "yesterday" in the user's own time zone (n8n's default is America/New_York).
	const folder = (running.folder = await prepareUserFolder(args.n8nKey, { env: { GENERIC_TIMEZONE: timeZone(), N8N_RESTRICT_FILE_ACCESS_TO: filesDir } }));
	await importCredentials(folder, [demoCredential(sim)]);
	await importWorkflow(folder, bindWorkflows(workflows, targets));

	say('starting n8n (about 15 s)…');
	const server = (running.server = await startServer(folder));
	const problems = loadProblems(server.logs());
	if (problems.length) throw new Error(`n8n could not load the package:\n${problems.join('\n')}`);
	say(`n8n ${folder.install.n8nVersion} is up on ${server.baseUrl} (ready in ${elapsed(started)})`);

	if (args.once) {
		const outcomes = await runOnce(server, sim, targets, args.only);
		if (args.report) {
			const { install } = folder;
			const report = { key: args.n8nKey, n8n: install.n8nVersion, node: install.nodeVersion === 'system' ? process.versions.node : install.nodeVersion, examples: outcomes };
			writeFileSync(args.report, `${JSON.stringify(report, null, 2)}\n`);
		}
		return outcomes.every((o) => o.passed) ? 0 : 1;
	}

	await server.activateWorkflow(IDS.timeReports);
	running.timer = setInterval(() => {
		const count = 1 + Math.floor(Math.random() * 2);
		reportTime(sim.client, count).then(
			() => say(`simulator: ${count} new time report(s)`),
			(error: unknown) => warn(`simulator: could not add time reports: ${String(error)}`),
		);
	}, REPORT_EVERY_MS);
	printWelcome(server, sim);
	await new Promise<never>(() => undefined);
	return 0;
}

main().then(
	async (code) => {
		await stopAll();
		process.exit(code);
	},
	async (error: unknown) => {
		warn(error instanceof Error ? error.message : String(error));
		await stopAll().catch(() => undefined);
		process.exit(1);
	},
);
