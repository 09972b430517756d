import type { ResourceName } from './types';

/**
 * The simulator collection that serves each resource of the nodes (keyed by the registry's resource
 * value). The per-resource tests are derived from the registry's RESOURCES plus this map: a
 * resource the nodes can list, get or watch and that is missing here fails a test (see
 * test/nodes/resources.test.ts) instead of going untested over HTTP.
 */
export const COLLECTION_OF: Readonly<Record<string, ResourceName>> = {
	employee: 'employees',
	employeeMapping: 'employeeMappings',
	timeReport: 'timeReports',
	organizationalUnit: 'orgUnits',
	competence: 'competences',
	employeeCompetence: 'employeeCompetences',
	condition: 'conditions',
	fileTransfer: 'fileTransfers',
	job: 'jobs',
	systemTimeType: 'systemTimeTypes',
};

/** The collection behind a resource value; a resource the simulator does not serve is an error. */
export function collectionOf(resource: string): ResourceName {
	const collection = COLLECTION_OF[resource];
	if (collection === undefined) {
		throw new Error(`The simulator serves no collection for resource "${resource}": add it to COLLECTION_OF in scripts/simulator/collections.ts`);
	}
	return collection;
}
