import type { IExecuteFunctions } from 'n8n-workflow';

import { withArticle } from '../../../shared/descriptions/labels';
import { employee } from '../../../shared/registry/resources/employee';
import type { Operation } from '../types';
import { inVersions, NODE_VERSION_COLUMNS } from '../versions';
import { employeeColumnsProperties } from './columns.description';
import { prepareColumnsWrite } from './columnsOperation';

/**
 * Create or Update (node version 2): finds the employee by the column matched on, updates it
 * keeping histories, or creates it. Named `upsert` because `createOrUpdate` is the system time
 * types' operation (keyed by a parent ID in the path) and saved workflows hold that value.
 */
export const upsert: Operation<'upsert'> = {
	name: 'upsert',
	offeredFor: (resource) => resource === employee,
	sinceVersion: NODE_VERSION_COLUMNS,
	displayName: 'Create or Update',
	builderHint: { propertyHint: 'Import or sync employees from a file or another system: match each item on one column (employee_number, email or id), create the missing ones, update only what differs, keep title and other histories.' },
	action: (resource) => `Create or update ${withArticle(resource.displayName.toLowerCase())}`,
	description: () => 'Find the record by the column matched on: update it when one matches (only what changed), create it when none does',
	concurrent: true,
	properties: (resource) => employeeColumnsProperties(resource, 'upsert').map((property) => inVersions(property, [NODE_VERSION_COLUMNS])),
	prepare(this: IExecuteFunctions, run) {
		return prepareColumnsWrite(this, 'upsert', run);
	},
};
