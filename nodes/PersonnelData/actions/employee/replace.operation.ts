import { employeeWriteOperation } from './write';

export const replace = employeeWriteOperation('replace');
