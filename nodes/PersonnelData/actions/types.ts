import type { IDataObject, IDisplayOptions, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { ParameterBuilderHint } from '../../shared/descriptions/builderHint';
import type { ResourceDefinition } from '../../shared/registry';
import type { PerRun } from './read/perRun';

export interface OperationRun {
	resource: ResourceDefinition;
	itemIndex: number;
	/** The node parameter at this item, with a fallback. */
	read: <T>(name: string, fallback: T) => T;
	/** What the run's items share (one batched read for all of them); see read/perRun.ts. */
	perRun: PerRun;
}

/**
 * The requests of one item, checked and ready: the records to output. `recordKey` names the record
 * the item writes (its id, or the value Create or Update matches on): under Concurrency, items of
 * one run with the same key are sent one after another in input order; items without one overlap.
 */
export type SendItem = (() => Promise<IDataObject[]>) & { recordKey?: string };

/**
 * One operation of the node: its form, its request, and the resources it is offered for. `Name` is
 * its parameter value, which must also be its key in OPERATIONS (operations.ts checks that).
 */
export interface Operation<Name extends string = string> {
	name: Name;
	/** Whether the node offers this operation for a resource (the form and the router ask this). */
	offeredFor: (resource: ResourceDefinition) => boolean;
	/** The first node version that offers it (absent: every version). */
	sinceVersion?: number;
	displayName: string;
	/** The action label n8n shows in the node panel, e.g. "Get many employees". */
	action: (resource: ResourceDefinition) => string;
	description: (resource: ResourceDefinition) => string;
	/** For n8n's AI Workflow Builder: which requests this operation answers (builderHint.ts). */
	builderHint: ParameterBuilderHint;
	/**
	 * The operation's fields for a resource, without its resource and operation conditions: the form
	 * adds those to every field (actions/description.ts); a field may bring its own (Return All off,
	 * a node version).
	 */
	properties: (resource: ResourceDefinition) => INodeProperties[];
	/**
	 * Reads and checks the item's parameters, sending nothing (bad input throws InputError here),
	 * and returns the item's requests, ready to send. The router prepares every item before it
	 * sends the first, so a mistake in any item is found before anything is written.
	 */
	prepare: (this: IExecuteFunctions, run: OperationRun) => SendItem;
	/**
	 * Items may run several at a time (the Concurrency option); items that write one record
	 * (the same `recordKey`) still run in input order.
	 */
	concurrent?: boolean;
}

export const showFor = (resource: ResourceDefinition, operation: string): IDisplayOptions => ({
	show: { resource: [resource.value], operation: [operation] },
});
