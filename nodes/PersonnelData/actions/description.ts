import type { IDisplayOptions, INodeProperties } from 'n8n-workflow';

import type { HintedOption } from '../../shared/descriptions/builderHint';
import { scoped } from '../../shared/descriptions/scope';
import type { ResourceDefinition } from '../../shared/registry';
import { RESOURCES } from '../../shared/registry';
import { operationsOf } from './operations';
import type { Operation } from './types';
import { showFor } from './types';
import { inVersions, NODE_VERSIONS } from './versions';

const resourceProperty: INodeProperties = {
	displayName: 'Resource',
	name: 'resource',
	type: 'options',
	noDataExpression: true,
	options: RESOURCES.map(
		(resource): HintedOption => ({
			name: resource.displayName,
			value: resource.value,
			description: resource.description,
			builderHint: resource.builderHint,
		}),
	).sort((a, b) => a.name.localeCompare(b.name)),
	default: 'employee',
};

function operationProperty(resource: ResourceDefinition, operations: Operation[], displayOptions: IDisplayOptions): INodeProperties {
	const defaultOperation = (operations.find((operation) => operation.name === 'getMany') ?? operations[0]).name;
	return {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions,
		options: operations.map(
			(operation): HintedOption => ({
				name: operation.displayName,
				value: operation.name,
				action: operation.action(resource),
				description: operation.description(resource),
				builderHint: operation.builderHint,
			}),
		),
		default: defaultOperation,
	};
}

/**
 * The Operation choice of a resource: one for every node version, or, when a version adds an
 * operation (Create or Update in version 2), one per version, so a saved version 1 node keeps its list.
 */
function operationProperties(resource: ResourceDefinition): INodeProperties[] {
	const operations = operationsOf(resource);
	const show = { show: { resource: [resource.value] } };
	const since = [...new Set(operations.map((operation) => operation.sinceVersion ?? NODE_VERSIONS[0]))];
	if (since.length === 1 && since[0] === NODE_VERSIONS[0]) return [operationProperty(resource, operations, show)];
	return NODE_VERSIONS.map((version) =>
		inVersions(
			operationProperty(
				resource,
				operations.filter((operation) => (operation.sinceVersion ?? NODE_VERSIONS[0]) <= version),
				show,
			),
			[version],
		),
	);
}

function operationFields(resource: ResourceDefinition): INodeProperties[] {
	return operationsOf(resource).flatMap((operation) =>
		operation.properties(resource).map((property) => scoped(property, showFor(resource, operation.name))),
	);
}

/** The node's whole form, derived from the resource registry. */
export const nodeProperties: INodeProperties[] = [
	resourceProperty,
	...RESOURCES.flatMap(operationProperties),
	...RESOURCES.flatMap(operationFields),
];
