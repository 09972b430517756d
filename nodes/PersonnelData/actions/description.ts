import type { INodeProperties } from 'n8n-workflow';

import type { ResourceDefinition } from '../../shared/registry';
import { RESOURCES } from '../../shared/registry';
import { operationsOf } from './operations';
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
	const operations = operationsOf(resource);
	const defaultOperation = (operations.find((operation) => operation.name === 'getMany') ?? operations[0]).name;
	return {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [resource.value] } },
		options: operations.map((operation) => ({
			name: operation.displayName,
			value: operation.name,
			action: operation.action(resource),
			description: operation.description(resource),
		})),
		default: defaultOperation,
	};
}

function operationFields(resource: ResourceDefinition): INodeProperties[] {
	return operationsOf(resource).flatMap((operation) => operation.properties(resource, showFor(resource, operation.name)));
}

/** The node's whole form, derived from the resource registry. */
export const nodeProperties: INodeProperties[] = [
	resourceProperty,
	...RESOURCES.map(operationProperty),
	...RESOURCES.flatMap(operationFields),
];
