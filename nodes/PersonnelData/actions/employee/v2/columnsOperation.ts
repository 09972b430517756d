import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { WRITE_ENVELOPE } from '../../../../shared/apiChoices';
import { InputError, toNodeError } from '../../../../shared/errors';
import { locatorValue } from '../../../../shared/listQuery/parse';
import type { ResourceDefinition } from '../../../../shared/registry';
import type { PerRun } from '../../read/perRun';
import { recordPath, requireUuid } from '../../recordPath';
import type { OperationRun, SendItem } from '../../types';
import type { WriteMethod } from '../changes';
import { describeChange, predictAfter, WRITE_CHANGES_FIELD } from '../changes';
import type { EmployeeWrite } from '../payload';
import type { PreviewItem } from '../preview';
import { isItemOutcome, previewedRead, sealedPreviewJson, writeModeOf } from '../preview';
import { newNonce } from '../previewSeal';
import { prepareApply } from '../apply';
import type { MapperOperation } from './columns';
import { WRITE_OUTCOME_FIELD } from './columns.description';
import type { ColumnsInput } from './columnsWrite';
import { checkedWrite, nothingToWrite, patchBody, readColumns, requireMatchValue, withHistoriesKept, withoutUnchanged } from './columnsWrite';
import type { EmployeeLookup } from './lookups';
import { lookupFor } from './lookups';
import type { WriteOutcome } from './records';
import { checkProperties, readMissing, send, severalMatches, writtenItem } from './records';

/**
 * What one item's write would do, from what was read (nothing is sent to plan it): a real run
 * sends `request`, a preview reports it (../preview.ts).
 */
interface Plan {
	outcome: 'create' | 'update' | 'unchanged';
	/** The employee as read (or as an earlier item of a preview would leave it); `{}` for one to create. */
	before: IDataObject;
	request?: { method: WriteMethod; path: string; body: IDataObject; subject?: string };
	match?: { field: string; value: string };
}

/**
 * Records a preview compared with as an earlier item would leave them (not as the server sent
 * them), each with the nonce of the item that predicted it: a later row on it is a chain's step.
 */
const predictedStates = (perRun: PerRun): WeakMap<IDataObject, string> => perRun.of('employee states a preview predicted', () => new WeakMap<IDataObject, string>());

const OUTCOME_OF: Record<Plan['outcome'], WriteOutcome> = { create: 'created', update: 'updated', unchanged: 'unchanged' };

interface Runner {
	context: IExecuteFunctions;
	resource: ResourceDefinition;
	run: OperationRun;
	operation: MapperOperation;
	preview: boolean;
}

/**
 * Carries out a plan (sends its request) or, in a preview, describes it. Either way the run's
 * lookup learns the state the item leaves, so a later item for the same employee sees it.
 */
async function carryOut(runner: Runner, plan: Plan, remember?: (record: IDataObject) => void): Promise<IDataObject[]> {
	const { context, run, preview } = runner;
	const { request, before } = plan;
	if (preview) {
		const id = before.id === undefined || before.id === null ? undefined : String(before.id as string);
		const after = request ? predictAfter(before, request.body[WRITE_ENVELOPE] as IDataObject, request.method) : before;
		const nonce = newNonce();
		const predicted = predictedStates(run.perRun);
		const previous = predicted.get(before);
		if (request && remember) {
			predicted.set(after, nonce);
			remember(after);
		}
		const item: PreviewItem = {
			operation: runner.operation,
			outcome: plan.outcome,
			...(id !== undefined ? { employeeId: id } : {}),
			...(plan.match ? { match: plan.match } : {}),
			changes: describeChange(before, after),
			...(request ? { write: { method: request.method, path: request.path, body: request.body } } : {}),
			...(plan.outcome !== 'create' ? { read: previewedRead(before, previous === undefined) } : {}),
			...(previous !== undefined ? { chain: { after: previous } } : {}),
		};
		return [await sealedPreviewJson(context, item, nonce)];
	}
	if (!request) return [writtenItem(before, before, 'unchanged')];
	const after = await send(context, { ...request, itemIndex: run.itemIndex });
	remember?.(after);
	return [writtenItem(before, after, OUTCOME_OF[plan.outcome])];
}

/** In a preview, the error the write would meet becomes the item's answer. */
function previewing(runner: Runner, plan: () => Promise<IDataObject[]>): () => Promise<IDataObject[]> {
	if (!runner.preview) return plan;
	return async () => {
		try {
			return await plan();
		} catch (error) {
			if (!isItemOutcome(error)) throw toNodeError(runner.context.getNode(), error, runner.run.itemIndex);
			return [await sealedPreviewJson(runner.context, { operation: runner.operation, outcome: 'error', error: error.message })];
		}
	};
}

/** Update's read-compare: what of the write the employee does not have yet. */
function planUpdate(runner: Runner, write: EmployeeWrite, record: IDataObject, input: ColumnsInput): Plan {
	const { context, resource, run } = runner;
	checkProperties(context, resource, record, run.itemIndex);
	const changes = input.options.writeUnchanged ? write : withoutUnchanged(write, record);
	if (nothingToWrite(changes)) return { outcome: 'unchanged', before: record };
	// A preview's employee that an earlier row creates has no id yet: the path keeps `{id}`, which
	// the apply fills in with the id that row's create returned.
	const id = record.id === undefined || record.id === null ? undefined : String(record.id as string);
	const template = resource.paths.update as string;
	return {
		outcome: 'update',
		before: record,
		request: {
			method: 'PATCH',
			path: id === undefined ? template : recordPath(template, id),
			body: patchBody(changes, record),
			subject: `${resource.displayName} ${id ?? '(created by an earlier row)'}`,
		},
	};
}

/** The item writes the record named by `key`: the router sends such items one after another. */
const forRecord = (key: string, sendItem: SendItem): SendItem => Object.assign(sendItem, { recordKey: key });

function prepareCreate(runner: Runner, input: ColumnsInput): SendItem {
	const { body } = checkedWrite(runner.resource, input, 'create');
	return previewing(runner, async () => await carryOut(runner, { outcome: 'create', before: {}, request: { method: 'POST', path: runner.resource.paths.create as string, body } }));
}

/** The employee with this id: from the run's batched lookup, or read on its own. */
async function employeeById(runner: Runner, lookup: EmployeeLookup, id: string): Promise<IDataObject> {
	const [found] = await lookup.find(id, runner.run.itemIndex);
	return found ?? (await readMissing(runner.context, runner.resource, id, runner.run.itemIndex));
}

function prepareReplace(runner: Runner, input: ColumnsInput): SendItem {
	const { resource, run, context } = runner;
	const id = requireUuid(locatorValue(run.read('id', '')), resource.displayName);
	const { body } = checkedWrite(resource, input, 'replace');
	// A dated column's single value is an entry from Options › Valid From, as in Update: the PUT
	// sends the property's history with it, so that a server that replaces the history given and
	// one that adds its entries by date leave the same history, the one the preview shows.
	const entries = checkedWrite(resource, input, 'update').historyEdits;
	// Read first (batched), so the item says what the replace changed.
	const lookup = lookupFor(run.perRun, context, resource, 'id');
	lookup.want(id);
	return forRecord(
		lookup.keyOf(id),
		previewing(runner, async () => {
			const request = { method: 'PUT' as const, path: recordPath(resource.paths.replace as string, id), body, subject: `${resource.displayName} ${id}` };
			let before: IDataObject;
			try {
				before = await employeeById(runner, lookup, id);
			} catch (error) {
				// A role with `update` and no `list` of employees replaced them before this read existed:
				// it still does, and the item says that what changed could not be read.
				if (runner.preview || !(error instanceof NodeApiError && error.httpCode === '403')) throw toNodeError(context.getNode(), error, run.itemIndex);
				const after = await send(context, { ...request, itemIndex: run.itemIndex });
				return [{ ...after, [WRITE_OUTCOME_FIELD]: 'updated', [WRITE_CHANGES_FIELD]: null }];
			}
			checkProperties(context, resource, before, run.itemIndex);
			return await carryOut(runner, { outcome: 'update', before, request: { ...request, body: withHistoriesKept(body, entries, before) } }, (record) => lookup.wrote(id, record));
		}),
	);
}

function prepareUpdate(runner: Runner, input: ColumnsInput): SendItem {
	const { resource, run, context } = runner;
	const id = requireUuid(locatorValue(run.read('id', '')), resource.displayName);
	const write = checkedWrite(resource, input, 'update');
	const lookup = lookupFor(run.perRun, context, resource, 'id');
	lookup.want(id);
	return forRecord(
		lookup.keyOf(id),
		previewing(runner, async () => {
			const record = await employeeById(runner, lookup, id);
			return await carryOut(runner, planUpdate(runner, write, record, input), (written) => lookup.wrote(id, written));
		}),
	);
}

/** The column Create or Update matches on: the mapper's choice, one field. */
export function matchField(run: OperationRun): string {
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

function prepareUpsert(runner: Runner, input: ColumnsInput): SendItem {
	const { context, resource, run } = runner;
	const field = matchField(run);
	const value = requireMatchValue(input, field);
	// Both ways are checked now, so bad input fails before anything is sent; a missing required
	// name only matters (and only fails the item) when the employee is to be created.
	const update = checkedWrite(resource, input, 'update');
	const create = createBodyOrReason(resource, input);
	const lookup: EmployeeLookup = lookupFor(run.perRun, context, resource, field);
	lookup.want(value);
	const { itemIndex } = run;
	const match = { field, value };
	const remember = (record: IDataObject) => lookup.wrote(value, record);
	// Items with the same key wait for each other (the router), so `find` sees the earlier write.
	return forRecord(
		`${field}=${lookup.keyOf(value)}`,
		previewing(runner, async () => {
			const matches = [...(await lookup.find(value, itemIndex))];
			if (matches.length > 1) throw severalMatches(context, matches, field, value, itemIndex);
			// An id is the server's to give: one the list did not return is read on its own (its 404 or
			// 403 fails the item), never created.
			if (matches.length === 0 && field === 'id') matches.push(await readMissing(context, resource, value, itemIndex));
			if (matches.length === 1) return await carryOut(runner, { ...planUpdate(runner, update, matches[0], input), match }, remember);
			if (create instanceof Error) throw create;
			// In a preview, a later row for this key builds on the employee this row would create.
			return await carryOut(runner, { outcome: 'create', before: {}, match, request: { method: 'POST', path: resource.paths.create as string, body: create } }, remember);
		}),
	);
}

/** The send of an item whose input is wrong, in a preview: the item says so, nothing is read. */
const previewOfBadInput = (context: IExecuteFunctions, operation: MapperOperation, error: Error): SendItem => async () => [
	await sealedPreviewJson(context, { operation, outcome: 'error', error: error.message }),
];

/** Node version 2's Create, Update, Replace and Create or Update: columns from the mapper. */
export function prepareColumnsWrite(context: IExecuteFunctions, operation: MapperOperation, run: OperationRun): SendItem {
	const mode = writeModeOf(run.read);
	if (mode === 'apply') return prepareApply(context, operation, run);
	const runner: Runner = { context, resource: run.resource, run, operation, preview: mode === 'preview' };
	try {
		const input = readColumns(context, run.resource, run);
		switch (operation) {
			case 'create':
				return prepareCreate(runner, input);
			case 'replace':
				return prepareReplace(runner, input);
			case 'update':
				return prepareUpdate(runner, input);
			case 'upsert':
				return prepareUpsert(runner, input);
		}
	} catch (error) {
		if (runner.preview && error instanceof InputError) return previewOfBadInput(context, operation, error);
		throw toNodeError(context.getNode(), error, run.itemIndex);
	}
}
