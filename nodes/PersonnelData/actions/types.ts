import type { IDataObject, IDisplayOptions, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { ResourceDefinition } from '../../shared/registry';
import type { OperationName } from './operations';
import type { PerRun } from './read/perRun';

export interface OperationRun {
	resource: ResourceDefinition;
	itemIndex: number;
	/** The node parameter at this item, with a fallback. */
	read: <T>(name: string, fallback: T) => T;
	/** What the run's items share (one batched read for all of them); see read/perRun.ts. */
	perRun: PerRun;
}

/** The requests of one item, checked and ready: the records to output. */
export type SendItem = () => Promise<IDataObject[]>;

/** One operation of the node: its form, its request, and the resources it is offered for. */
export interface Operation {
	name: OperationName;
	/** Whether the node offers this operation for a resource (the form and the router ask this). */
	offeredFor: (resource: ResourceDefinition) => boolean;
	/** The first node version that offers it (absent: every version). */
	sinceVersion?: number;
	displayName: string;
	/** The action label n8n shows in the node panel, e.g. "Get many employees". */
	action: (resource: ResourceDefinition) => string;
	description: (resource: ResourceDefinition) => string;
	properties: (resource: ResourceDefinition, displayOptions: IDisplayOptions) => INodeProperties[];
	/**
	 * Reads and checks the item's parameters, sending nothing (bad input throws InputError here),
	 * and returns the item's requests, ready to send. The router prepares every item before it
	 * sends the first, so a mistake in any item is found before anything is written.
	 */
	prepare: (this: IExecuteFunctions, run: OperationRun) => SendItem;
	/** Items are independent requests that may run several at a time (the Concurrency option). */
	concurrent?: boolean;
}

export const showFor = (resource: ResourceDefinition, operation: OperationName): IDisplayOptions => ({
	show: { resource: [resource.value], operation: [operation] },
});
