import type { OperationName } from '../../../shared/registry';
import type { Operation } from '../types';
import { createOrUpdate } from './createOrUpdate.operation';
import { create, replace, update } from './employeeWrite.operation';
import { get } from './get.operation';
import { getMany } from './getMany.operation';

export const OPERATIONS: Record<OperationName, Operation> = { create, createOrUpdate, get, getMany, replace, update };
