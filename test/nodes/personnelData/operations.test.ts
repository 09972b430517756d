import type { INodeParameters, INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { readdirSync } from 'node:fs';
import * as path from 'node:path';

import { PersonnelData } from '../../../nodes/PersonnelData/PersonnelData.node';
import type { OperationName } from '../../../nodes/PersonnelData/actions/operations';
import { OPERATIONS } from '../../../nodes/PersonnelData/actions/operations';
import type { ResourceDefinition } from '../../../nodes/shared/registry';
import { RESOURCES, resourceByValue } from '../../../nodes/shared/registry';
import { collectionOf } from '../../simulator/collections';
import type { Simulator } from '../../simulator/simulator';
import { useTestBed } from '../setup';
import { apiRequests, byId, outputOf, run, UNKNOWN_UUID } from './helpers';

const properties = new PersonnelData().description.properties;
const ALL_OPERATIONS = Object.values(OPERATIONS);

/** The Operation options the form shows once this resource is chosen, in the newest node version. */
function operationOptions(resource: ResourceDefinition): INodePropertyOptions[] {
	const shown = properties.filter((property: INodeProperties) => {
		const show = property.displayOptions?.show;
		return property.name === 'operation' && show?.resource?.includes(resource.value) && (show['@version'] === undefined || show['@version'].includes(2));
	});
	expect(shown).toHaveLength(1);
	return shown[0].options as INodePropertyOptions[];
}

/** A record of the resource the admin role may read. */
function someId(resource: ResourceDefinition, sim: Simulator): string {
	const collection = collectionOf(resource.value);
	const restricted = new Set(sim.restrictedIds()[collection]);
	const record = sim.getRecords(collection).find((candidate) => !restricted.has(candidate.id));
	if (!record) throw new Error(`The simulator seeds no ${collection}`);
	return record.id;
}

/** Parameters with which each operation succeeds (an operation added to OPERATIONS needs an entry). */
const WORKING_PARAMETERS: Record<OperationName, (resource: ResourceDefinition, sim: Simulator) => INodeParameters> = {
	get: (resource, sim) => ({ id: byId(someId(resource, sim)) }),
	getMany: () => ({ limit: 5 }),
	create: () => ({ first_name: 'Ada', last_name: 'Lovelace' }),
	update: (resource, sim) => ({ id: byId(someId(resource, sim)), fields: { phone2: '+46 70 000 00 01' } }),
	replace: (resource, sim) => ({ id: byId(someId(resource, sim)), first_name: 'Grace', last_name: 'Hopper' }),
	upsert: () => ({ columns: { mappingMode: 'defineBelow', value: { employee_number: 'E-PROBE-1', first_name: 'Ada', last_name: 'Lovelace' }, matchingColumns: ['employee_number'], schema: [] } }),
	createOrUpdate: (_resource, sim) => ({ systemIntegrationId: sim.getRecords('systemIntegrations')[0].id, typeName: 'Probe', fields: { type_code: 'PRB' } }),
};

const refusal = (operation: string, resource: string) => `Operation "${operation}" is not offered for ${resourceByValue(resource).pluralName}`;

const pairs = RESOURCES.flatMap((resource) => ALL_OPERATIONS.map((operation) => [resource.value, operation.name, operation.offeredFor(resource)] as const));
const offered = pairs.filter(([, , isOffered]) => isOffered).map(([resource, operation]) => [resource, operation] as const);
const notOffered = pairs.filter(([, , isOffered]) => !isOffered).map(([resource, operation]) => [resource, operation] as const);

describe('Personnel Data: the Operation options and the router derive from OPERATIONS', () => {
	const bed = useTestBed();

	it('every operation is offered for some resource, and every resource has an operation', () => {
		for (const operation of ALL_OPERATIONS) expect(RESOURCES.filter((resource) => operation.offeredFor(resource)).length).toBeGreaterThan(0);
		for (const resource of RESOURCES) expect(ALL_OPERATIONS.filter((operation) => operation.offeredFor(resource)).length).toBeGreaterThan(0);
	});

	it.each(RESOURCES.map((resource) => [resource.value, resource] as const))(
		'%s: the Operation options are the operations that offer themselves for it, in the order of OPERATIONS, with their labels',
		(_value, resource) => {
			const expected = ALL_OPERATIONS.filter((operation) => operation.offeredFor(resource));
			expect(operationOptions(resource)).toEqual(
				expected.map((operation) => ({
					name: operation.displayName,
					value: operation.name,
					action: operation.action(resource),
					description: operation.description(resource),
					builderHint: operation.builderHint,
				})),
			);
		},
	);

	it.each(offered)('%s / %s: offered, so the router runs it against the API', async (resource, operation) => {
		const parameters = WORKING_PARAMETERS[operation](resourceByValue(resource), bed.simulator.sim);
		const result = await run(bed, { resource, operation, ...parameters }, { typeVersion: operation === 'upsert' ? 2 : 1 });
		expect(outputOf(result).length).toBeGreaterThan(0);
		const requests = apiRequests(bed);
		expect(requests.length).toBeGreaterThan(0);
		expect(requests.every((entry) => entry.status < 300)).toBe(true);
	});

	it.each(notOffered)('%s / %s: not offered, so not in the form, and the router refuses it before sending anything', async (resource, operation) => {
		expect(operationOptions(resourceByValue(resource)).map((option) => option.value)).not.toContain(operation);
		const result = await run(bed, { resource, operation });
		expect(result.error?.message).toBe(refusal(operation, resource));
		expect(apiRequests(bed)).toEqual([]);
	});

	it('an operation name that OPERATIONS does not have is refused with the same clear error', async () => {
		const result = await run(bed, { resource: 'employee', operation: 'noSuchOperation', id: byId(UNKNOWN_UUID) });
		expect(result.error?.message).toBe(refusal('noSuchOperation', 'employee'));
		expect(apiRequests(bed)).toEqual([]);
	});
});

describe('Personnel Data: the operations table', () => {
	/** Every `*.operation.ts` file under actions/, as a newcomer adds one (README: Recipes). */
	function operationFiles(dir: string): string[] {
		return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
			const file = path.join(dir, entry.name);
			if (entry.isDirectory()) return operationFiles(file);
			return entry.name.endsWith('.operation.ts') ? [file] : [];
		});
	}
	const files = operationFiles(path.join(__dirname, '../../../nodes/PersonnelData/actions'));

	it.each(files.map((file) => [path.basename(file), file] as const))('%s: each operation it exports is in OPERATIONS under its name', (_name, file) => {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const exported = Object.values(require(file) as Record<string, unknown>).filter(
			(value): value is { name: string } => typeof value === 'object' && value !== null && 'prepare' in value && 'name' in value,
		);
		expect(exported.length).toBeGreaterThan(0);
		const table: Record<string, unknown> = OPERATIONS;
		for (const operation of exported) expect(table[operation.name]).toBe(operation);
	});
});
