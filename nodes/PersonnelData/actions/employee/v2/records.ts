import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { sameId } from '../../../../shared/ids';
import type { ResourceDefinition } from '../../../../shared/registry';
import type { ApiRequest } from '../../../../shared/transport';
import { apiRequest } from '../../../../shared/transport';
import { recordPath } from '../../recordPath';
import { changeJson, describeChange, WRITE_CHANGES_FIELD } from '../changes';
import { WRITE_OUTCOME_FIELD } from './columns.description';

/** One request; the record of a `{ data }` answer. */
export async function send(context: IExecuteFunctions, request: ApiRequest): Promise<IDataObject> {
	const response = await apiRequest.call<IExecuteFunctions, [ApiRequest], Promise<IDataObject>>(context, request);
	return (response.data as IDataObject | undefined) ?? response;
}

/**
 * An id the batched list did not return: a list silently leaves out records the role may not
 * read (spec, authentication 8), so the record is asked for on its own, and the item gets the
 * API's exact 404 or 403 (or the record, if the list left it out for another reason).
 */
export async function readMissing(context: IExecuteFunctions, resource: ResourceDefinition, id: string, itemIndex: number): Promise<IDataObject> {
	const record = await send(context, { method: 'GET', path: recordPath(resource.paths.get as string, id), subject: `${resource.displayName} ${id}`, itemIndex });
	if (!sameId(record.id, id)) {
		throw new NodeOperationError(context.getNode(), `GET ${resource.displayName} ${id}: the API sent another record (${String(record.id)}); nothing was changed`, { itemIndex });
	}
	return record;
}

/** The employee's properties must be an object (or absent) for a write to compare and merge them. */
export function checkProperties(context: IExecuteFunctions, resource: ResourceDefinition, record: IDataObject, itemIndex: number): void {
	if (record.properties !== undefined && (record.properties === null || typeof record.properties !== 'object' || Array.isArray(record.properties))) {
		throw new NodeOperationError(context.getNode(), `${resource.displayName} ${String(record.id)}: the API returned properties that are not an object; nothing was changed`, { itemIndex });
	}
}

/** What a version 2 write did (the item's writeOutcome). */
export type WriteOutcome = 'created' | 'updated' | 'unchanged';

/** The write's output: the record as the API left it, what the write did and what it changed. */
export function writtenItem(before: IDataObject, after: IDataObject, outcome: WriteOutcome): IDataObject {
	return { ...after, [WRITE_OUTCOME_FIELD]: outcome, [WRITE_CHANGES_FIELD]: changeJson(describeChange(before, after)) };
}

export function severalMatches(context: IExecuteFunctions, matches: readonly IDataObject[], field: string, value: string, itemIndex: number): NodeOperationError {
	return new NodeOperationError(
		context.getNode(),
		`${matches.length} employees have ${field} ${value} (${matches.map((record) => String(record.id)).join(', ')}); nothing was changed. Expected one; match on a field that is unique`,
		{ itemIndex },
	);
}
