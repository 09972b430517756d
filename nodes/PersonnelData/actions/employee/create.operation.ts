import { employeeWriteOperation } from './write';

export const create = employeeWriteOperation('create');
