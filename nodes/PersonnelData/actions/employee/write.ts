import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { QUERY, WRITE_ENVELOPE } from '../../../shared/apiChoices';
import type { ParameterBuilderHint } from '../../../shared/descriptions/builderHint';
import { withArticle } from '../../../shared/descriptions/labels';
import { idKey, sameId } from '../../../shared/ids';
import type { ResourceDefinition } from '../../../shared/registry';

import { locatorValue } from '../../../shared/listQuery/parse';
import type { ApiRequest } from '../../../shared/transport';
import { apiRequest } from '../../../shared/transport';
import { employee } from '../../../shared/registry/resources/employee';
import { mergeHistories } from './datedHistory';
import { withUnnamedKeysKept, writesPropertyObjects } from './keepUnnamedKeys';
import type { WriteName } from './payload';
import { employeeWrite } from './payload';
import { employeeWriteProperties } from './v1/write.description';
import { employeeColumnsProperties } from './v2/columns.description';
import { prepareColumnsWrite } from './v2/columnsOperation';
import { inVersions, NODE_VERSION_COLUMNS } from '../versions';
import { recordPath, requireUuid } from '../recordPath';
import type { Operation } from '../types';


const METHODS = { create: 'POST', update: 'PATCH', replace: 'PUT' } as const;

/** `action` is also what n8n tells a model the tool does ("<action> in Personnel Data"). */
const WORDING: Record<WriteName, { displayName: string; action: (record: string) => string; description: string; builderHint: ParameterBuilderHint }> = {
	create: {
		displayName: 'Create',
		action: (record) => `Create ${record}`,
		description: 'Create a new record; returns it as the API stored it, with its new ID',
		builderHint: { propertyHint: 'Add one new employee (first_name and last_name required). To create or update by employee_number or email, use Create or Update.' },
	},
	update: {
		displayName: 'Update',
		action: (record) => `Update ${record} by ID`,
		description: 'Change the fields given and leave the others (PATCH); returns the updated record',
		builderHint: { propertyHint: 'Change some fields of one employee by ID; a new title, manager or org unit becomes an entry valid from a date and the history is kept.' },
	},
	replace: {
		displayName: 'Replace',
		action: (record) => `Replace ${record} by ID`,
		description: 'Replace the whole record (PUT); returns the stored record',
		builderHint: { propertyHint: 'Overwrite a whole employee by ID; fields left out are cleared. To change a few fields, use Update.' },
	},
};

/**
 * The employee's current histories and property objects, read just before the PATCH that replaces
 * them (the spec has
 * no version or ETag, so the read-merge-write is kept to this one request). The list endpoint is
 * used because the spec documents `select` and the id filter there: only `properties` is read.
 */
async function readHistories(
	this: IExecuteFunctions,
	resource: ResourceDefinition,
	id: string,
	properties: readonly string[],
	itemIndex: number,
): Promise<IDataObject> {
	const page = await apiRequest.call<IExecuteFunctions, [ApiRequest], Promise<IDataObject>>(this, {
		method: 'GET',
		path: resource.paths.list as string,
		query: {
			[QUERY.filter('id', 'op')]: 'eq',
			[QUERY.filter('id', 'value')]: id,
			[QUERY.select]: ['id', 'properties'],
			[QUERY.first]: 1,
		},
		expect: 'list',
		itemIndex,
	});
	const records = Array.isArray(page.data) ? (page.data as IDataObject[]) : [];
	const record = records.find((candidate) => candidate !== null && typeof candidate === 'object' && sameId(candidate.id, id));
	if (!record) {
		throw new NodeOperationError(
			this.getNode(),
			`${resource.displayName} ${id} was not found, or this credential's role may not read it; nothing was changed (reading its current ${properties.join(', ')} is needed to keep what this write does not name)`,
			{ itemIndex },
		);
	}
	if (record.properties !== undefined && (record.properties === null || typeof record.properties !== 'object' || Array.isArray(record.properties))) {
		throw new NodeOperationError(this.getNode(), `${resource.displayName} ${id}: the API returned properties that are not an object; nothing was changed`, { itemIndex });
	}
	return record;
}

/** Create, Update and Replace differ only in method, path and wording; each has its own file. */
export function employeeWriteOperation<Name extends WriteName>(name: Name): Operation<Name> {
	return {
		name,
		offeredFor: (resource) => resource === employee,
		displayName: WORDING[name].displayName,
		action: (resource) => WORDING[name].action(withArticle(resource.displayName.toLowerCase())),
		description: () => WORDING[name].description,
		builderHint: WORDING[name].builderHint,
		// Version 2 offers Options › Concurrency; version 1 has no such option, so its items run one at a time.
		concurrent: true,
		adaptiveWrites: true,
		properties: (resource) =>
			resource.writable
				? [
						...employeeWriteProperties(resource, resource.writable, name).map((property) => inVersions(property, [1])),
						...employeeColumnsProperties(resource, name).map((property) => inVersions(property, [NODE_VERSION_COLUMNS])),
					]
				: [],

		prepare(this: IExecuteFunctions, run) {
			if (this.getNode().typeVersion >= NODE_VERSION_COLUMNS) return prepareColumnsWrite(this, name, run);
			const { resource, itemIndex, read } = run;
			const { body, historyEdits } = employeeWrite(resource, name, read);
			const template = resource.paths[name] as string;
			let path = template;
			let subject: string | undefined;
			let id: string | undefined;
			if (template.includes('{id}')) {
				id = requireUuid(locatorValue(read('id', '')), resource.displayName);
				path = recordPath(template, id);
				subject = `${resource.displayName} ${id}`;
			}
			const send = async () => {
				// The read comes right before the PATCH: the window another client's change could be
				// overwritten in is one request long.
				const data = body[WRITE_ENVELOPE] as IDataObject;
				const keepsObjects = name === 'update' && writesPropertyObjects(data);
				if ((historyEdits.size > 0 || keepsObjects) && id !== undefined) {
					const kept = [...historyEdits.keys(), ...(keepsObjects ? Object.keys(data.properties as IDataObject) : [])];
					const current = await readHistories.call(this, resource, id, [...new Set(kept)], itemIndex);
					if (historyEdits.size > 0) data.properties = { ...((data.properties as IDataObject | undefined) ?? {}), ...mergeHistories(current, historyEdits) };
					if (keepsObjects) body[WRITE_ENVELOPE] = withUnnamedKeysKept(data, current);
				}
				const response = await apiRequest.call<IExecuteFunctions, [ApiRequest], Promise<IDataObject>>(this, {
					method: METHODS[name],
					path,
					body,
					subject,
					itemIndex,
				});
				return [(response.data as IDataObject | undefined) ?? response];
			};
			// Version 1 offers no Concurrency; should a saved workflow carry one, one record's writes stay in order.
			return id === undefined ? send : Object.assign(send, { recordKey: idKey(id) });
		},
	};
}
