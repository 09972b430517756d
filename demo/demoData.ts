/** Makes the simulator's organisation lively for the demo: recent changes, a pending transfer, new reports. */
import { CONDITION_NAMES } from '../scripts/simulator/conditionSeeds';
import type { SimulatorClient } from '../scripts/simulator/client';
import type { JsonObject, SimRecord } from '../scripts/simulator/types';
import { findNode, findWorkflow, IDS, type DemoTargets, type ResourceLocator } from './workflows';
import type { WorkflowFile } from '../scripts/n8n/driver';
import { prepareImport, writeImportFile, type ImportPlan, type ImportScenario } from '../scripts/n8n/workflows/employeeImport';

/** Employees changed "today", so that the changed-since-yesterday list is not empty. */
export const RECENTLY_CHANGED = 12;

function pickSpread<T>(list: readonly T[], count: number): T[] {
	const step = Math.max(1, Math.floor(list.length / count));
	return list.filter((_, i) => i % step === 0).slice(0, count);
}

/** Example 8's file: 30 rows, 20 of them employees the simulator holds (8 with a new title or phone number), 10 new. */
export const DEMO_IMPORT_PLAN: ImportPlan = { existing: 20, changed: 8, fresh: 10 };

/** Writes example 8's CSV from the employees the simulator holds now; `today` in the workflows' time zone. */
export async function prepareImportFile(client: SimulatorClient, file: string, today: string): Promise<ImportScenario> {
	const scenario = await prepareImport(client, DEMO_IMPORT_PLAN, today);
	writeImportFile(scenario, file);
	return scenario;
}

/**
 * Example 9's file: 24 rows, 20 employees the simulator holds (6 of them changed, at other rows than
 * example 8 changes) and 4 new people. What the preview must say is counted from the simulator's
 * records when the example runs, not taken from this plan.
 */
export const DEMO_APPROVAL_PLAN: ImportPlan = { existing: 20, changed: 6, fresh: 4 };

/** Writes example 9's CSV from the employees the simulator holds now. */
export async function prepareApprovalFile(client: SimulatorClient, file: string, today: string): Promise<ImportScenario> {
	const scenario = await prepareImport(client, DEMO_APPROVAL_PLAN, today);
	writeImportFile(scenario, file);
	return scenario;
}

export async function prepareDemoData(client: SimulatorClient, workflows: readonly WorkflowFile[], files: { importFile: string; approvalFile: string }): Promise<DemoTargets> {
	const employees = await client.getRecords('employees');
	const touched = pickSpread(employees, RECENTLY_CHANGED).map((e) => e.id);
	await client.touchRecords('employees', touched);

	const configured = findNode(findWorkflow(workflows, IDS.title), 'Get employee').parameters.id as ResourceLocator;
	const employeeId = employees.some((e) => e.id === configured.value) ? configured.value : employees[0].id;

	const transfer = await client.createFileTransfer({
		deliverAfterReads: 2,
		overrides: { file_name: 'payroll-export.csv', content_type: 'text/csv' },
	});

	const conditionId = (await client.conditionIds()).north;
	const integrations = await client.getRecords('systemIntegrations');
	const integration = integrations.find((i) => i.source_system === 'timekeeper') ?? integrations[0];

	return {
		employeeId,
		fileTransferId: transfer.id,
		conditionId,
		conditionName: CONDITION_NAMES.north,
		integrationId: integration.id,
		...files,
	};
}

/** New time reports "reported now", as employees would in the real service. */
export async function reportTime(client: SimulatorClient, count: number): Promise<SimRecord[]> {
	return await client.createRecords('timeReports', count, { restricted: false, overrides: { comment: 'Reported during the demo' } });
}

export interface ManagerChange {
	employee: SimRecord;
	/** The manager history before the change (newest entry first). */
	previous: JsonObject[];
	newManagerId: string;
	validFrom: string;
	/** The employee whose phone number changed (a field the example does not watch). */
	phoneChanged: SimRecord;
}

/**
 * One employee gets a new manager from today and another a new phone number. The phone number
 * changes first, so that a poll that reads the manager change has read the phone change too.
 */
export async function changeManagerAndPhone(client: SimulatorClient): Promise<ManagerChange> {
	const [employee, phoneChanged, newManager] = pickSpread(await client.getRecords('employees'), 3);
	const previous = (employee.properties as { manager_id?: JsonObject[] }).manager_id ?? [];
	const validFrom = new Date().toISOString().slice(0, 10);
	await client.touchRecords('employees', [phoneChanged.id], { changes: { phone1: '+46 70 555 01 07' } });
	const manager_id = [{ valid_from: validFrom, value: newManager.id }, ...previous];
	await client.touchRecords('employees', [employee.id], { changes: { properties: { ...(employee.properties as JsonObject), manager_id } } });
	return { employee, previous, newManagerId: newManager.id, validFrom, phoneChanged };
}
