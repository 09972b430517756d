import type { IDataObject, IDisplayOptions, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OperationName, ResourceDefinition } from '../../shared/registry';

export interface OperationRun {
	resource: ResourceDefinition;
	itemIndex: number;
	/** The node parameter at this item, with a fallback. */
	read: <T>(name: string, fallback: T) => T;
}

/** One operation, for every resource whose registry entry offers it. */
export interface Operation {
	name: OperationName;
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
