import type { ResourceDefinition } from '../../shared/registry';
import { create } from './employee/create.operation';
import { replace } from './employee/replace.operation';
import { update } from './employee/update.operation';
import { upsert } from './employee/upsert.operation';
import { get } from './generic/get.operation';
import { getMany } from './generic/getMany.operation';
import { createOrUpdate } from './systemTimeType/createOrUpdate.operation';
import type { Operation } from './types';

/**
 * Every operation of the node, in the order the form lists them. The form's Operation options and
 * the router both derive from this list through each operation's `offeredFor`: an operation added
 * here is offered wherever it says, and one left out is offered nowhere (the type check names it,
 * because its `name` must be a key of this object).
 */
export const OPERATIONS = { create, createOrUpdate, get, getMany, replace, update, upsert } satisfies Record<string, Operation>;

export type OperationName = keyof typeof OPERATIONS;

export function operationsOf(resource: ResourceDefinition): Operation[] {
	return Object.values(OPERATIONS).filter((operation) => operation.offeredFor(resource));
}
