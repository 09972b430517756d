import { employeeWriteOperation } from './write';

export const update = employeeWriteOperation('update');
