import type { ILoadOptionsFunctions, ResourceMapperFields } from 'n8n-workflow';

import { discoverFields } from '../../shared/fields/discover';
import { resourceByValue } from '../../shared/registry';
import type { MapperOperation } from '../actions/employee/v2/columns';
import { employeeColumns } from '../actions/employee/v2/columns';
import { COLUMNS_METHOD } from '../actions/employee/v2/columns.description';

const MAPPER_OPERATIONS: readonly MapperOperation[] = ['create', 'update', 'replace', 'upsert'];

/**
 * The column mapper's columns: the registry's writable fields and dated properties, and the
 * customer's own fields from the sample the field pickers share (one request per open form).
 */
async function getEmployeeColumns(this: ILoadOptionsFunctions): Promise<ResourceMapperFields> {
	const resource = resourceByValue(this.getNodeParameter('resource', 'employee') as string);
	const asked = this.getNodeParameter('operation', 'create') as string;
	const operation = MAPPER_OPERATIONS.find((name) => name === asked) ?? 'create';
	return { fields: employeeColumns(resource, await discoverFields(this, resource), operation) };
}

export const resourceMapping = { [COLUMNS_METHOD]: getEmployeeColumns };
