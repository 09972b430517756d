import { competence } from './resources/competence';
import { condition } from './resources/condition';
import { employee } from './resources/employee';
import { employeeCompetence } from './resources/employeeCompetence';
import { employeeMapping } from './resources/employeeMapping';
import { fileTransfer } from './resources/fileTransfer';
import { job } from './resources/job';
import { organizationalUnit } from './resources/organizationalUnit';
import { systemTimeType } from './resources/systemTimeType';
import { timeReport } from './resources/timeReport';
import type { ResourceDefinition } from './types';

export * from './types';

/** Every resource of the API, in the order the node lists them. */
export const RESOURCES: readonly ResourceDefinition[] = [
	employee,
	employeeMapping,
	timeReport,
	organizationalUnit,
	competence,
	employeeCompetence,
	condition,
	fileTransfer,
	job,
	systemTimeType,
];

const byValue = new Map(RESOURCES.map((resource) => [resource.value, resource]));

export function resourceByValue(value: string): ResourceDefinition {
	const resource = byValue.get(value);
	if (!resource) throw new Error(`Unknown resource "${value}"`);
	return resource;
}

export const listableResources = (): ResourceDefinition[] => RESOURCES.filter((r) => r.paths.list);

export function filterableFields(resource: ResourceDefinition): string[] {
	return Object.keys(resource.fields).filter((name) => resource.fields[name].filter);
}

export function orderableFields(resource: ResourceDefinition): string[] {
	return Object.keys(resource.fields).filter((name) => resource.fields[name].orderable);
}
