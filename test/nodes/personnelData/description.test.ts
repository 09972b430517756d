import type { INode, INodeProperties, INodePropertyCollection, INodePropertyOptions } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { PersonnelData } from '../../../nodes/PersonnelData/PersonnelData.node';
import { operationsOf } from '../../../nodes/PersonnelData/actions/operations';
import { FILTER_OPERATORS, filterableFields, orderableFields, RESOURCES } from '../../../nodes/shared/registry';

const operationNamesOf = (resource: (typeof RESOURCES)[number]): string[] => operationsOf(resource).map((operation) => operation.name);

const description = new PersonnelData().description;
const properties = description.properties;

const VERSIONS = description.version as number[];

/** Whether a property is shown for this resource and operation in a node version (resource, operation and @version display options only). */
function shownFor(property: INodeProperties, resource: string, operation: string, version = VERSIONS[VERSIONS.length - 1]): boolean {
	const show = property.displayOptions?.show;
	if (!show) return true;
	if (show.resource && !show.resource.includes(resource)) return false;
	if (show.operation && !show.operation.includes(operation)) return false;
	if (show['@version'] && !show['@version'].includes(version)) return false;
	return true;
}

/** The operations a node version offers for a resource. */
const operationNamesIn = (resource: (typeof RESOURCES)[number], version: number): string[] =>
	operationsOf(resource)
		.filter((operation) => (operation.sinceVersion ?? 1) <= version)
		.map((operation) => operation.name);

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

	it('is a versioned node: saved workflows keep version 1, a new node gets version 2', () => {
		expect(description.version).toEqual([1, 2]);
		expect(description.defaultVersion).toBe(2);
	});

	it.each(RESOURCES.flatMap((resource) => VERSIONS.map((version) => [resource.value, version, resource] as const)))(
		'%s, version %i: exactly the operations of operationsOf(resource) that the version offers',
		(_value, version, resource) => {
			const operationProperties = properties.filter(
				(property) => property.name === 'operation' && shownFor(property, resource.value, '', version) && property.displayOptions?.show?.resource?.includes(resource.value),
			);
			expect(operationProperties).toHaveLength(1);
			expect(optionValues(operationProperties[0].options).sort()).toEqual(operationNamesIn(resource, version).sort());
		},
	);

	it('Create or Update is offered for employees from version 2 on, and version 1 keeps its list', () => {
		const employee = RESOURCES.find((resource) => resource.value === 'employee') as (typeof RESOURCES)[number];
		expect(operationNamesIn(employee, 1)).not.toContain('upsert');
		expect(operationNamesIn(employee, 2)).toContain('upsert');
		expect(operationNamesOf(employee)).toContain('upsert');
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

	const combinations = RESOURCES.flatMap((resource) =>
		VERSIONS.flatMap((version) => operationNamesIn(resource, version).map((operation) => [resource.value, operation, version] as const)),
	);

	it.each(combinations)('n8n accepts the description with default parameters for %s / %s, version %i', (resource, operation, version) => {
		const node: INode = {
			id: '1',
			name: 'Personnel Data',
			type: 'n8n-nodes-personnel-data.personnelData',
			typeVersion: version,
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
			const property = properties.find((candidate) => candidate.name === name && shownFor(candidate, resource, operation, version));
			expect(property?.required).toBe(true);
		}
	});

	it.each([
		['employee', 'get', 1, ['id']],
		['employee', 'create', 1, ['first_name', 'last_name']],
		['systemTimeType', 'createOrUpdate', 1, ['systemIntegrationId', 'typeName']],
		['employee', 'getMany', 1, []],
		['condition', 'getMany', 1, []],
		['employee', 'get', 2, ['id']],
		['employee', 'create', 2, []],
		['employee', 'upsert', 2, []],
		['employee', 'update', 2, ['id']],
		['employee', 'replace', 2, ['id']],
		['systemTimeType', 'createOrUpdate', 2, ['systemIntegrationId', 'typeName']],
	] as const)('%s / %s, version %i, with defaults: n8n reports exactly the empty required fields %j', (resource, operation, version, required) => {
		const node: INode = { id: '1', name: 'Personnel Data', type: 'n8n-nodes-personnel-data.personnelData', typeVersion: version, position: [0, 0], parameters: { resource, operation } };
		const parameters = NodeHelpers.getNodeParameters(properties, node.parameters, true, false, node, description) ?? {};
		const issues = NodeHelpers.getNodeParametersIssues(properties, { ...node, parameters }, description);
		expect(Object.keys(issues?.parameters ?? {}).sort()).toEqual([...required].sort());
	});

	it('version 2 writes: one column mapper, the JSON escape hatches only under Options with a valid default', () => {
		for (const operation of ['create', 'update', 'replace', 'upsert']) {
			const shown = properties.filter((property) => shownFor(property, 'employee', operation, 2));
			const columns = shown.filter((property) => property.type === 'resourceMapper');
			expect(columns.map((property) => property.name)).toEqual(['columns']);
			expect(columns[0].typeOptions?.resourceMapper?.resourceMapperMethod).toBe('getEmployeeColumns');
			expect(typeof new PersonnelData().methods.resourceMapping.getEmployeeColumns).toBe('function');
			expect(shown.filter((property) => property.type === 'json')).toEqual([]);
			const options = shown.find((property) => property.name === 'options') as INodeProperties;
			const json = (options.options as INodeProperties[]).filter((option) => option.type === 'json');
			expect(json.map((option) => [option.name, option.default])).toEqual([
				['customProperties', '{}'],
				['otherFields', '{}'],
			]);
		}
	});

	it('each parameter name is unique among the properties shown for one resource, operation and version', () => {
		for (const [resource, operation, version] of combinations) {
			const names = properties.filter((property) => shownFor(property, resource, operation, version)).map((property) => property.name);
			expect(names.filter((name, index) => names.indexOf(name) !== index)).toEqual([]);
		}
	});
});
