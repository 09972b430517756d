import type { INode, INodeProperties, INodePropertyCollection, INodePropertyOptions } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { PersonnelData } from '../../../nodes/PersonnelData/PersonnelData.node';
import { operationsOf } from '../../../nodes/PersonnelData/actions/operations';
import { FILTER_OPERATORS, filterableFields, orderableFields, RESOURCES } from '../../../nodes/shared/registry';

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
		'%s: the field pickers load their choices for the resource and take any field by expression',
		(_value, resource) => {
			const filters = properties.filter((property) => property.name === 'filters' && shownFor(property, resource.value, 'getMany'));
			expect(filters).toHaveLength(1);
			const field = fixedCollectionValue(filters[0], 'filter', 'field');
			expect(field.typeOptions).toEqual({ loadOptionsMethod: 'getFilterFields', loadOptionsDependsOn: ['resource'] });
			expect(field.description).toMatch(/^Choose from the list, or specify an ID using an <a href=.*expression<\/a>$/);
			// The default is a registry field: a row saved with the earlier fixed list keeps its value.
			expect(filterableFields(resource)).toContain(field.default);
			// Every operator of the spec's convention can be chosen (the server decides for fields the registry does not know).
			expect(optionValues(fixedCollectionValue(filters[0], 'filter', 'operator').options).sort()).toEqual([...FILTER_OPERATORS].sort());

			const options = properties.find((property) => property.name === 'options' && shownFor(property, resource.value, 'getMany')) as INodeProperties;
			const orderBy = (options.options as INodeProperties[]).find((option) => option.name === 'orderBy');
			expect(orderBy?.typeOptions?.loadOptionsMethod).toBe('getOrderFields');
			expect(orderableFields(resource)).toContain(orderBy?.default);
			const select = (options.options as INodeProperties[]).find((option) => option.name === 'select');
			expect(select).toMatchObject({ type: 'multiOptions', default: [], typeOptions: { loadOptionsMethod: 'getSelectFields' } });

			const condition = properties.find((property) => property.name === 'condition' && shownFor(property, resource.value, 'getMany'));
			expect(condition !== undefined).toBe(resource.conditionDomain !== undefined);
		},
	);

	it('every load-options method the form names exists on the node', () => {
		const named = new Set<string>();
		const visit = (list: ReadonlyArray<INodeProperties | INodePropertyCollection | INodePropertyOptions>): void => {
			for (const entry of list) {
				const method = (entry as INodeProperties).typeOptions?.loadOptionsMethod;
				if (typeof method === 'string') named.add(method);
				if ('options' in entry && Array.isArray(entry.options)) visit(entry.options);
				if ('values' in entry && Array.isArray(entry.values)) visit(entry.values);
			}
		};
		visit(properties);
		expect([...named].sort()).toEqual(['getDatedProperties', 'getFilterFields', 'getOrderFields', 'getSelectFields', 'getWritableFields']);
		for (const method of named) expect(typeof new PersonnelData().methods.loadOptions[method as keyof PersonnelData['methods']['loadOptions']]).toBe('function');
	});

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
