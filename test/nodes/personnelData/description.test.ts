import type { INode, INodeProperties, INodePropertyCollection, INodePropertyOptions } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { PersonnelData } from '../../../nodes/PersonnelData/PersonnelData.node';
import { operationsOf } from '../../../nodes/PersonnelData/actions/operations';
import { filterableFields, orderableFields, RESOURCES } from '../../../nodes/shared/registry';

const operationNamesOf = (resource: (typeof RESOURCES)[number]): string[] => operationsOf(resource).map((operation) => operation.name);

const description = new PersonnelData().description;
const properties = description.properties;

/** Whether a property is shown for this resource and operation (resource/operation display options only). */
function shownFor(property: INodeProperties, resource: string, operation: string): boolean {
	const show = property.displayOptions?.show;
	if (!show) return true;
	if (show.resource && !show.resource.includes(resource)) return false;
	if (show.operation && !show.operation.includes(operation)) return false;
	return true;
}

const optionValues = (options: INodeProperties['options']): string[] =>
	(options as INodePropertyOptions[]).map((option) => String(option.value));

function fixedCollectionValue(property: INodeProperties, collection: string, name: string): INodeProperties {
	const group = (property.options as INodePropertyCollection[]).find((option) => option.name === collection);
	const value = group?.values.find((candidate) => candidate.name === name);
	if (!value) throw new Error(`${property.name} has no ${collection}.${name}`);
	return value;
}

describe('Personnel Data: the node description is generated from the registry', () => {
	it('offers every resource of RESOURCES, and nothing else', () => {
		const resource = properties.find((property) => property.name === 'resource') as INodeProperties;
		expect(optionValues(resource.options).sort()).toEqual(RESOURCES.map((r) => r.value).sort());
	});

	it.each(RESOURCES.map((resource) => [resource.value, resource] as const))('%s: exactly operationsOf(resource)', (_value, resource) => {
		const operationProperties = properties.filter(
			(property) => property.name === 'operation' && property.displayOptions?.show?.resource?.includes(resource.value),
		);
		expect(operationProperties).toHaveLength(1);
		expect(optionValues(operationProperties[0].options).sort()).toEqual(operationNamesOf(resource).sort());
	});

	it.each(RESOURCES.filter((r) => r.paths.list).map((resource) => [resource.value, resource] as const))(
		'%s: filter fields and order fields equal the registry\'s',
		(_value, resource) => {
			const filters = properties.filter((property) => property.name === 'filters' && shownFor(property, resource.value, 'getMany'));
			const expectedFilters = filterableFields(resource);
			if (expectedFilters.length === 0) {
				expect(filters).toEqual([]);
			} else {
				expect(filters).toHaveLength(1);
				const field = fixedCollectionValue(filters[0], 'filter', 'field');
				expect(optionValues(field.options).sort()).toEqual([...expectedFilters].sort());
				// Every operator a field accepts can be chosen.
				const operators = optionValues(fixedCollectionValue(filters[0], 'filter', 'operator').options);
				for (const name of expectedFilters) for (const op of resource.fields[name].filter ?? []) expect(operators).toContain(op);
			}

			const options = properties.find((property) => property.name === 'options' && shownFor(property, resource.value, 'getMany')) as INodeProperties;
			const orderBy = (options.options as INodeProperties[]).find((option) => option.name === 'orderBy');
			expect(optionValues(orderBy?.options).sort()).toEqual([...orderableFields(resource)].sort());
			const select = (options.options as INodeProperties[]).find((option) => option.name === 'select');
			expect(optionValues(select?.options).sort()).toEqual(Object.keys(resource.fields).sort());

			const condition = properties.find((property) => property.name === 'condition' && shownFor(property, resource.value, 'getMany'));
			expect(condition !== undefined).toBe(resource.conditionDomain !== undefined);
		},
	);

	it('the Condition resource offers exactly the spec\'s filters and order fields', () => {
		const condition = RESOURCES.find((resource) => resource.value === 'condition');
		if (!condition) throw new Error('no condition resource');
		expect(filterableFields(condition).sort()).toEqual(['domain', 'id', 'inserted_at', 'name', 'updated_at']);
		expect(orderableFields(condition).sort()).toEqual(['domain', 'id', 'inserted_at', 'name', 'updated_at']);
		const ops = Object.fromEntries(filterableFields(condition).map((name) => [name, [...(condition.fields[name].filter ?? [])].sort()]));
		expect(ops).toEqual({
			domain: ['eq', 'in'],
			id: ['eq', 'in'],
			name: ['eq', 'ilike'],
			inserted_at: ['eq', 'gt', 'gte', 'lt', 'lte'],
			updated_at: ['eq', 'gt', 'gte', 'lt', 'lte'],
		});
	});

	const combinations = RESOURCES.flatMap((resource) => operationNamesOf(resource).map((operation) => [resource.value, operation] as const));

	it.each(combinations)('n8n accepts the description with default parameters for %s / %s', (resource, operation) => {
		const node: INode = {
			id: '1',
			name: 'Personnel Data',
			type: 'n8n-nodes-personnel-data.personnelData',
			typeVersion: 1,
			position: [0, 0],
			parameters: { resource, operation },
		};
		const parameters = NodeHelpers.getNodeParameters(properties, node.parameters, true, false, node, description);
		expect(parameters).toMatchObject({ resource, operation });
		// Every property shown for this pair got its default.
		for (const property of properties) {
			if (property.name === 'resource' || property.name === 'operation') continue;
			if (!NodeHelpers.displayParameter(parameters ?? {}, property, node, description)) continue;
			expect(parameters).toHaveProperty([property.name]);
		}
		const issues = NodeHelpers.getNodeParametersIssues(properties, { ...node, parameters: parameters ?? {} }, description);
		// Only required fields the user has yet to fill in (an ID, names) may be reported.
		for (const [name, messages] of Object.entries(issues?.parameters ?? {})) {
			expect(messages.join(' ')).toMatch(/required|must be/i);
			const property = properties.find((candidate) => candidate.name === name && shownFor(candidate, resource, operation));
			expect(property?.required).toBe(true);
		}
	});

	it.each([
		['employee', 'get', ['id']],
		['employee', 'create', ['first_name', 'last_name']],
		['systemTimeType', 'createOrUpdate', ['systemIntegrationId', 'typeName']],
		['employee', 'getMany', []],
		['condition', 'getMany', []],
	])('%s / %s with defaults: n8n reports exactly the empty required fields %j', (resource, operation, required) => {
		const node: INode = { id: '1', name: 'Personnel Data', type: 'n8n-nodes-personnel-data.personnelData', typeVersion: 1, position: [0, 0], parameters: { resource, operation } };
		const parameters = NodeHelpers.getNodeParameters(properties, node.parameters, true, false, node, description) ?? {};
		const issues = NodeHelpers.getNodeParametersIssues(properties, { ...node, parameters }, description);
		expect(Object.keys(issues?.parameters ?? {}).sort()).toEqual([...required].sort());
	});

	it('each parameter name is unique among the properties shown for one resource and operation', () => {
		for (const [resource, operation] of combinations) {
			const names = properties.filter((property) => shownFor(property, resource, operation)).map((property) => property.name);
			expect(names.filter((name, index) => names.indexOf(name) !== index)).toEqual([]);
		}
	});
});
