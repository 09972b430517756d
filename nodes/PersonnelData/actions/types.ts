import type { IDataObject, IDisplayOptions, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { ResourceDefinition } from '../../shared/registry';
import type { OperationName } from './operations';

export interface OperationRun {
	resource: ResourceDefinition;
	itemIndex: number;
	/** The node parameter at this item, with a fallback. */
	read: <T>(name: string, fallback: T) => T;
}

/** One operation of the node: its form, its request, and the resources it is offered for. */
export interface Operation {
	name: OperationName;
	/** Whether the node offers this operation for a resource (the form and the router ask this). */
	offeredFor: (resource: ResourceDefinition) => boolean;
	displayName: string;
	/** The action label n8n shows in the node panel, e.g. "Get many employees". */
	action: (resource: ResourceDefinition) => string;
	description: (resource: ResourceDefinition) => string;
	properties: (resource: ResourceDefinition, displayOptions: IDisplayOptions) => INodeProperties[];
	execute: (this: IExecuteFunctions, run: OperationRun) => Promise<IDataObject[]>;
	/** Items are independent requests that may run several at a time (the Concurrency option). */
	concurrent?: boolean;
}

export const showFor = (resource: ResourceDefinition, operation: OperationName): IDisplayOptions => ({
	show: { resource: [resource.value], operation: [operation] },
});
