import type { ResourceDefinition } from '../../shared/registry';
import { create } from './employee/create.operation';
import { replace } from './employee/replace.operation';
import { update } from './employee/update.operation';
import { upsert } from './employee/v2/upsert.operation';
import { get } from './generic/get.operation';
import { getMany } from './generic/getMany.operation';
import { createOrUpdate } from './systemTimeType/createOrUpdate.operation';
import type { Operation } from './types';

/** A table whose every key is the `name` of the operation it holds (the type check says otherwise). */
const byName = <Table extends { [Name in keyof Table]: Operation<Name & string> }>(table: Table): Table => table;

/**
 * Every operation of the node, in the order the form lists them. The form's Operation options and
 * the router both derive from this list through each operation's `offeredFor`: an operation added
 * here is offered wherever it says. One left out would be offered nowhere: a test reads every
 * `*.operation.ts` file and fails for an operation missing here.
 */
export const OPERATIONS = byName({ create, createOrUpdate, get, getMany, replace, update, upsert });

export type OperationName = keyof typeof OPERATIONS;

export function operationsOf(resource: ResourceDefinition): Operation[] {
	return Object.values(OPERATIONS).filter((operation) => operation.offeredFor(resource));
}
