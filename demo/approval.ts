/**
 * Example 9 of `npm run demo -- --once`: a CSV import previewed (Write Mode › Preview Only), its
 * summary shown in the approval form of a Wait node, then rejected (nothing may be written) and,
 * run again, approved (exactly the previewed writes, through Write Mode › Apply a Preview).
 */
import type { ExecutionDetails, N8nServer, WorkflowFile } from '../scripts/n8n/driver';
import { importRequests, titleHistory, valueInForce, type ImportRequests, type ImportScenario } from '../scripts/n8n/workflows/employeeImport';
import type { SimulatorClient } from '../scripts/simulator/client';
import type { SimRecord } from '../scripts/simulator/types';
import { check, CheckFailed, failureOf, items, sameCounts } from './checks';
import { prepareApprovalFile } from './demoData';
import { table, type Row } from './format';
import { timeZone, todayIn } from './log';
import type { SimulatorProcess } from './simulatorProcess';
import { APPROVAL_NODES, findNode, IDS, type DemoTargets } from './workflows';

const MATCH = 'employee_number';
const LOOKUP_BATCH = 100;

export interface Counts {
	rows: number;
	create: number;
	update: number;
	unchanged: number;
	error: number;
}

interface Summary extends Counts {
	changedFields: Record<string, number>;
	approvalUrl: string;
}

const text = (value: unknown): string => (value === null || value === undefined ? '' : String(value));

/** What the preview must say, counted here from the file and the simulator's records (not from the node). */
function expectedCounts(scenario: ImportScenario): Counts {
	let update = 0;
	for (const row of scenario.rows) {
		const record = scenario.before.get(row.employee_number);
		if (!record) continue;
		const plain = (['first_name', 'last_name', 'email', 'phone1'] as const).some((field) => row[field] !== text(record[field]));
		if (plain || row.title !== text(valueInForce(titleHistory(record), scenario.today))) update++;
	}
	const create = scenario.fresh.size;
	return { rows: scenario.rows.length, create, update, unchanged: scenario.rows.length - create - update, error: 0 };
}

const writesIn = (requests: ImportRequests): number => requests.creates.length + requests.patches.length + requests.replaces.length;

const UNFINISHED = ['new', 'running', 'waiting', 'unknown'];

/**
 * Polls the execution until `ready` says so. (The driver's waitForExecution takes a waiting
 * execution, which has a stoppedAt, for a finished one: not usable around a Wait node.)
 */
async function pollExecution(server: N8nServer, executionId: string, what: string, ready: (execution: ExecutionDetails) => boolean): Promise<ExecutionDetails> {
	const until = Date.now() + 120_000;
	for (;;) {
		const execution = await server.getExecution(executionId);
		if (ready(execution)) return execution;
		if (Date.now() > until) throw new CheckFailed(`execution ${executionId} is still "${execution.status}", not ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
}

/** Polls until the execution waits for the approval form. */
async function waitingForApproval(server: N8nServer, executionId: string): Promise<ExecutionDetails> {
	const execution = await pollExecution(server, executionId, 'waiting for approval', (e) => !UNFINISHED.includes(e.status) || (e.status === 'waiting' && e.data?.resultData?.runData?.[APPROVAL_NODES.wait] !== undefined));
	if (execution.status !== 'waiting') throw new CheckFailed(`execution ${executionId} ended "${execution.status}" before asking for approval: ${failureOf(execution)}`);
	return execution;
}

/** Polls until the resumed execution has finished; fails the check unless it succeeded. */
async function finished(server: N8nServer, executionId: string): Promise<ExecutionDetails> {
	// n8n 1.x may report the waiting execution as a success for a moment while it resumes it: a
	// success counts only once a node after the approval (Apply or Rejected) has run.
	const decided = (e: ExecutionDetails) => [APPROVAL_NODES.apply, APPROVAL_NODES.rejected].some((node) => e.data?.resultData?.runData?.[node] !== undefined);
	const execution = await pollExecution(server, executionId, 'finished after the decision', (e) => !UNFINISHED.includes(e.status) && e.data?.resultData !== undefined && (e.status !== 'success' || decided(e)));
	if (execution.status !== 'success') throw new CheckFailed(`execution ${executionId} ended "${execution.status}": ${failureOf(execution)}`);
	return execution;
}

/** The form's address on this server (n8n builds it from its configured host, here localhost). */
function formAddress(server: N8nServer, approvalUrl: string): string {
	const url = new URL(approvalUrl);
	return `${server.baseUrl}${url.pathname}${url.search}`;
}

export interface Previewed {
	executionId: string;
	summary: Summary;
	preview: Row[];
	requests: ImportRequests;
	form: string;
}

/** Runs the workflow up to the approval form; checks the preview and its summary against `expected`. */
async function previewUpToApproval(server: N8nServer, client: SimulatorClient, expected: Counts, workflowId: string = IDS.approval): Promise<Previewed> {
	await client.clearRequests();
	const executionId = await server.runFromTrigger(workflowId, 'Start');
	const execution = await waitingForApproval(server, executionId);
	const requests = importRequests(await client.requests(), MATCH);
	check(writesIn(requests) === 0, `the preview sent ${writesIn(requests)} write(s)`);
	const lookupRequests = Math.ceil(expected.rows / LOOKUP_BATCH);
	check(requests.lookups.length === lookupRequests, `the preview sent ${requests.lookups.length} lookup requests for ${expected.rows} rows, expected ${lookupRequests}`);
	const preview = items(execution, APPROVAL_NODES.preview);
	check(preview.length === expected.rows, `${preview.length} preview items for ${expected.rows} rows`);
	const [summary] = items(execution, APPROVAL_NODES.summary) as unknown as Summary[];
	const counts = summary && { rows: summary.rows, create: summary.create, update: summary.update, unchanged: summary.unchanged, error: summary.error };
	check(JSON.stringify(counts) === JSON.stringify(expected), `the summary says ${JSON.stringify(counts)}, expected ${JSON.stringify(expected)}`);
	check(typeof summary.approvalUrl === 'string' && summary.approvalUrl.includes(`/form-waiting/${executionId}`), `the summary's approvalUrl is "${String(summary.approvalUrl)}"`);
	const form = formAddress(server, summary.approvalUrl);
	const page = await fetch(form);
	const html = await page.text();
	check(page.ok && html.includes(`New employees: ${expected.create}`) && html.includes(`Employees to update: ${expected.update}`), `the approval form (${page.status}) does not show the counts`);
	return { executionId, summary, preview, requests, form };
}

/** Submits the form as a person would: the dropdown Decision, field-0 of the form. */
async function decide(server: N8nServer, previewed: Previewed, decision: 'Approve' | 'Reject'): Promise<ExecutionDetails> {
	const body = new FormData();
	body.append('field-0', decision);
	const answer = await fetch(previewed.form, { method: 'POST', body });
	check(answer.ok, `submitting "${decision}" answered ${answer.status}: ${(await answer.text()).slice(0, 200)}`);
	return await finished(server, previewed.executionId);
}

const preview = (row: Row): Row => (row.preview ?? {}) as Row;

interface DatedEntry {
	valid_from: string | null;
	value: unknown;
}

interface PreviewChanges {
	fields?: Record<string, { before: unknown; after: unknown }>;
	histories?: Record<string, { added?: DatedEntry[]; replaced?: Array<{ valid_from: string | null; before: unknown; after: unknown }>; removed?: DatedEntry[]; left?: number }>;
}

const entry = (e: DatedEntry): string => `${e.valid_from ?? '(always)'} ${text(e.value)}`;

/** One updated employee's change as a person reads it in the preview item. */
function changeLine(item: Row): string {
	const { match, changes } = preview(item) as { match?: { value?: string }; changes?: PreviewChanges };
	const parts = [
		...Object.entries(changes?.fields ?? {}).map(([field, change]) => `${field} ${text(change.before)} → ${text(change.after)}`),
		...Object.entries(changes?.histories ?? {}).map(([field, change]) => {
			const said = [
				...(change.added ?? []).map((e) => `+ ${entry(e)}`),
				...(change.replaced ?? []).map((e) => `${e.valid_from ?? '(always)'} ${text(e.before)} → ${text(e.after)}`),
				...(change.removed ?? []).map((e) => `− ${entry(e)}`),
			];
			return `${field} history: ${said.join(', ')} (${change.left ?? 0} kept)`;
		}),
	];
	return `    ${text(match?.value)}: ${parts.join('; ')}`;
}

/** The employees as the file has them, checked in the simulator after the approved apply. */
function notAsInFile(scenario: ImportScenario, stored: readonly SimRecord[]): string[] {
	const byNumber = new Map(stored.map((record) => [text(record.employee_number), record]));
	return scenario.rows
		.filter((row) => {
			const record = byNumber.get(row.employee_number);
			if (!record) return true;
			const plain = (['first_name', 'last_name', 'email', 'phone1'] as const).some((field) => row[field] !== text(record[field]));
			return plain || row.title !== text(valueInForce(titleHistory(record), scenario.today));
		})
		.map((row) => row.employee_number);
}

/** The file of the example, written now from what the simulator holds, and what its preview must say. */
export interface ApprovalScenario {
	scenario: ImportScenario;
	expected: Counts;
}

export async function prepareApproval(client: SimulatorClient, file: string): Promise<ApprovalScenario> {
	const scenario = await prepareApprovalFile(client, file, todayIn(timeZone()));
	const expected = expectedCounts(scenario);
	check(expected.create > 0 && expected.update > 0, `the file would create ${expected.create} and update ${expected.update}: nothing to approve`);
	return { scenario, expected };
}

/** Rejected: the preview ran (lookups only), the form was answered Reject, and nothing was written. */
export async function rejectImport(server: N8nServer, client: SimulatorClient, { expected }: ApprovalScenario): Promise<Previewed> {
	const previewed = await previewUpToApproval(server, client, expected);
	const rejected = await decide(server, previewed, 'Reject');
	const afterReject = importRequests(await client.requests(), MATCH);
	check(writesIn(afterReject) === 0, `rejected, yet ${writesIn(afterReject)} write(s) reached the simulator`);
	check(rejected.data.resultData.runData[APPROVAL_NODES.apply] === undefined, `rejected, yet "${APPROVAL_NODES.apply}" ran`);
	check(items(rejected, APPROVAL_NODES.rejected).length === 1, `"${APPROVAL_NODES.rejected}" did not run`);
	return previewed;
}

/** Approved: the preview (lookups only), Approve, then exactly its writes; the simulator holds the file's values. */
export async function approveImport(server: N8nServer, client: SimulatorClient, { scenario, expected }: ApprovalScenario): Promise<{ previewed: Previewed; writes: ImportRequests }> {
	const previewed = await previewUpToApproval(server, client, expected);
	const approved = await decide(server, previewed, 'Approve');
	const applied = items(approved, APPROVAL_NODES.apply);
	const outcomes: Record<string, number> = {};
	for (const row of applied) {
		const outcome = row.error === undefined ? text(row.writeOutcome) : `error: ${text(row.error)}`;
		outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
	}
	const wanted = Object.fromEntries(Object.entries({ created: expected.create, updated: expected.update, unchanged: expected.unchanged }).filter(([, count]) => count > 0));
	check(sameCounts(outcomes, wanted), `applied: ${JSON.stringify(outcomes)}, expected ${JSON.stringify(wanted)}`);
	const writes = importRequests(await client.requests(), MATCH);
	check(writes.creates.length === expected.create, `${writes.creates.length} creates (POST), expected ${expected.create}`);
	check(writes.patches.length === expected.update, `${writes.patches.length} updates (PATCH), expected ${expected.update}`);
	check(writes.replaces.length === 0, 'the apply sent a PUT');
	const differ = notAsInFile(scenario, await client.getRecords('employees'));
	check(differ.length === 0, `after the approved apply, ${differ.length} employee(s) differ from the file: ${differ.slice(0, 5).join(', ')}`);
	return { previewed, writes };
}

/** The node that edits one previewed update between the approval and the apply (approveWithAnEditedItem). */
export const EDIT_NODE = 'Edit one approved row';
/** The phone number the edit writes into that row's body, and into its `changes`, consistently. */
const EDITED_PHONE = '+46 000 00 00';

/**
 * The example with a Code node between the approval and the apply that edits the first previewed
 * update: its write's body and its `changes` together, so that the two agree. `id`: the copy's own.
 */
export function withAnEditBeforeTheApply(workflow: WorkflowFile, id: string): WorkflowFile {
	const copy = structuredClone(workflow);
	copy.id = id;
	copy.name = `${workflow.name} (one row edited after the approval)`;
	const merge = findNode(copy, 'The approved preview');
	copy.nodes.push({
		id: 'edit-one-approved-row',
		name: EDIT_NODE,
		type: 'n8n-nodes-base.code',
		typeVersion: 2,
		position: [merge.position[0] + 120, merge.position[1] + 160],
		parameters: {
			jsCode: [
				'const rows = $input.all();',
				"const row = rows.find((item) => item.json.preview && item.json.preview.outcome === 'update');",
				`row.json.preview.write.body.data.phone1 = ${JSON.stringify(EDITED_PHONE)};`,
				`row.json.preview.changes.fields.phone1 = { before: null, after: ${JSON.stringify(EDITED_PHONE)} };`,
				'return rows;',
			].join('\n'),
		},
	});
	copy.connections['The approved preview'] = { main: [[{ node: EDIT_NODE, type: 'main', index: 0 }]] };
	copy.connections[EDIT_NODE] = { main: [[{ node: APPROVAL_NODES.apply, type: 'main', index: 0 }]] };
	return copy;
}

/**
 * Approved, with one row edited after the approval (withAnEditBeforeTheApply): that row fails
 * naming the edit and nothing of it is written; every other row is written exactly as previewed.
 */
export async function approveWithAnEditedItem(
	server: N8nServer,
	client: SimulatorClient,
	{ expected }: ApprovalScenario,
	workflowId: string,
): Promise<{ refused: Row[]; writes: ImportRequests; previewed: Previewed }> {
	const previewed = await previewUpToApproval(server, client, expected, workflowId);
	const approved = await decide(server, previewed, 'Approve');
	const applied = items(approved, APPROVAL_NODES.apply);
	const refused = applied.filter((row) => row.error !== undefined);
	check(refused.length === 1 && /Input item › preview\.changes, preview\.write: edited since the preview/.test(text(refused[0].error)), `refused: ${JSON.stringify(refused.map((row) => row.error))}`);
	const writes = importRequests(await client.requests(), MATCH);
	check(writes.creates.length === expected.create, `${writes.creates.length} creates (POST), expected ${expected.create}`);
	check(writes.patches.length === expected.update - 1, `${writes.patches.length} updates (PATCH), expected ${expected.update - 1} (one row was edited)`);
	const phones = writes.patches.map((patch) => JSON.stringify(patch.body ?? null));
	check(!phones.some((body) => body.includes(EDITED_PHONE)), 'the edited phone number was written');
	// Every write is one the preview planned, byte for byte.
	const planned = new Set(previewed.preview.map((row) => JSON.stringify((preview(row).write as Row | undefined)?.body ?? null)));
	check([...writes.creates, ...writes.patches].every((write) => planned.has(JSON.stringify(write.body ?? null))), 'a write differs from what the preview planned');
	return { refused, writes, previewed };
}

export function approvalExample(server: N8nServer, sim: SimulatorProcess, targets: DemoTargets) {
	return {
		title: 'Approve an import before it writes (Preview Only, an approval form, Apply a Preview)',
		async run(): Promise<string[]> {
			// Made now from what the simulator holds, after the other examples changed some employees.
			const approval = await prepareApproval(sim.client, targets.approvalFile);
			await rejectImport(server, sim.client, approval);
			const { previewed, writes } = await approveImport(server, sim.client, approval);
			const { summary } = previewed;
			const fields = Object.entries(summary.changedFields).map(([field, count]) => `${field} ${count}`).join(', ');
			const updates = previewed.preview.filter((item) => preview(item).outcome === 'update');
			return [
				`${summary.rows} rows previewed (Write Mode: Preview Only): ${summary.create} to create, ${summary.update} to update (${fields}), ${summary.unchanged} unchanged, ${summary.error} errors; ${previewed.requests.lookups.length} lookup request, no write`,
				table(previewed.preview.slice(0, 4).map((item) => ({ ...preview(item), employee: (preview(item).match as Row | undefined)?.value })), ['employee', 'outcome', 'employeeId'], 4, 36),
				...updates.slice(0, 2).map(changeLine),
				`approval form (Wait, On Form Submitted) showed the counts; Reject: the run ended at "${APPROVAL_NODES.rejected}", 0 writes`,
				`run again, Approve: Apply a Preview wrote ${writes.creates.length} POST + ${writes.patches.length} PATCH, exactly the previewed writes; every employee of the file now reads as the file says`,
			];
		},
	};
}
