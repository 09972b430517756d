/** The example workflows of demo/workflows/, bound to the records of the running simulator. */
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

import type { CredentialFile, WorkflowFile, WorkflowNode } from '../scripts/n8n/driver';
import type { SimulatorProcess } from './simulatorProcess';

export const WORKFLOW_DIR = path.join(__dirname, 'workflows');
export const CREDENTIAL_ID = 'pdDemoCred000001';
export const CREDENTIAL_NAME = 'Personnel Data (demo simulator)';

/** Workflow IDs of demo/workflows/*.json. */
export const IDS = {
	changed: 'pdDemoChanged001',
	timeReports: 'pdDemoTimeRep002',
	title: 'pdDemoTitle00003',
	transfer: 'pdDemoTransfer04',
	condition: 'pdDemoCondition5',
	timeType: 'pdDemoTimeType06',
	managerChanged: 'pdDemoManager007',
	importFile: 'pdDemoImport0008',
	approval: 'pdDemoApprove009',
} as const;

/** Node names of example 8 (demo/workflows/8-import-employees-from-a-file.json). */
export const IMPORT_NODES = { read: 'Read employees file', upsert: 'Create or update employees' } as const;

/** Node names of example 9 (demo/workflows/9-approve-an-import-before-writing.json). */
export const APPROVAL_NODES = {
	read: 'Read employees file',
	preview: 'Preview the changes',
	summary: 'Summary',
	wait: 'Wait for approval',
	apply: 'Apply the approved changes',
	rejected: 'Rejected: nothing written',
} as const;

/** Records the workflows point at, taken from the running simulator. */
export interface DemoTargets {
	employeeId: string;
	fileTransferId: string;
	conditionId: string;
	conditionName: string;
	integrationId: string;
	/** The CSV file example 8 reads (in the folder n8n may read files from). */
	importFile: string;
	/** The CSV file example 9 previews and, once approved, applies (the same folder). */
	approvalFile: string;
}

export interface ResourceLocator {
	__rl: true;
	mode: string;
	value: string;
	cachedResultName?: string;
}

export function loadWorkflows(): WorkflowFile[] {
	return readdirSync(WORKFLOW_DIR)
		.filter((f) => f.endsWith('.json'))
		.sort()
		.map((f) => JSON.parse(readFileSync(path.join(WORKFLOW_DIR, f), 'utf8')) as WorkflowFile);
}

export function demoCredential(sim: SimulatorProcess): CredentialFile {
	const admin = sim.credentials.admin;
	return {
		id: CREDENTIAL_ID,
		name: CREDENTIAL_NAME,
		type: 'personnelDataApi',
		data: { baseUrl: sim.baseUrl, authMode: 'refreshToken', jti: admin.jti, refreshToken: admin.refreshToken },
	};
}

export function findWorkflow(workflows: readonly WorkflowFile[], id: string): WorkflowFile {
	const wf = workflows.find((w) => w.id === id);
	if (!wf) throw new Error(`workflow ${id} is missing from ${WORKFLOW_DIR}`);
	return wf;
}

export function findNode(wf: WorkflowFile, name: string): WorkflowNode {
	const node = wf.nodes.find((n) => n.name === name);
	if (!node) throw new Error(`workflow "${wf.name}" has no node "${name}"`);
	return node;
}

const locator = (value: string, cachedResultName?: string): ResourceLocator =>
	cachedResultName ? { __rl: true, mode: 'list', value, cachedResultName } : { __rl: true, mode: 'id', value };

/**
 * Copies of the workflows pointing at `targets` (the JSON files hold the IDs of the demo seed;
 * the file transfer is a fresh pending one, so there is something to wait for).
 */
export function bindWorkflows(workflows: readonly WorkflowFile[], targets: DemoTargets): WorkflowFile[] {
	const copies = structuredClone(workflows) as WorkflowFile[];
	findNode(findWorkflow(copies, IDS.title), 'Get employee').parameters.id = locator(targets.employeeId);
	findNode(findWorkflow(copies, IDS.transfer), 'Wait for delivery').parameters.id = locator(targets.fileTransferId);
	findNode(findWorkflow(copies, IDS.condition), 'North office staff').parameters.condition = locator(
		targets.conditionId,
		targets.conditionName,
	);
	findNode(findWorkflow(copies, IDS.timeType), 'Upsert time type').parameters.systemIntegrationId = targets.integrationId;
	findNode(findWorkflow(copies, IDS.importFile), IMPORT_NODES.read).parameters.fileSelector = targets.importFile;
	findNode(findWorkflow(copies, IDS.approval), APPROVAL_NODES.read).parameters.fileSelector = targets.approvalFile;
	return copies;
}
