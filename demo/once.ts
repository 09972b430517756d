/** `npm run demo -- --once`: every example workflow once, headlessly, with its results checked. */
import type { N8nServer } from '../scripts/n8n/driver';
import { EMPLOYEES_PATH, importRequests, IMPORT_NODE, titleHistory, valueInForce } from '../scripts/n8n/workflows/employeeImport';
import type { SimRecord } from '../scripts/simulator/types';
import { changeManagerAndPhone, DEMO_IMPORT_PLAN, prepareImportFile, RECENTLY_CHANGED, reportTime } from './demoData';
import { approvalExample } from './approval';
import { check, firstItem, items, runFrom, sameCounts } from './checks';
import { history, table, type Row } from './format';
import { elapsed, timeZone, todayIn } from './log';
import type { SimulatorProcess } from './simulatorProcess';
import { IDS, IMPORT_NODES, type DemoTargets } from './workflows';

interface Example {
	title: string;
	/** Runs the example; returns lines to print; throws when the result is wrong. */
	run(): Promise<string[]>;
}

/** The newest n8n polls at most once a minute: the first poll after a change can take that long. */
const NEXT_POLL_WAIT_MS = 150_000;

/** Created / updated / unchanged (or the item's error) per output item of example 8's node. */
function outcomeCounts(rows: readonly Row[]): Record<string, number> {
	const counts: Record<string, number> = {};
	for (const row of rows) {
		const outcome = row.error === undefined ? String(IMPORT_NODE.outcome(row)) : `error: ${String(row.error)}`;
		counts[outcome] = (counts[outcome] ?? 0) + 1;
	}
	return counts;
}

type DatedEntry = ReturnType<typeof titleHistory>[number];

/** The same dated entries, in any order. */
function sameHistory(a: readonly DatedEntry[], b: readonly DatedEntry[]): boolean {
	const key = (entries: readonly DatedEntry[]) => JSON.stringify(entries.map((e) => [e.valid_from, e.value]).sort());
	return key(a) === key(b);
}

function examples(server: N8nServer, sim: SimulatorProcess, targets: DemoTargets): Example[] {
	return [
		{
			title: 'List employees changed since yesterday',
			async run() {
				const execution = await runFrom(server, IDS.changed, 'Start');
				const employees = items(execution, 'Employees changed since yesterday');
				const rows = items(execution, 'Table');
				check(employees.length >= RECENTLY_CHANGED, `expected at least ${RECENTLY_CHANGED} employees, got ${employees.length}`);
				const file = firstItem(execution, 'CSV file')?.binary?.data as { fileName?: string; fileSize?: string } | undefined;
				check(file?.fileName, 'the CSV file node made no file');
				return [
					`${employees.length} employees changed since yesterday (filter updated_at ≥ yesterday 00:00 ${timeZone()}, all pages)`,
					table(rows, ['name', 'email', 'title', 'updated_at']),
					`CSV file: ${file.fileName}${file.fileSize ? ` (${file.fileSize})` : ''}`,
				];
			},
		},
		{
			title: 'New time reports (Personnel Data Trigger, Time Report: Created)',
			async run() {
				const reported = await reportTime(sim.client, 3);
				const execution = await runFrom(server, IDS.timeReports, 'New time reports');
				const rows = items(execution, 'Report summary');
				const seen = new Set(rows.map((r) => r.id));
				const missing = reported.filter((r) => !seen.has(r.id));
				check(missing.length === 0, `the trigger did not return the ${missing.length} report(s) just made`);
				await server.activateWorkflow(IDS.timeReports);
				const wf = await server.getWorkflow(IDS.timeReports);
				check(wf.active, 'the trigger workflow did not activate');
				return [
					`made ${reported.length} time reports in the simulator; a manual run of the trigger ("Fetch Test Event") returned ${rows.length}, the new ones included`,
					table(rows, ['type', 'from', 'to', 'reported_at', 'employee_id'], 5, 20),
					'activated: it now polls every minute, each new report once',
				];
			},
		},
		{
			title: "Update an employee's title (keeps history)",
			async run() {
				await sim.client.clearRequests();
				const execution = await runFrom(server, IDS.title, 'Start');
				const [before] = items(execution, 'Get employee');
				const [after] = items(execution, 'Set new title, keep history');
				const titlesBefore = titleHistory(before as SimRecord);
				const titlesAfter = titleHistory(after as SimRecord);
				const today = todayIn(timeZone());
				const newest = titlesAfter.find((t) => t.valid_from === today);
				check(newest?.value === 'Team Lead', `no "Team Lead" title valid from ${today}`);
				const kept = titlesBefore.filter((t) => t.valid_from !== today);
				const lost = kept.filter((t) => !titlesAfter.some((a) => a.valid_from === t.valid_from && a.value === t.value));
				check(lost.length === 0, `${lost.length} earlier title(s) were lost`);
				const [stored] = await sim.client.getRecords('employees', [String(before.id)]);
				check(sameHistory(titleHistory(stored), titlesAfter), 'the simulator holds another title history than the node returned');

				// Get: one GET of the employee. Update: one read of its history (the list, filtered by
				// id), then one PATCH of that employee sending the merged title history; nothing else.
				// (Example 2's activated trigger polls time reports meanwhile: only employee requests count.)
				const { creates, replaces, lookups, patches, other } = importRequests(await sim.client.requests(), 'id');
				const wanted = `${EMPLOYEES_PATH}/${String(before.id)}`;
				const employeeOthers = other.filter((r) => r.path.startsWith(EMPLOYEES_PATH));
				const gets = employeeOthers.filter((r) => r.method === 'GET' && r.path === wanted);
				check(gets.length === 1 && employeeOthers.length === 1, `employee requests besides the update: ${employeeOthers.map((r) => `${r.method} ${r.path}`).join(', ')}; expected the Get's GET ${wanted}`);
				check(creates.length === 0 && replaces.length === 0, 'the node sent a POST or PUT');
				check(lookups.length === 1, `${lookups.length} history reads (GET with filters[id]), expected 1`);
				check(patches.length === 1 && patches[0].path === wanted, `${patches.length} PATCH requests, expected 1 to ${wanted}`);
				const sent = (patches[0].body as { data?: { properties?: { title?: unknown } } } | undefined)?.data?.properties?.title;
				check(Array.isArray(sent) && sameHistory(sent as DatedEntry[], titlesAfter), `the PATCH sent the title history ${JSON.stringify(sent)}, expected the merged one`);
				return [
					`${String(before.first_name)} ${String(before.last_name)} (${String(before.id)})`,
					`    before: ${history(titlesBefore)}`,
					`    after:  ${history(titlesAfter)}`,
					`requests: GET ${wanted} (Get), then 1 history read (list filtered by id) + 1 PATCH sending the merged history`,
				];
			},
		},
		{
			title: 'Wait for a file transfer (File Transfer: Get, Wait for Delivery)',
			async run() {
				const started = Date.now();
				const execution = await runFrom(server, IDS.transfer, 'Start');
				const [transfer] = items(execution, 'Wait for delivery');
				check(transfer?.status === 'delivered', `status is "${String(transfer?.status)}", expected "delivered"`);
				check(transfer.id === targets.fileTransferId, 'another transfer came back');
				return [
					`transfer ${String(transfer.id)} (${String(transfer.file_name)}) was pending; the node polled until it was delivered (${elapsed(started)})`,
					table([transfer], ['status', 'file_name', 'delivered_at']),
				];
			},
		},
		{
			title: 'Employees that pass a condition',
			async run() {
				const execution = await runFrom(server, IDS.condition, 'Start');
				const rows = items(execution, 'North office staff');
				check(rows.length > 0, 'no employee passed the condition');
				const others = rows.filter((r) => !String(r.email ?? '').endsWith('@north.example'));
				check(others.length === 0, `${others.length} employees do not pass "${targets.conditionName}"`);
				return [
					`${rows.length} employees pass the condition "${targets.conditionName}" (email ends with @north.example)`,
					table(
						rows.map((r) => ({ ...r, title: (r.properties as Row | undefined)?.title })),
						['first_name', 'last_name', 'email', 'title'],
					),
				];
			},
		},
		{
			title: 'Create or update a system time type',
			async run() {
				const execution = await runFrom(server, IDS.timeType, 'Start');
				const [timeType] = items(execution, 'Upsert time type');
				check(timeType?.type_name === 'Parental leave', 'the time type was not stored');
				check(timeType.system_integration_id === targets.integrationId, 'stored under another integration');
				return [
					'POST …/system-time-types/<integration>: creates the type, or updates the one with the same code',
					table([timeType], ['type_name', 'type_code', 'source_system', 'id']),
				];
			},
		},
		{
			title: "Notify when an employee's manager changes (Trigger: Watch Fields, Include Previous Values)",
			async run() {
				// The activation poll reads every employee's manager history: the baseline.
				await server.activateWorkflow(IDS.managerChanged);
				check((await server.getWorkflow(IDS.managerChanged)).active, 'the trigger workflow did not activate');
				// Changes made while the activation poll still reads the baseline would be part of it.
				await new Promise((resolve) => setTimeout(resolve, 3000));
				const change = await changeManagerAndPhone(sim.client);
				const started = Date.now();
				const [summary] = await server.waitForExecutions(IDS.managerChanged, 1, NEXT_POLL_WAIT_MS);
				const execution = await server.getExecution(summary.id);
				check(execution.status === 'success', `execution ${summary.id} ended "${execution.status}"`);
				// The phone number changed before the manager: the poll that sent the manager change read it too.
				const sent = items(execution, 'Manager changed');
				check(!sent.some((r) => r.id === change.phoneChanged.id), 'the phone number change (an unwatched field) was sent');
				check(sent.length === 1 && sent[0].id === change.employee.id, `expected the one manager change, got ${sent.length} item(s)`);
				const event = sent[0]._event as { changedFields?: unknown; previous?: Record<string, unknown> } | undefined;
				check(Array.isArray(event?.changedFields) && event.changedFields.includes('properties.manager_id'), '_event.changedFields lacks properties.manager_id');
				check(
					JSON.stringify(event.previous?.['properties.manager_id']) === JSON.stringify(change.previous),
					'_event.previous does not hold the manager history before the change',
				);
				const [message] = items(execution, 'Message');
				check(message?.new_manager_id === change.newManagerId, `the message names manager "${String(message?.new_manager_id)}"`);
				return [
					`activated; then a new phone number for ${String(change.phoneChanged.id)} and a new manager for ${String(change.employee.id)}`,
					`the next poll (${elapsed(started)} later) sent the manager change only, with the previous manager:`,
					`    ${String(message.message)}`,
				];
			},
		},
		{
			title: 'Import employees from a file (Create or Update, Map Automatically, match on employee_number)',
			async run() {
				const today = todayIn(timeZone());
				// Made now from what the simulator holds, after the other examples changed some employees.
				const scenario = await prepareImportFile(sim.client, targets.importFile, today);
				const { existing, changed, fresh } = DEMO_IMPORT_PLAN;
				const expected = { created: fresh, updated: changed, unchanged: existing - changed };

				await sim.client.clearRequests();
				const first = await runFrom(server, IDS.importFile, 'Start');
				const firstRows = items(first, IMPORT_NODES.upsert);
				const firstRequests = importRequests(await sim.client.requests(), 'employee_number');
				check(sameCounts(outcomeCounts(firstRows), expected), `first run: ${JSON.stringify(outcomeCounts(firstRows))}, expected ${JSON.stringify(expected)}`);
				check(firstRequests.creates.length === fresh, `first run: ${firstRequests.creates.length} creates (POST), expected ${fresh}`);
				check(firstRequests.patches.length === changed, `first run: ${firstRequests.patches.length} updates (PATCH), expected ${changed}`);
				check(firstRequests.replaces.length === 0, 'first run: the node sent a PUT');
				check(firstRequests.lookups.length === 1, `first run: ${firstRequests.lookups.length} lookup requests for ${scenario.rows.length} rows, expected 1`);

				const [retitledNumber] = scenario.changedTitle;
				const before = scenario.before.get(retitledNumber);
				check(before, 'the file has no employee with a new title');
				const [after] = await sim.client.getRecords('employees', [before.id]);
				const newTitle = scenario.rows.find((row) => row.employee_number === retitledNumber)?.title;
				check(valueInForce(titleHistory(after), today) === newTitle, `${retitledNumber}: the title in force is not "${String(newTitle)}"`);
				const lost = titleHistory(before).filter((e) => e.valid_from !== today && !titleHistory(after).some((a) => a.valid_from === e.valid_from && a.value === e.value));
				check(lost.length === 0, `${retitledNumber}: ${lost.length} earlier title(s) were lost`);

				await sim.client.clearRequests();
				const second = await runFrom(server, IDS.importFile, 'Start');
				const secondRows = items(second, IMPORT_NODES.upsert);
				const secondRequests = importRequests(await sim.client.requests(), 'employee_number');
				const writes = secondRequests.creates.length + secondRequests.patches.length + secondRequests.replaces.length;
				check(writes === 0, `second run of the same file: ${writes} write(s), expected none`);
				check(sameCounts(outcomeCounts(secondRows), { unchanged: scenario.rows.length }), `second run: ${JSON.stringify(outcomeCounts(secondRows))}`);

				const shown = firstRows.filter((row) => IMPORT_NODE.outcome(row) !== 'unchanged').map((row) => ({ ...row, outcome: IMPORT_NODE.outcome(row) }));
				return [
					`${scenario.rows.length} rows (${existing} employees the simulator holds, ${changed} of them with a new title or phone number; ${fresh} new people)`,
					`first run:  ${fresh} created (POST), ${changed} updated (PATCH), ${existing - changed} unchanged (nothing sent); ${firstRequests.lookups.length} lookup request`,
					table(shown, ['employee_number', 'outcome', 'first_name', 'last_name', 'phone1'], 5, 24),
					`    ${retitledNumber} title: ${history(titleHistory(after))}`,
					`second run of the same file: ${scenario.rows.length} unchanged, 0 writes; ${secondRequests.lookups.length} lookup request`,
				];
			},
		},
		approvalExample(server, sim, targets),
	];
}

/** Runs every example; returns how many failed. */
/** How one example ended (`npm run demo -- --once --report <file>` writes the list). */
export interface ExampleOutcome {
	title: string;
	passed: boolean;
	seconds: number;
	error?: string;
}

/** `only`: the examples' numbers (from 1) to run; default every one. */
export async function runOnce(server: N8nServer, sim: SimulatorProcess, targets: DemoTargets, only?: readonly number[]): Promise<ExampleOutcome[]> {
	const outcomes: ExampleOutcome[] = [];
	const list = examples(server, sim, targets);
	for (const [index, example] of list.entries()) {
		if (only && !only.includes(index + 1)) continue;
		const started = Date.now();
		console.log(`\n${index + 1}. ${example.title}`);
		try {
			const lines = await example.run();
			for (const line of lines) console.log(line.startsWith('    ') ? line : `   ${line}`);
			console.log(`   ✔ passed (${elapsed(started)})`);
			outcomes.push({ title: example.title, passed: true, seconds: (Date.now() - started) / 1000 });
		} catch (error) {
			const message = error instanceof Error ? error.message : String(error);
			console.log(`   ✘ FAILED: ${message}`);
			outcomes.push({ title: example.title, passed: false, seconds: (Date.now() - started) / 1000, error: message });
		}
	}
	const failed = outcomes.filter((o) => !o.passed).length;
	console.log(`\n${outcomes.length - failed} of ${outcomes.length} examples passed`);
	return outcomes;
}
