/**
 * Issue 21's HR import in real n8n (one jest project per version, global N8N_KEY): Read/Write
 * Files from Disk reads a CSV of 1,000 employees, Extract From File makes one item per row, and
 * Personnel Data → Employee → Create or Update (Map Automatically, Columns to Match On:
 * employee_number, On Error: Continue) writes them. The simulator holds 700 of them, 300 with
 * another title or phone number in the file; 300 are new. Everything is counted on the
 * simulator's request log and checked on its records.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import { SimulatorClient } from '../../scripts/simulator/client';
import { startSimulator, type RunningSimulator } from '../../scripts/simulator/server';
import type { SimRecord } from '../../scripts/simulator/types';
import {
	assertPackageBuilt,
	importCredentials,
	importWorkflow,
	loadProblems,
	prepareUserFolder,
	startServer,
	type ExecutionDetails,
	type N8nServer,
	type N8nUserFolder,
	type NodeItem,
} from '../../scripts/n8n/driver';
import {
	addDuplicateOf,
	importRequests,
	importWorkflow as buildImportWorkflow,
	IMPORT,
	IMPORT_NODE,
	ISSUE_21_PLAN,
	prepareImport,
	titleHistory,
	valueInForce,
	writeImportFile,
	type ImportRequests,
	type ImportScenario,
	type RowOutcome,
} from '../../scripts/n8n/workflows/employeeImport';
import type { CredentialRef } from '../../scripts/n8n/driver/workflowBuilders';

declare const N8N_KEY: string;
const key = N8N_KEY;

assertPackageBuilt();

const ADMIN: CredentialRef = { id: 'pdImpCredAdmin1', name: 'Personnel Data admin (import e2e)' };
const WORKFLOW_ID = 'pdImportCsv0001';
const MATCH_ON = 'employee_number';
/** Lookups of 100 keys a request: 1,000 rows in 10. */
const MAX_LOOKUPS = 10;

describe(`HR import in ${key}: a CSV of 1,000 employees through Create or Update`, () => {
	let simulator: RunningSimulator;
	let client: SimulatorClient;
	let folder: N8nUserFolder;
	let server: N8nServer;
	let filesDir: string;
	let scenario: ImportScenario;

	const byNumber = (records: readonly SimRecord[]): Map<string, SimRecord[]> => {
		const found = new Map<string, SimRecord[]>();
		for (const record of records) {
			const number = String(record.employee_number);
			found.set(number, [...(found.get(number) ?? []), record]);
		}
		return found;
	};

	async function runImport(): Promise<{ execution: ExecutionDetails; items: NodeItem[]; requests: ImportRequests }> {
		simulator.sim.clearRequests();
		const executionId = await server.runFromTrigger(WORKFLOW_ID, 'Start');
		const execution = await server.waitForExecution(executionId, 240_000);
		const items = execution.data.resultData.runData[IMPORT]?.[0]?.data?.main?.[0] ?? [];
		return { execution, items, requests: importRequests(simulator.sim.requests(), MATCH_ON) };
	}

	const outcomes = (items: readonly NodeItem[]) => {
		const counts: Record<string, number> = {};
		for (const item of items) {
			const outcome = item.json.error === undefined ? String(IMPORT_NODE.outcome(item.json)) : 'error';
			counts[outcome] = (counts[outcome] ?? 0) + 1;
		}
		return counts;
	};
	const idOf = (request: { path: string }) => request.path.split('/').pop();
	const postedNumber = (request: { body?: unknown }) => String((request.body as { data?: { employee_number?: unknown } }).data?.employee_number);

	beforeAll(async () => {
		simulator = await startSimulator({ seed: 21, sizes: { employees: ISSUE_21_PLAN.existing }, requestLogCapacity: 20_000 });
		client = new SimulatorClient(simulator.baseUrl);
		// n8n's "today" in the workflow's time zone must be the day the test expects.
		const today = new Date().toISOString().slice(0, 10);
		scenario = await prepareImport(client, ISSUE_21_PLAN, today);
		filesDir = mkdtempSync(path.join(tmpdir(), 'pd-import-e2e-'));
		const file = path.join(filesDir, 'employees.csv');
		writeImportFile(scenario, file);

		folder = await prepareUserFolder(key, { env: { N8N_RESTRICT_FILE_ACCESS_TO: filesDir, GENERIC_TIMEZONE: 'UTC' } });
		const { jti, refreshToken } = simulator.credentials.admin;
		await importCredentials(folder, [
			{ ...ADMIN, type: 'personnelDataApi', data: { baseUrl: simulator.baseUrl, authMode: 'refreshToken', jti, refreshToken } },
		]);
		await importWorkflow(folder, buildImportWorkflow(WORKFLOW_ID, 'E2E: import employees from a CSV file', ADMIN, file, MATCH_ON));
		server = await startServer(folder);
		expect(loadProblems(server.logs())).toEqual([]);
	}, 300_000);

	afterAll(async () => {
		await server?.stop();
		folder?.cleanup();
		if (filesDir) rmSync(filesDir, { recursive: true, force: true });
		await simulator?.close();
	});

	test('the file holds 1,000 rows: 700 existing (300 changed), 300 new', () => {
		expect(scenario.rows).toHaveLength(1000);
		expect(scenario.before.size).toBe(700);
		expect(scenario.changedTitle.size + scenario.changedPhone.size).toBe(300);
		expect(scenario.fresh.size).toBe(300);
		expect(scenario.csv.split('\n')[0]).toBe('employee_number,first_name,last_name,email,phone1,title');
		// Employees with no title in force today have an empty cell: the node must not write it.
		expect(scenario.rows.filter((row) => row.title === '').length).toBeGreaterThan(0);
	});

	test('first run: exactly 300 creates and 300 PATCHes, histories kept, lookups in at most 10 requests', async () => {
		const { execution, items, requests } = await runImport();
		expect(execution.status).toBe('success');
		expect(items.map((item) => item.pairedItem)).toEqual(scenario.rows.map((_, item) => ({ item })));
		expect(outcomes(items)).toEqual({ created: 300, updated: 300, unchanged: 400 } satisfies Record<RowOutcome, number>);

		expect(requests.lookups.length + requests.other.length).toBeLessThanOrEqual(MAX_LOOKUPS);
		expect(requests.other.filter((r) => r.method !== 'GET')).toEqual([]);
		expect(requests.replaces).toEqual([]);
		expect([...requests.creates.map(postedNumber)].sort()).toEqual([...scenario.fresh].sort());
		const changedIds = [...scenario.changedTitle, ...scenario.changedPhone].map((number) => scenario.before.get(number)?.id);
		expect(requests.patches.map(idOf).sort()).toEqual(changedIds.sort());
		expect([...requests.creates, ...requests.patches].every((r) => r.status >= 200 && r.status < 300)).toBe(true);

		const after = byNumber(simulator.sim.getRecords('employees'));
		const today = scenario.today;
		for (const row of scenario.rows) {
			const records = after.get(row.employee_number) ?? [];
			expect(records).toHaveLength(1);
			const [record] = records;
			expect({ first_name: record.first_name, last_name: record.last_name, email: record.email, phone1: record.phone1 }).toEqual({
				first_name: row.first_name,
				last_name: row.last_name,
				email: row.email,
				phone1: row.phone1,
			});
			// An empty cell (no title in force) is not written.
			expect(valueInForce(titleHistory(record), today)).toBe(row.title === '' ? null : row.title);
			const before = scenario.before.get(row.employee_number);
			if (!before) {
				expect(titleHistory(record)).toEqual([{ valid_from: today, value: row.title }]);
			} else if (scenario.changedTitle.has(row.employee_number)) {
				// The new title from today in front; every earlier entry kept.
				expect(titleHistory(record)).toContainEqual({ valid_from: today, value: row.title });
				for (const entry of titleHistory(before).filter((e) => e.valid_from !== today)) expect(titleHistory(record)).toContainEqual(entry);
			} else if (scenario.changedPhone.has(row.employee_number)) {
				expect(record.properties).toEqual(before.properties);
			} else {
				expect(record).toEqual(before);
			}
		}
	});

	test('second run of the same file: no write at all, every row unchanged', async () => {
		const { execution, items, requests } = await runImport();
		expect(execution.status).toBe('success');
		expect(outcomes(items)).toEqual({ unchanged: 1000 });
		expect(requests.creates).toEqual([]);
		expect(requests.patches).toEqual([]);
		expect(requests.replaces).toEqual([]);
		expect(requests.lookups.length + requests.other.length).toBeLessThanOrEqual(MAX_LOOKUPS);
	});

	test('a row whose employee number two records carry fails alone and names both; nothing is written', async () => {
		const unchangedRow = scenario.rows.find((row) => scenario.before.has(row.employee_number) && !scenario.changedTitle.has(row.employee_number) && !scenario.changedPhone.has(row.employee_number));
		if (!unchangedRow) throw new Error('the file has no unchanged row');
		const original = scenario.before.get(unchangedRow.employee_number) as SimRecord;
		const duplicate = await addDuplicateOf(client, unchangedRow);

		const { execution, items, requests } = await runImport();
		expect(execution.status).toBe('success');
		expect(outcomes(items)).toEqual({ unchanged: 999, error: 1 });
		const failedAt = scenario.rows.indexOf(unchangedRow);
		const failed = items[failedAt];
		expect(failed.pairedItem).toEqual({ item: failedAt });
		expect(String(failed.json.error)).toContain(original.id);
		expect(String(failed.json.error)).toContain(duplicate.id);
		expect(requests.creates).toEqual([]);
		expect(requests.patches).toEqual([]);
		expect(requests.replaces).toEqual([]);
	});
});
