import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { InputError } from '../../../../shared/errors';
import { idKey, sameId } from '../../../../shared/ids';
import { locatorValue } from '../../../../shared/listQuery/parse';
import type { ResourceDefinition } from '../../../../shared/registry';
import type { ApiRequest } from '../../../../shared/transport';
import { apiRequest } from '../../../../shared/transport';
import { recordPath, requireUuid } from '../../recordPath';
import type { OperationRun, SendItem } from '../../types';
import type { MapperOperation } from './columns';
import { WRITE_OUTCOME_FIELD } from './columns.description';
import type { ColumnsInput } from './columnsWrite';
import { checkedWrite, nothingToWrite, patchBody, readColumns, requireMatchValue, withoutUnchanged } from './columnsWrite';
import type { EmployeeLookup } from './lookups';
import { lookupFor } from './lookups';
import type { EmployeeWrite } from '../payload';

export type WriteOutcome = 'created' | 'updated' | 'unchanged';

const withOutcome = (record: IDataObject, outcome: WriteOutcome): IDataObject => ({ ...record, [WRITE_OUTCOME_FIELD]: outcome });

async function send(context: IExecuteFunctions, request: ApiRequest): Promise<IDataObject> {
	const response = await apiRequest.call<IExecuteFunctions, [ApiRequest], Promise<IDataObject>>(context, request);
	return (response.data as IDataObject | undefined) ?? response;
}

/** Update's read-compare-write on one employee read in the run's lookup (by id or by the key matched on). */
async function updateRead(
	context: IExecuteFunctions,
	resource: ResourceDefinition,
	write: EmployeeWrite,
	record: IDataObject,
	input: ColumnsInput,
	itemIndex: number,
): Promise<{ record: IDataObject; outcome: WriteOutcome }> {
	const id = String(record.id);
	if (record.properties !== undefined && (record.properties === null || typeof record.properties !== 'object' || Array.isArray(record.properties))) {
		throw new NodeOperationError(context.getNode(), `${resource.displayName} ${id}: the API returned properties that are not an object; nothing was changed`, { itemIndex });
	}
	const changes = input.options.writeUnchanged ? write : withoutUnchanged(write, record);
	if (nothingToWrite(changes)) return { record, outcome: 'unchanged' };
	const updated = await send(context, {
		method: 'PATCH',
		path: recordPath(resource.paths.update as string, id),
		body: patchBody(changes, record),
		subject: `${resource.displayName} ${id}`,
		itemIndex,
	});
	return { record: updated, outcome: 'updated' };
}

/** The item writes the record named by `key`: the router sends such items one after another. */
const forRecord = (key: string, send: SendItem): SendItem => Object.assign(send, { recordKey: key });

function prepareCreate(context: IExecuteFunctions, resource: ResourceDefinition, input: ColumnsInput, itemIndex: number): SendItem {
	const { body } = checkedWrite(resource, input, 'create');
	return async () => [withOutcome(await send(context, { method: 'POST', path: resource.paths.create as string, body, itemIndex }), 'created')];
}

function prepareReplace(context: IExecuteFunctions, resource: ResourceDefinition, input: ColumnsInput, run: OperationRun): SendItem {
	const id = requireUuid(locatorValue(run.read('id', '')), resource.displayName);
	const { body } = checkedWrite(resource, input, 'replace');
	const request: ApiRequest = { method: 'PUT', path: recordPath(resource.paths.replace as string, id), body, subject: `${resource.displayName} ${id}`, itemIndex: run.itemIndex };
	return forRecord(idKey(id), async () => [withOutcome(await send(context, request), 'updated')]);
}

/**
 * An id the batched list did not return: a list silently leaves out records the role may not
 * read (spec, authentication 8), so the record is asked for on its own, and the item gets the
 * API's exact 404 or 403 (or the record, if the list left it out for another reason).
 */
async function readMissing(context: IExecuteFunctions, resource: ResourceDefinition, id: string, itemIndex: number): Promise<IDataObject> {
	const record = await send(context, { method: 'GET', path: recordPath(resource.paths.get as string, id), subject: `${resource.displayName} ${id}`, itemIndex });
	if (!sameId(record.id, id)) {
		throw new NodeOperationError(context.getNode(), `GET ${resource.displayName} ${id}: the API sent another record (${String(record.id)}); nothing was changed`, { itemIndex });
	}
	return record;
}

function prepareUpdate(context: IExecuteFunctions, resource: ResourceDefinition, input: ColumnsInput, run: OperationRun): SendItem {
	const id = requireUuid(locatorValue(run.read('id', '')), resource.displayName);
	const write = checkedWrite(resource, input, 'update');
	const lookup = lookupFor(run.perRun, context, resource, 'id');
	lookup.want(id);
	return forRecord(lookup.keyOf(id), async () => {
		const [found] = await lookup.find(id, run.itemIndex);
		const record = found ?? (await readMissing(context, resource, id, run.itemIndex));
		const result = await updateRead(context, resource, write, record, input, run.itemIndex);
		if (result.outcome === 'updated') lookup.wrote(id, result.record);
		return [withOutcome(result.record, result.outcome)];
	});
}

/** The column Create or Update matches on: the mapper's choice, one field. */
function matchField(run: OperationRun): string {
	const chosen = run.read<IDataObject | null>('columns', {})?.matchingColumns;
	const columns = Array.isArray(chosen) ? chosen.map(String).filter(Boolean) : [];
	if (columns.length !== 1) {
		throw new InputError(`Columns › Columns to Match On: ${columns.length === 0 ? 'none chosen' : `${columns.length} chosen`}; expected one field, such as employee_number or email`);
	}
	return columns[0];
}

/** Create's body, or why the item cannot create an employee (an InputError, thrown only if it must). */
function createBodyOrReason(resource: ResourceDefinition, input: ColumnsInput): IDataObject | InputError {
	try {
		return checkedWrite(resource, input, 'create').body;
	} catch (error) {
		return error instanceof InputError ? error : new InputError(error instanceof Error ? error.message : String(error));
	}
}

function prepareUpsert(context: IExecuteFunctions, resource: ResourceDefinition, input: ColumnsInput, run: OperationRun): SendItem {
	const field = matchField(run);
	const value = requireMatchValue(input, field);
	// Both ways are checked now, so bad input fails before anything is sent; a missing required
	// name only matters (and only fails the item) when the employee is to be created.
	const update = checkedWrite(resource, input, 'update');
	const create = createBodyOrReason(resource, input);
	const lookup: EmployeeLookup = lookupFor(run.perRun, context, resource, field);
	lookup.want(value);
	const { itemIndex } = run;
	// Items with the same key wait for each other (the router), so `find` sees the earlier write.
	return forRecord(`${field}=${lookup.keyOf(value)}`, async () => {
		const matches = [...(await lookup.find(value, itemIndex))];
		if (matches.length > 1) {
			throw new NodeOperationError(
				context.getNode(),
				`${matches.length} employees have ${field} ${value} (${matches.map((record) => String(record.id)).join(', ')}); nothing was changed. Expected one; match on a field that is unique`,
				{ itemIndex },
			);
		}
		// An id is the server's to give: one the list did not return is read on its own (its 404 or
		// 403 fails the item), never created.
		if (matches.length === 0 && field === 'id') matches.push(await readMissing(context, resource, value, itemIndex));
		if (matches.length === 1) {
			const result = await updateRead(context, resource, update, matches[0], input, itemIndex);
			if (result.outcome === 'updated') lookup.wrote(value, result.record);
			return [withOutcome(result.record, result.outcome)];
		}
		if (create instanceof Error) throw create;
		const created = await send(context, { method: 'POST', path: resource.paths.create as string, body: create, itemIndex });
		lookup.wrote(value, created);
		return [withOutcome(created, 'created')];
	});
}

/** Node version 2's Create, Update, Replace and Create or Update: columns from the mapper. */
export function prepareColumnsWrite(context: IExecuteFunctions, operation: MapperOperation, run: OperationRun): SendItem {
	const { resource } = run;
	const input = readColumns(context, resource, run);
	switch (operation) {
		case 'create':
			return prepareCreate(context, resource, input, run.itemIndex);
		case 'replace':
			return prepareReplace(context, resource, input, run);
		case 'update':
			return prepareUpdate(context, resource, input, run);
		case 'upsert':
			return prepareUpsert(context, resource, input, run);
	}
}
