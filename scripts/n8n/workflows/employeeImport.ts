/**
 * The HR import of issue 21, shared by its e2e test (test/e2e/import.e2e.test.ts), demo example 8
 * and the bench's import section: a CSV file of employees made from what the simulator holds (some
 * rows changed, some new), the workflow Read file → Extract From File → Personnel Data Create or
 * Update matching on `employee_number`, and what a user builds today with the HTTP Request node.
 *
 * The node's parameters for Create or Update live in IMPORT_NODE below, and nowhere else.
 */
import { writeFileSync } from 'node:fs';

import type { SimulatorClient } from '../../simulator/client';
import type { RequestLogEntry } from '../../simulator/requestLog';
import type { JsonObject, SimRecord } from '../../simulator/types';
import type { WorkflowFile, WorkflowNode } from '../driver';
import { actionNode, baseNode, chainWorkflow, type CredentialRef } from '../driver/workflowBuilders';

// ---------------------------------------------------------------- the node's parameters

/**
 * Node version 2's Create or Update (operation `upsert`) as the writes branch's "Writes API:"
 * commit describes it: the `columns` resourceMapper in Map Automatically with one column to match
 * on, and the output field `writeOutcome` ("created" | "updated" | "unchanged").
 */
export const IMPORT_NODE = {
	typeVersion: 2,
	operation: 'upsert',
	/** `options`: the node's Options (e.g. `{ writeMode: 'preview' }`). */
	parameters(matchOn: string, options: Record<string, unknown> = {}): Record<string, unknown> {
		return {
			resource: 'employee',
			operation: IMPORT_NODE.operation,
			columns: { mappingMode: 'autoMapInputData', value: null, matchingColumns: [matchOn], schema: [] },
			options,
		};
	},
	/** What happened to the row of an output item: created, updated or unchanged. */
	outcome(item: Record<string, unknown>): unknown {
		return item.writeOutcome;
	},
} as const;

export type RowOutcome = 'created' | 'updated' | 'unchanged';

// ---------------------------------------------------------------- the file

/** The CSV's columns: the input item's keys that Map Automatically maps to the employee's fields. */
export const IMPORT_COLUMNS = ['employee_number', 'first_name', 'last_name', 'email', 'phone1', 'title'] as const;
export type ImportRow = Record<(typeof IMPORT_COLUMNS)[number], string>;

export interface ImportPlan {
	/** Rows for employees the simulator holds (the first ones by employee number). */
	existing: number;
	/** Of those, rows with a new title (half) or a new phone number (the other half). */
	changed: number;
	/** Rows for employees the simulator does not hold yet. */
	fresh: number;
}

/** Issue 21's file: 1,000 rows, 700 of them existing (300 changed), 300 new. */
export const ISSUE_21_PLAN: ImportPlan = { existing: 700, changed: 300, fresh: 300 };

export interface ImportScenario {
	plan: ImportPlan;
	/** YYYY-MM-DD: the day a changed title becomes valid (the node's default Valid From: today). */
	today: string;
	rows: ImportRow[];
	csv: string;
	/** The simulator's records of the existing rows, as they were before the import, by employee number. */
	before: Map<string, SimRecord>;
	changedTitle: Set<string>;
	changedPhone: Set<string>;
	/** Employee numbers of the rows that are new. */
	fresh: Set<string>;
}

interface DatedEntry {
	valid_from: string | null;
	value: unknown;
}

const isDated = (value: unknown): value is DatedEntry[] =>
	Array.isArray(value) && value.every((e) => e !== null && typeof e === 'object' && 'valid_from' in e && 'value' in e);

/** The entry in force on `date`: the latest valid_from not after it (null = since always). Written here, not imported from the node, to check it. */
export function valueInForce(history: unknown, date: string): unknown {
	if (!isDated(history)) return undefined;
	let best: DatedEntry | undefined;
	for (const entry of history) {
		const from = entry.valid_from ?? '';
		if (from > date) continue;
		if (best === undefined || from > (best.valid_from ?? '')) best = entry;
	}
	return best?.value ?? null;
}

export const titleHistory = (record: SimRecord): DatedEntry[] => {
	const title = (record.properties as JsonObject | undefined)?.title;
	return isDated(title) ? title : [];
};

const NEW_TITLES = ['Import Specialist', 'Payroll Lead', 'People Partner', 'Data Steward'];
const FIRST_NAMES = ['Alva', 'Bruno', 'Cecilia', 'Dennis', 'Elin', 'Filip', 'Greta', 'Hugo', 'Ines', 'Jonas'];
const LAST_NAMES = ['Ahlgren', 'Berg', 'Dahl', 'Ek', 'Falk', 'Holm', 'Lind', 'Nyberg', 'Sand', 'Wall'];

const csvCell = (value: string): string => (/[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);

export function toCsv(rows: readonly ImportRow[]): string {
	const lines = [IMPORT_COLUMNS.join(','), ...rows.map((row) => IMPORT_COLUMNS.map((column) => csvCell(row[column])).join(','))];
	return `${lines.join('\n')}\n`;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/**
 * Makes the file from the simulator's employees (deterministic for one seed; nothing in the
 * simulator is changed). A row's title is the one in force on `today`; an employee with none in
 * force (every entry starts later) gets an empty cell, which the node does not write.
 */
export async function prepareImport(client: Pick<SimulatorClient, 'getRecords'>, plan: ImportPlan, today: string): Promise<ImportScenario> {
	const employees = (await client.getRecords('employees')).sort((a, b) => text(a.employee_number).localeCompare(text(b.employee_number)));
	const existing = employees.slice(0, plan.existing).filter((record) => text(record.phone1) !== '' && text(record.email) !== '');
	if (existing.length < plan.existing) throw new Error(`the simulator holds ${existing.length} employees with a phone number and email among its first ${plan.existing}, the import plan needs ${plan.existing}`);

	const before = new Map(existing.map((record) => [text(record.employee_number), record]));
	const changedTitle = new Set<string>();
	const changedPhone = new Set<string>();
	const step = plan.changed === 0 ? 0 : plan.existing / plan.changed;
	const changedAt = new Set(Array.from({ length: plan.changed }, (_, i) => Math.floor(i * step)));
	const existingRows = existing.map((record, index): ImportRow => {
		const row: ImportRow = {
			employee_number: text(record.employee_number),
			first_name: text(record.first_name),
			last_name: text(record.last_name),
			email: text(record.email),
			phone1: text(record.phone1),
			title: text(valueInForce(titleHistory(record), today)),
		};
		if (!changedAt.has(index)) return row;
		if (changedTitle.size <= changedPhone.size) {
			changedTitle.add(row.employee_number);
			return { ...row, title: NEW_TITLES.find((title) => title !== row.title) ?? 'Import Specialist' };
		}
		changedPhone.add(row.employee_number);
		return { ...row, phone1: `+46 70 900 ${String(index % 100).padStart(2, '0')} ${String(Math.floor(index / 100)).padStart(2, '0')}` };
	});

	const highest = Math.max(0, ...employees.map((record) => Number(text(record.employee_number).replace(/\D/g, '')) || 0));
	const freshRows = Array.from({ length: plan.fresh }, (_, i): ImportRow => {
		const first = FIRST_NAMES[i % FIRST_NAMES.length];
		const last = LAST_NAMES[Math.floor(i / FIRST_NAMES.length) % LAST_NAMES.length];
		const employeeNumber = `E${String(highest + 1 + i).padStart(6, '0')}`;
		return {
			employee_number: employeeNumber,
			first_name: first,
			last_name: last,
			email: `${first}.${last}.${employeeNumber}@import.example`.toLowerCase(),
			phone1: `+46 70 800 ${String(i % 100).padStart(2, '0')} ${String(Math.floor(i / 100)).padStart(2, '0')}`,
			title: NEW_TITLES[i % NEW_TITLES.length],
		};
	});

	// New people spread through the file, as an HR system's export sorted by name would have them.
	const rows: ImportRow[] = [];
	const ratio = plan.fresh === 0 ? Infinity : existingRows.length / plan.fresh;
	let nextFresh = 0;
	existingRows.forEach((row, index) => {
		while (nextFresh < freshRows.length && nextFresh * ratio <= index) rows.push(freshRows[nextFresh++]);
		rows.push(row);
	});
	rows.push(...freshRows.slice(nextFresh));

	return { plan, today, rows, csv: toCsv(rows), before, changedTitle, changedPhone, fresh: new Set(freshRows.map((row) => row.employee_number)) };
}

export function writeImportFile(scenario: ImportScenario, file: string): void {
	writeFileSync(file, scenario.csv, 'utf8');
}

/**
 * A second employee with the employee number of `row` (another person's record given the same
 * number by mistake, as happens in HR systems): a row with that key matches two records.
 */
export async function addDuplicateOf(client: Pick<SimulatorClient, 'createRecords'>, row: ImportRow): Promise<SimRecord> {
	const [duplicate] = await client.createRecords('employees', 1, {
		restricted: false,
		overrides: { employee_number: row.employee_number, first_name: row.first_name, last_name: `${row.last_name} (duplicate)` },
	});
	return duplicate;
}

// ---------------------------------------------------------------- counting on the simulator's log

export const EMPLOYEES_PATH = '/v1/org/employees';

export interface ImportRequests {
	creates: RequestLogEntry[];
	patches: RequestLogEntry[];
	replaces: RequestLogEntry[];
	/** GETs of the employee list that filter on `field` (the lookups of the import). */
	lookups: RequestLogEntry[];
	/** Every other API request (token provisioning aside). */
	other: RequestLogEntry[];
}

/** The import's requests in the simulator's log (it must not have dropped any: check its capacity). */
export function importRequests(log: readonly RequestLogEntry[], field: string): ImportRequests {
	const api = log.filter((r) => !r.path.startsWith('/provisioning'));
	const isLookup = (r: RequestLogEntry) => r.method === 'GET' && r.path === EMPLOYEES_PATH && decodeURIComponent(r.rawQuery).includes(`filters[${field}]`);
	const creates = api.filter((r) => r.method === 'POST' && r.path === EMPLOYEES_PATH);
	const patches = api.filter((r) => r.method === 'PATCH' && r.path.startsWith(`${EMPLOYEES_PATH}/`));
	const replaces = api.filter((r) => r.method === 'PUT' && r.path.startsWith(`${EMPLOYEES_PATH}/`));
	const lookups = api.filter(isLookup);
	const counted = new Set([...creates, ...patches, ...replaces, ...lookups]);
	return { creates, patches, replaces, lookups, other: api.filter((r) => !counted.has(r)) };
}

// ---------------------------------------------------------------- workflows

export const READ_FILE = 'Read employees file';
export const EXTRACT = 'Extract rows';
export const IMPORT = 'Create or update employees';

/** Read/Write Files from Disk (read) → Extract From File (CSV): one item per row, the header naming the keys. */
function fileNodes(file: string): WorkflowNode[] {
	return [
		baseNode(READ_FILE, 'readWriteFile', 1, { operation: 'read', fileSelector: file, options: {} }),
		baseNode(EXTRACT, 'extractFromFile', 1, { operation: 'csv', options: {} }),
	];
}

/** Start → read the file → extract the rows → Personnel Data Create or Update (On Error: Continue). */
export function importWorkflow(id: string, name: string, credential: CredentialRef, file: string, matchOn = 'employee_number', options: Record<string, unknown> = {}): WorkflowFile {
	return chainWorkflow(id, name, [
		...fileNodes(file),
		actionNode(IMPORT, credential, IMPORT_NODE.parameters(matchOn, options), { onError: 'continueRegularOutput', typeVersion: IMPORT_NODE.typeVersion }),
	]);
}

export const HTTP_LOOKUP = 'Look up by employee number';
export const HTTP_FOUND = 'Found?';
export const HTTP_UPDATE = 'Update employee';
export const HTTP_CREATE = 'Create employee';

const ROW = `$('${EXTRACT}').item.json`;

/**
 * What a user builds today without the node's Create or Update: per row a lookup with the HTTP
 * Request node, an IF on the answer, then a PATCH (title history kept: the new entry from today in
 * front of the others, as the node does) or a POST. `token` goes in a literal bearer header.
 */
export function httpImportWorkflow(id: string, name: string, baseUrl: string, token: string, file: string): WorkflowFile {
	const auth = { sendHeaders: true, headerParameters: { parameters: [{ name: 'Authorization', value: `Bearer ${token}` }] } };
	const lookup = baseNode(HTTP_LOOKUP, 'httpRequest', 4.2, {
		url: `${baseUrl}${EMPLOYEES_PATH}`,
		sendQuery: true,
		queryParameters: {
			parameters: [
				{ name: 'filters[employee_number][op]', value: 'eq' },
				{ name: 'filters[employee_number][value]', value: '={{ $json.employee_number }}' },
			],
		},
		...auth,
		options: {},
	});
	const found = baseNode(HTTP_FOUND, 'if', 2, {
		conditions: {
			options: { caseSensitive: true, leftValue: '', typeValidation: 'loose' },
			conditions: [{ id: 'found', leftValue: '={{ $json.data.length }}', rightValue: 0, operator: { type: 'number', operation: 'gt' } }],
			combinator: 'and',
		},
		options: {},
	});
	const titleToday = `{ valid_from: $today.toFormat('yyyy-MM-dd'), value: ${ROW}.title }`;
	const keptTitles = `($json.data[0].properties.title ?? []).filter(e => e.valid_from !== $today.toFormat('yyyy-MM-dd'))`;
	// An empty cell is no key at all after Extract From File: that row's title history is sent back as it is.
	// The API keeps histories newest first, the since-always (null) entry last.
	const newestFirst = '(a, b) => (a.valid_from === null ? 1 : b.valid_from === null ? -1 : b.valid_from.localeCompare(a.valid_from))';
	const plainFields = `first_name: ${ROW}.first_name, last_name: ${ROW}.last_name, email: ${ROW}.email, phone1: ${ROW}.phone1, employee_number: ${ROW}.employee_number`;
	const update = baseNode(HTTP_UPDATE, 'httpRequest', 4.2, {
		method: 'PATCH',
		url: `=${baseUrl}${EMPLOYEES_PATH}/{{ $json.data[0].id }}`,
		...auth,
		sendBody: true,
		specifyBody: 'json',
		jsonBody: `={{ JSON.stringify({ data: { ${plainFields}, properties: { title: ${ROW}.title ? [${titleToday}, ...${keptTitles}].sort(${newestFirst}) : ($json.data[0].properties.title ?? []) } } }) }}`,
		options: {},
	});
	const create = baseNode(HTTP_CREATE, 'httpRequest', 4.2, {
		method: 'POST',
		url: `${baseUrl}${EMPLOYEES_PATH}`,
		...auth,
		sendBody: true,
		specifyBody: 'json',
		jsonBody: `={{ JSON.stringify({ data: { ${plainFields}, properties: ${ROW}.title ? { title: [${titleToday}] } : {} } }) }}`,
		options: {},
	});
	const workflow = chainWorkflow(id, name, [...fileNodes(file), lookup, found]);
	const at = (node: WorkflowNode, x: number, y: number): WorkflowNode => ({ ...node, position: [x, y] });
	workflow.nodes.push(at(update, 1440, -120), at(create, 1440, 120));
	workflow.connections[HTTP_FOUND] = {
		main: [[{ node: HTTP_UPDATE, type: 'main', index: 0 }], [{ node: HTTP_CREATE, type: 'main', index: 0 }]],
	};
	return workflow;
}
