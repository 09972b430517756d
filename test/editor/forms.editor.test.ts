/**
 * Every form of the package as a user meets it: n8n's editor in Debian's Chromium, the packed
 * package in the newest pinned n8n, a simulator whose employees have another customer's fields.
 * For every resource and operation of the action node and every resource and event of the
 * trigger (taken from the package's own tables), a fresh node's panel is opened and checked:
 *   - issue marks only on required parameters left empty (n8n's triangle, or a JSON editor's error);
 *   - every field picker lists the customer's fields the registry does not know (loaded through the
 *     editor's own /rest/dynamic-node-parameters, as the dropdowns load them);
 *   - the employee record locator's "From List" lists employees by name (the dropdown, clicked);
 * and the credential's Test in the credential dialog succeeds, and no node of a demo workflow shows
 * an issue sign. A failing check leaves a picture in .e2e-tmp/editor-failures/.
 */
import { rmSync } from 'node:fs';

import type { INodeTypeDescription } from 'n8n-workflow';

import { operationsOf } from '../../nodes/PersonnelData/actions/operations';
import { WATCHABLE } from '../../nodes/PersonnelDataTrigger/description';
import { eventsOf } from '../../nodes/PersonnelDataTrigger/events';
import { isDatedArray } from '../../nodes/shared/datedValues';
import { RESOURCES, type ResourceDefinition } from '../../nodes/shared/registry';
import { QUERY } from '../../nodes/shared/apiChoices';
import { CREDENTIAL_ID as DEMO_CREDENTIAL_ID, CREDENTIAL_NAME as DEMO_CREDENTIAL_NAME, loadWorkflows } from '../../demo/workflows';
import {
	assertPackageBuilt,
	importCredentials,
	importWorkflow,
	loadProblems,
	NODE_TYPE_PREFIX,
	prepareUserFolder,
	startServer,
	versionKeysNewestFirst,
	type CredentialFile,
	type N8nServer,
	type N8nUserFolder,
} from '../../scripts/n8n/driver';
import { startSimulator, type RunningSimulator } from '../../scripts/simulator/server';
import { EDITOR, navigate, nodesWithIssues, openEditor, openNodePanel, openWorkflow, restFromPage, type EditorBrowser } from '../../scripts/browser/browser';
import { fieldPickers, formProperties, isEmptyDefault, listSearches, newestDescription, type FieldPickerSpot, type FormChoice } from './description';
import { FAILURE_DIR, issueMarks, locatorListItems, panelShows, saveFailurePicture, shownParameters } from './panel';

assertPackageBuilt();

/** The newest pinned n8n (N8N_EDITOR_KEY picks another key of scripts/n8n/versions.json). */
const KEY = process.env.N8N_EDITOR_KEY ?? versionKeysNewestFirst()[0];
const CREDENTIAL = { id: 'pdEditorCred0001', name: 'Personnel Data (editor suite)' };

interface FormCase {
	/** e.g. "Personnel Data › Employee › Create" */
	title: string;
	type: string;
	resource: ResourceDefinition;
	choice: FormChoice;
}

const ACTION_CASES: FormCase[] = RESOURCES.flatMap((resource) =>
	operationsOf(resource).map((operation) => ({
		title: `Personnel Data › ${resource.displayName} › ${operation.displayName}`,
		type: `${NODE_TYPE_PREFIX}personnelData`,
		resource,
		choice: { resource: resource.value, operation: operation.name },
	})),
);
const TRIGGER_CASES: FormCase[] = WATCHABLE.flatMap((resource) =>
	eventsOf(resource).map((event) => ({
		title: `Personnel Data Trigger › ${resource.displayName} › ${event.name}`,
		type: `${NODE_TYPE_PREFIX}personnelDataTrigger`,
		resource,
		choice: { resource: resource.value, event: event.value },
	})),
);
const CASES = [...ACTION_CASES, ...TRIGGER_CASES];

/** Fields the customer's records show that the package's registry does not know. */
interface CustomerFields {
	/** Top-level fields whose values are no objects or lists. */
	plain: string[];
	/** Dated properties (`properties.<name>: [{ valid_from, value }]`). */
	dated: string[];
}

const isObjectOrList = (value: unknown): boolean => value !== null && typeof value === 'object';

let sim: RunningSimulator;
let folder: N8nUserFolder;
let server: N8nServer;
let editor: EditorBrowser;
let nodeTypes: INodeTypeDescription[];
/** Per case title: the workflow made for it, holding one fresh node. */
const caseNodes = new Map<string, { workflowId: string; id: string; name: string }>();
const customerFieldsCache = new Map<string, Promise<CustomerFields>>();

/** What the node's field discovery sees: the first records of the list, read with the credential's role. */
function customerFields(resource: ResourceDefinition): Promise<CustomerFields> {
	const known = customerFieldsCache.get(resource.value);
	if (known) return known;
	const read = (async (): Promise<CustomerFields> => {
		if (!resource.paths.list) return { plain: [], dated: [] };
		const url = new URL(`${sim.baseUrl}${resource.paths.list}`);
		url.searchParams.set(QUERY.first, '5');
		const answer = await fetch(url, { headers: { authorization: `Bearer ${sim.credentials.admin.legacyToken}` } });
		if (answer.status !== 200) throw new Error(`GET ${url.pathname} answered ${answer.status}: ${await answer.text()}`);
		const records = ((await answer.json()) as { data: Array<Record<string, unknown>> }).data;
		const plain = new Set<string>();
		const objects = new Set<string>();
		const dated = new Set<string>();
		for (const record of records) {
			for (const [name, value] of Object.entries(record)) (isObjectOrList(value) ? objects : plain).add(name);
			const properties = record.properties;
			if (!properties || typeof properties !== 'object') continue;
			for (const [name, value] of Object.entries(properties)) if (isDatedArray(value)) dated.add(name);
		}
		return {
			plain: [...plain].filter((name) => !objects.has(name) && !resource.fields[name]),
			dated: [...dated].filter((name) => !resource.datedProperties.includes(name)),
		};
	})();
	customerFieldsCache.set(resource.value, read);
	return read;
}

/** The values a picker must offer: its kind of the customer's fields. */
function expectedChoices(spot: FieldPickerSpot, fields: CustomerFields): string[] {
	switch (spot.method) {
		case 'getDatedProperties':
			return fields.dated;
		case 'getWatchFields':
			return [...fields.plain, ...fields.dated.map((name) => `properties.${name}`)];
		default:
			// Filters, order, Fields to Return, writable fields: every plain field (column mappers: mapperFindings).
			return fields.plain;
	}
}

function pickerRequest(formCase: FormCase, spot: FieldPickerSpot, version: number) {
	return {
		nodeTypeAndVersion: { name: formCase.type, version },
		path: spot.path,
		methodName: spot.method,
		currentNodeParameters: formCase.choice,
		credentials: { personnelDataApi: CREDENTIAL },
	};
}

/** The columns a resource mapper offers, as the editor loads them. */
async function mapperColumns(formCase: FormCase, spot: FieldPickerSpot, version: number): Promise<MapperColumn[]> {
	const answer = await restFromPage<{ fields: MapperColumn[] }>(editor.page, 'POST', '/rest/dynamic-node-parameters/resource-mapper-fields', pickerRequest(formCase, spot, version));
	return answer.fields;
}

/** What a field picker lacks of the customer's fields, as findings. */
async function pickerFindings(formCase: FormCase, spot: FieldPickerSpot, version: number, fields: CustomerFields): Promise<string[]> {
	const request = pickerRequest(formCase, spot, version);
	if (spot.kind === 'resourceMapper') return mapperFindings(spot, fields, { fields: await mapperColumns(formCase, spot, version) });
	const options = await restFromPage<Array<{ value: unknown }>>(editor.page, 'POST', '/rest/dynamic-node-parameters/options', request);
	const choices = options.map((option) => String(option.value));
	const missing = expectedChoices(spot, fields).filter((value) => !choices.includes(value));
	return missing.length > 0 ? [`${spot.path} (${spot.method}) lacks the customer's ${missing.join(', ')}`] : [];
}

interface MapperColumn {
	id: string;
	required?: boolean;
	canBeUsedToMatch?: boolean;
}

/**
 * A column mapper offers the customer's plain fields and dated properties as columns (a dated
 * property whose name is also a plain field may carry a suffix, e.g. `first_name (dated)`); in
 * upsert mode ("Columns to Match On") the plain fields are offered to match on too.
 */
function mapperFindings(spot: FieldPickerSpot, fields: CustomerFields, answer: { fields: MapperColumn[] }): string[] {
	const ids = answer.fields.map((column) => column.id);
	const where = `${spot.path} (${spot.method})`;
	const findings: string[] = [];
	const missingPlain = fields.plain.filter((name) => !ids.includes(name));
	if (missingPlain.length > 0) findings.push(`${where} lacks the customer's columns ${missingPlain.join(', ')}`);
	const missingDated = fields.dated.filter((name) => !ids.some((id) => id === name || id.startsWith(`${name} (`)));
	if (missingDated.length > 0) findings.push(`${where} lacks the customer's dated properties ${missingDated.join(', ')}`);
	if (spot.mapperMode === 'upsert') {
		const matchable = answer.fields.filter((column) => column.canBeUsedToMatch === true).map((column) => column.id);
		const notMatchable = fields.plain.filter((name) => ids.includes(name) && !matchable.includes(name));
		if (notMatchable.length > 0) findings.push(`${where}: Columns to Match On lacks the customer's ${notMatchable.join(', ')}`);
	}
	return findings;
}

function credentialFile(ref: { id: string; name: string }): CredentialFile {
	const { jti, refreshToken } = sim.credentials.admin;
	return { ...ref, type: 'personnelDataApi', data: { baseUrl: sim.baseUrl, authMode: 'refreshToken', jti, refreshToken } };
}

beforeAll(async () => {
	rmSync(FAILURE_DIR, { recursive: true, force: true });
	// Another customer's employee fields (dated first_name, email, phone1, weekly_hours; a top-level
	// organizational_unit_id, employment_start_date, deleted_at) that the registry does not know.
	sim = await startSimulator({ seed: 23, employeeSchema: 'remapped', sizes: { employees: 40 } });
	folder = await prepareUserFolder(KEY);
	await importCredentials(folder, [credentialFile(CREDENTIAL), credentialFile({ id: DEMO_CREDENTIAL_ID, name: DEMO_CREDENTIAL_NAME })]);
	await importWorkflow(folder, loadWorkflows());
	server = await startServer(folder);
	expect(loadProblems(server.logs())).toEqual([]);
	nodeTypes = await (await server.request('GET', '/types/nodes.json')).json() as INodeTypeDescription[];
	for (const [index, formCase] of CASES.entries()) {
		const id = `ed170000-0000-4000-8000-${String(index).padStart(12, '0')}`;
		const name = formCase.title.replace(/ › /g, ' ');
		const { version } = newestDescription(nodeTypes, formCase.type);
		const workflow = await server.rest<{ id: string }>('POST', '/rest/workflows', {
			name: `Editor suite: ${formCase.title}`,
			nodes: [{ id, name, type: formCase.type, typeVersion: version, position: [0, 0], parameters: formCase.choice, credentials: { personnelDataApi: CREDENTIAL } }],
			connections: {},
			settings: { executionOrder: 'v1' },
		});
		caseNodes.set(formCase.title, { workflowId: workflow.id, id, name });
	}
	editor = await openEditor(server.baseUrl);
}, 300_000);

afterAll(async () => {
	await editor?.close();
	await server?.stop();
	folder?.cleanup();
	await sim?.close();
});

/** Runs the checks of one page; a failed one leaves a picture and fails the test with every finding. */
async function expectNoFindings(name: string, check: (findings: string[], show: (parameter: string) => void) => Promise<void>): Promise<void> {
	const findings: string[] = [];
	let shown: string | undefined;
	try {
		await check(findings, (parameter) => (shown ??= parameter));
	} catch (error) {
		findings.push(`the check itself failed: ${error instanceof Error ? error.message : String(error)}`);
	}
	if (findings.length > 0) findings.push(`picture: ${await saveFailurePicture(editor.page, name, shown)}`);
	expect(findings).toEqual([]);
}

test('the suite covers both nodes, and the employee form shows fields the registry does not know', async () => {
	expect(ACTION_CASES.length).toBeGreaterThan(10);
	expect(TRIGGER_CASES.length).toBeGreaterThan(5);
	const employee = RESOURCES.find((resource) => resource.value === 'employee') as ResourceDefinition;
	const fields = await customerFields(employee);
	// Otherwise the field picker checks below would pass with nothing to find.
	expect(fields.plain).toEqual(expect.arrayContaining(['employment_start_date', 'organizational_unit_id']));
	expect(fields.dated).toEqual(expect.arrayContaining(['weekly_hours']));
});

describe.each(CASES.map((formCase) => [formCase.title, formCase] as const))('%s', (title, formCase) => {
	test('a fresh node: issue marks only on required parameters left empty, field pickers with the customer\'s fields, employees listed by name', async () => {
		const node = caseNodes.get(title);
		if (!node) throw new Error(`no workflow was made for ${title}`);
		const { description, version } = newestDescription(nodeTypes, formCase.type);
		await expectNoFindings(title, async (findings, show) => {
			await openNodePanel(editor.page, server.baseUrl, node);

			// Issue marks.
			const form = formProperties(description, formCase.choice, version);
			const shown = await shownParameters(editor.page);
			const requiredEmpty = shown.filter((name) =>
				form.some((property) => property.name === name && property.required === true && isEmptyDefault(property.default)),
			);
			// A column mapper (Map Each Column Manually, a fresh node's mode) shows its required columns
			// empty, and n8n marks each of them, as it does a required parameter: the columns the node
			// says are required, and only those, must carry a mark.
			// Create or Update first asks for the column to match on; the other modes show the columns.
			const requiredColumns: string[] = [];
			for (const spot of fieldPickers(description, formCase.choice, version).filter((picker) => picker.kind === 'resourceMapper')) {
				const upsert = spot.mapperMode === 'upsert';
				if (!(await panelShows(editor.page, upsert ? EDITOR.mapperMatching : EDITOR.mapperFields))) {
					findings.push(`${spot.name}: the column mapper shows no ${upsert ? 'Columns to Match On' : 'columns (Values to Send)'}`);
				}
				requiredColumns.push(...(await mapperColumns(formCase, spot, version)).filter((column) => column.required === true).map((column) => column.id));
			}
			const allMarks = await issueMarks(editor.page);
			for (const mark of allMarks.filter((candidate) => candidate.mapperColumn)) {
				if (!requiredColumns.includes(mark.parameter)) findings.push(`column ${mark.parameter}: an issue mark, but the column mapper does not say it is required`);
			}
			for (const column of requiredColumns) {
				if (!allMarks.some((mark) => mark.mapperColumn && mark.parameter === column)) findings.push(`column ${column}: required and empty, but no issue mark`);
			}
			const marks = allMarks.filter((mark) => !mark.mapperColumn);
			for (const mark of marks) {
				if (mark.kind === 'json-error' || !requiredEmpty.includes(mark.parameter)) show(mark.parameter);
				if (mark.kind === 'json-error') findings.push(`${mark.parameter}: the JSON editor shows an error mark on a fresh node`);
				else if (!requiredEmpty.includes(mark.parameter)) findings.push(`${mark.parameter}: an issue mark, but it is not a required parameter left empty`);
			}
			for (const name of requiredEmpty) {
				if (!marks.some((mark) => mark.kind === 'issue' && mark.parameter === name)) findings.push(`${name}: required and empty, but no issue mark`);
			}

			// Field pickers.
			const fields = await customerFields(formCase.resource);
			for (const spot of fieldPickers(description, formCase.choice, version)) findings.push(...(await pickerFindings(formCase, spot, version, fields)));

			// The employee search of the record locator.
			if (formCase.resource.value === 'employee') {
				const names = new Set(sim.sim.getRecords('employees').map((record) => `${String(record.first_name)} · ${String(record.last_name)}`));
				for (const locator of listSearches(description, formCase.choice, version).filter((search) => search.method === 'searchRecords' && shown.includes(search.name))) {
					const items = await locatorListItems(editor.page, locator.name);
					if (items.length === 0) findings.push(`${locator.name}: "From List" lists no employees`);
					const unnamed = items.filter((item) => ![...names].some((name) => item.startsWith(name)));
					if (unnamed.length > 0) findings.push(`${locator.name}: "From List" items without an employee's name: ${unnamed.slice(0, 3).join(' | ')}`);
				}
			}
		});
	});
});

test('the credential\'s Test in the credential dialog succeeds', async () => {
	await expectNoFindings('credential-test', async (findings) => {
		await navigate(editor.page, server.baseUrl, `/home/credentials/${CREDENTIAL.id}`);
		await editor.page.waitForSelector(EDITOR.credentialDialog, { timeout: 60_000 });
		const tested = await editor.page.waitForSelector(EDITOR.credentialTestSuccess, { timeout: 60_000 }).then(
			() => true,
			() => false,
		);
		if (!tested) findings.push('the dialog did not say "Connection tested successfully"');
		await editor.page.keyboard.press('Escape');
	});
});

describe.each(loadWorkflows().map((workflow) => [workflow.name, workflow] as const))('demo workflow "%s"', (name, workflow) => {
	test('no node shows an issue sign', async () => {
		await expectNoFindings(`demo-${workflow.id}`, async (findings) => {
			await openWorkflow(editor.page, server.baseUrl, workflow.id, workflow.nodes[0].name);
			for (const node of await nodesWithIssues(editor.page)) findings.push(`${node}: the canvas shows an issue sign`);
		});
	});
});
