import type { INodeProperties } from 'n8n-workflow';

import type { ResourceDefinition } from '../../shared/registry';
import { operationsOf, RESOURCES } from '../../shared/registry';
import { OPERATIONS } from './operations';
import { showFor } from './types';

const resourceProperty: INodeProperties = {
	displayName: 'Resource',
	name: 'resource',
	type: 'options',
	noDataExpression: true,
	options: RESOURCES.map((resource) => ({
		name: resource.displayName,
		value: resource.value,
		description: resource.description,
	})).sort((a, b) => a.name.localeCompare(b.name)),
	default: 'employee',
};

function operationProperty(resource: ResourceDefinition): INodeProperties {
	const names = operationsOf(resource);
	const defaultOperation = names.includes('getMany') ? 'getMany' : names[0];
	return {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [resource.value] } },
		options: names.map((name) => ({
			name: OPERATIONS[name].displayName,
			value: name,
			action: OPERATIONS[name].action(resource),
			description: OPERATIONS[name].description(resource),
		})),
		default: defaultOperation,
	};
}

function operationFields(resource: ResourceDefinition): INodeProperties[] {
	return operationsOf(resource).flatMap((name) => OPERATIONS[name].properties(resource, showFor(resource, name)));
}

/** The node's whole form, derived from the resource registry. */
export const nodeProperties: INodeProperties[] = [
	resourceProperty,
	...RESOURCES.map(operationProperty),
	...RESOURCES.flatMap(operationFields),
];
