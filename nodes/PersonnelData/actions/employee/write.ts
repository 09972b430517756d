import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { locatorValue } from '../../../shared/listQuery/parse';
import type { ApiRequest } from '../../../shared/transport';
import { apiRequest } from '../../../shared/transport';
import { employee } from '../../../shared/registry/resources/employee';
import { employeeWriteBody } from './payload';
import { employeeWriteProperties } from './write.description';
import { recordPath, requireUuid } from '../recordPath';
import type { Operation } from '../types';

export type WriteName = 'create' | 'update' | 'replace';

const METHODS = { create: 'POST', update: 'PATCH', replace: 'PUT' } as const;

const WORDING: Record<WriteName, { displayName: string; verb: string; description: string }> = {
	create: { displayName: 'Create', verb: 'Create', description: 'Create a new record' },
	update: { displayName: 'Update', verb: 'Update', description: 'Change the fields given and leave the others (PATCH)' },
	replace: { displayName: 'Replace', verb: 'Replace', description: 'Replace the whole record (PUT)' },
};

/** Create, Update and Replace differ only in method, path and wording; each has its own file. */
export function employeeWriteOperation(name: WriteName): Operation {
	return {
		name,
		offeredFor: (resource) => resource === employee,
		displayName: WORDING[name].displayName,
		action: (resource) => `${WORDING[name].verb} ${resource.displayName.toLowerCase()}`,
		description: () => WORDING[name].description,
		properties: (resource, displayOptions) =>
			resource.writable ? employeeWriteProperties(resource, resource.writable, name, displayOptions) : [],

		prepare(this: IExecuteFunctions, { resource, itemIndex, read }) {
			const body = employeeWriteBody(resource, name, read);
			const template = resource.paths[name] as string;
			let path = template;
			let subject: string | undefined;
			if (template.includes('{id}')) {
				const id = requireUuid(locatorValue(read('id', '')), resource.displayName);
				path = recordPath(template, id);
				subject = `${resource.displayName} ${id}`;
			}
			return async () => {
				const response = await apiRequest.call<IExecuteFunctions, [ApiRequest], Promise<IDataObject>>(this, {
					method: METHODS[name],
					path,
					body,
					subject,
					itemIndex,
				});
				return [(response.data as IDataObject | undefined) ?? response];
			};
		},
	};
}
