import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { z } from 'zod';

import { WRITE_ENVELOPE } from '../../../shared/apiChoices';
import { InputError } from '../../../shared/errors';
import { idKey } from '../../../shared/ids';
import type { ResourceDefinition } from '../../../shared/registry';
import { recordPath, requireUuid } from '../recordPath';
import { isToolCall } from '../toolMode';
import type { OperationRun, SendItem } from '../types';
import type { ChangeDescription } from './changes';
import { changedUnder, describeChange, fingerprintOf, isNoChange, predictAfter } from './changes';
import type { PreviewedRead, PreviewedRequest } from './preview';
import { PREVIEW_FIELD } from './preview';
import { checkSeal } from './previewSeal';
import type { MapperOperation } from './v2/columns';
import { WRITE_OUTCOME_FIELD } from './v2/columns.description';
import type { EmployeeLookup } from './v2/lookups';
import { lookupFor } from './v2/lookups';
import { checkProperties, readMissing, send, severalMatches, writtenItem } from './v2/records';

/**
 * Options › Write Mode › Apply a Preview: each input item is an item of a preview (./preview.ts),
 * and its write is sent exactly as previewed, only if the employee still reads as the preview read
 * it (its updated_at and every field's content). An employee that moved fails its item, naming
 * what changed; nothing else is written. A write already applied finds the employee as the write
 * leaves it and sends nothing (a replayed apply is "unchanged").
 */

const previewSchema = z.object({
	operation: z.string(),
	outcome: z.enum(['create', 'update', 'unchanged', 'error']),
	employeeId: z.string().optional(),
	match: z.object({ field: z.string().min(1), value: z.string().min(1) }).optional(),
	error: z.string().optional(),
	write: z
		.object({
			method: z.enum(['POST', 'PATCH', 'PUT']),
			path: z.string(),
			body: z.object({ [WRITE_ENVELOPE]: z.record(z.unknown()) }),
		})
		.optional(),
	read: z.object({ updated_at: z.string().nullable(), fingerprint: z.string() }).optional(),
	nonce: z.string().min(1),
	chain: z.object({ after: z.string().min(1) }).optional(),
	changes: z
		.object({
			fields: z.record(z.object({ before: z.unknown(), after: z.unknown() })),
			customProperties: z.record(z.object({ before: z.unknown(), after: z.unknown() })),
			histories: z.record(z.unknown()),
		})
		.optional(),
});

type Previewed = z.infer<typeof previewSchema>;

function parsePreview(json: IDataObject, operation: MapperOperation): Previewed {
	if (!(PREVIEW_FIELD in json)) {
		throw new InputError(`Input item › preview: missing; expected the items of a preview (Options › Write Mode › Preview Only) as this node's input`);
	}
	const parsed = previewSchema.safeParse(json[PREVIEW_FIELD]);
	if (!parsed.success) {
		const issue = parsed.error.issues[0];
		throw new InputError(`Input item › preview.${issue.path.join('.')}: ${issue.message}; expected the item as the preview gave it`);
	}
	if (parsed.data.operation !== operation) {
		throw new InputError(`Input item › preview.operation: "${parsed.data.operation}" was previewed; expected ${operation}, the operation of this node`);
	}
	return parsed.data;
}

/** The one write each operation may send for the record, exactly (an edited path or method is refused). */
function checkedWrite(resource: ResourceDefinition, operation: MapperOperation, previewed: Previewed): PreviewedRequest {
	const write = previewed.write;
	if (!write) throw new InputError(`Input item › preview.write: missing; expected the write the preview planned`);
	let expected: { method: string; path: string };
	if (previewed.outcome === 'create') expected = { method: 'POST', path: resource.paths.create as string };
	else if (previewed.employeeId === undefined && previewed.chain) {
		// The employee an earlier row of the chain creates: its id is the one that create returns.
		expected = { method: 'PATCH', path: resource.paths.update as string };
	} else {
		const id = requireUuid(previewed.employeeId ?? '', resource.displayName, `Input item › preview.employeeId`);
		expected = operation === 'replace' ? { method: 'PUT', path: recordPath(resource.paths.replace as string, id) } : { method: 'PATCH', path: recordPath(resource.paths.update as string, id) };
	}
	if (write.method !== expected.method || write.path !== expected.path) {
		throw new InputError(`Input item › preview.write: ${write.method} ${write.path} is not this item's write; expected ${expected.method} ${expected.path}`);
	}
	return write as PreviewedRequest;
}

/**
 * What moved since the preview: the parts of the write whose "before" is no longer what the
 * preview saw, the updated_at, and any other content (the fingerprint). Empty: write.
 */
function whatMoved(current: IDataObject, read: PreviewedRead, previewed: ChangeDescription, write: PreviewedRequest): string[] {
	const moved = changedUnder(previewed, describeChange(current, predictAfter(current, write.body[WRITE_ENVELOPE] as IDataObject, write.method)));
	if (moved.length === 0 && fingerprintOf(current) !== read.fingerprint) moved.push('fields outside this write');
	const stamp = typeof current.updated_at === 'string' ? current.updated_at : null;
	if (read.updated_at !== null && stamp !== read.updated_at) moved.unshift(`updated_at ${read.updated_at} → ${stamp ?? 'none'}`);
	return moved;
}

interface ApplyRun {
	context: IExecuteFunctions;
	resource: ResourceDefinition;
	itemIndex: number;
	/** The item's `preview` as it came: its seal is checked before anything is read or written. */
	sealed: IDataObject;
	nonce: string;
	steps: AppliedSteps;
}

/**
 * The rows this apply wrote or found unchanged, by their preview item's nonce, with the employee
 * as each left it: a chain's next row is checked against, and written on, exactly that state.
 */
type AppliedSteps = Map<string, { id: string; state: IDataObject }>;
const appliedSteps = (perRun: OperationRun['perRun']): AppliedSteps => perRun.of('preview rows applied', () => new Map());

/** An update or replace of a known employee. */
function applyUpdate(apply: ApplyRun, lookup: EmployeeLookup, id: string, write: PreviewedRequest, previewed: { read: PreviewedRead; changes: ChangeDescription }): SendItem {
	const { context, resource, itemIndex } = apply;
	return Object.assign(
		async () => {
			await checkSeal(context, apply.sealed);
			const [found] = await lookup.find(id, itemIndex);
			const current = found ?? (await readMissing(context, resource, id, itemIndex));
			checkProperties(context, resource, current, itemIndex);
			const data = write.body[WRITE_ENVELOPE] as IDataObject;
			if (isNoChange(describeChange(current, predictAfter(current, data, write.method)))) {
				apply.steps.set(apply.nonce, { id, state: current });
				return [writtenItem(current, current, 'unchanged')];
			}
			const moved = whatMoved(current, previewed.read, previewed.changes, write);
			if (moved.length > 0) {
				throw new NodeOperationError(
					context.getNode(),
					`${resource.displayName} ${id} changed since the preview (${moved.join(', ')}); not written. Preview again and approve the new changes`,
					{ itemIndex },
				);
			}
			const after = await send(context, { method: write.method, path: write.path, body: write.body, subject: `${resource.displayName} ${id}`, itemIndex });
			lookup.wrote(id, after);
			apply.steps.set(apply.nonce, { id, state: after });
			return [writtenItem(current, after, 'updated')];
		},
		{ recordKey: lookup.keyOf(id) },
	);
}

/** A create, only while nothing matches its key; a replay finds the employee it created and sends nothing. */
function applyCreate(apply: ApplyRun, lookup: EmployeeLookup, match: { field: string; value: string }, write: PreviewedRequest): SendItem {
	const { context, resource, itemIndex } = apply;
	const data = write.body[WRITE_ENVELOPE] as IDataObject;
	return Object.assign(
		async () => {
			await checkSeal(context, apply.sealed);
			const matches = await lookup.find(match.value, itemIndex);
			if (matches.length > 1) throw severalMatches(context, matches, match.field, match.value, itemIndex);
			if (matches.length === 1) {
				const [current] = matches;
				if (isNoChange(describeChange(current, predictAfter(current, data, 'PATCH')))) {
					apply.steps.set(apply.nonce, { id: String(current.id), state: current });
					return [writtenItem(current, current, 'unchanged')];
				}
				throw new NodeOperationError(
					context.getNode(),
					`${resource.displayName} ${String(current.id)} has ${match.field} ${match.value} now; the preview found none and would create one. Not written; preview again and approve the new changes`,
					{ itemIndex },
				);
			}
			const after = await send(context, { method: 'POST', path: write.path, body: write.body, itemIndex });
			lookup.wrote(match.value, after);
			apply.steps.set(apply.nonce, { id: String(after.id), state: after });
			return [writtenItem({}, after, 'created')];
		},
		{ recordKey: `${match.field}=${lookup.keyOf(match.value)}` },
	);
}

/**
 * A row that builds on an earlier row of the preview (`chain`): written only after that row was
 * written (or found unchanged) by this apply, checked against the state that row's write left
 * (not against the state the preview predicted, which a server may write differently in fields
 * this row does not touch), and on the employee that row wrote or created.
 */
function applyChained(apply: ApplyRun, ids: EmployeeLookup, after: string, recordKey: string, write: PreviewedRequest, previewed: { changes: ChangeDescription; employeeId?: string }): SendItem {
	const { context, resource, itemIndex } = apply;
	return Object.assign(
		async () => {
			await checkSeal(context, apply.sealed);
			const previous = apply.steps.get(after);
			if (!previous) {
				throw new NodeOperationError(
					context.getNode(),
					`Input item › preview.chain: this row builds on an earlier row of the preview for the same employee, which this apply did not write (not in its input, or refused); not written. Apply the rows of one employee together, in the preview's order`,
					{ itemIndex },
				);
			}
			if (previewed.employeeId !== undefined && idKey(previewed.employeeId) !== idKey(previous.id)) {
				throw new NodeOperationError(context.getNode(), `Input item › preview.chain: the earlier row wrote employee ${previous.id}, not ${previewed.employeeId}; not written`, { itemIndex });
			}
			const id = previous.id;
			const current = previous.state;
			const data = write.body[WRITE_ENVELOPE] as IDataObject;
			const leaves = describeChange(current, predictAfter(current, data, write.method));
			if (isNoChange(leaves)) {
				apply.steps.set(apply.nonce, { id, state: current });
				return [writtenItem(current, current, 'unchanged')];
			}
			const moved = changedUnder(previewed.changes, leaves);
			if (moved.length > 0) {
				throw new NodeOperationError(
					context.getNode(),
					`${resource.displayName} ${id} is not as the earlier row of the preview leaves it (${moved.join(', ')}); not written. Preview again and approve the new changes`,
					{ itemIndex },
				);
			}
			const written = await send(context, { method: write.method, path: recordPath(resource.paths.update as string, id), body: write.body, subject: `${resource.displayName} ${id}`, itemIndex });
			ids.wrote(id, written);
			apply.steps.set(apply.nonce, { id, state: written });
			return [writtenItem(current, written, 'updated')];
		},
		{ recordKey },
	);
}

/** Prepares one input item of Apply a Preview; nothing is sent while preparing. */
export function prepareApply(context: IExecuteFunctions, operation: MapperOperation, run: OperationRun): SendItem {
	const { resource, itemIndex } = run;
	if (isToolCall(context)) {
		throw new InputError('Options › Write Mode: an AI Agent\'s tool may preview (Preview Only) but not apply a preview, whose writes would come from the model; expected write or preview');
	}
	if (operation === 'create') {
		throw new InputError('Options › Write Mode: Create cannot apply a preview (nothing finds a created employee again, so a replay would create it twice); expected Create or Update, matched on a unique column');
	}
	const json = context.getInputData()[itemIndex]?.json ?? {};
	const previewed = parsePreview(json, operation);
	const sealed = json[PREVIEW_FIELD] as IDataObject;
	if (previewed.outcome === 'unchanged' || previewed.outcome === 'error') {
		const skipped: IDataObject = {
			...(previewed.employeeId ? { id: previewed.employeeId } : {}),
			[WRITE_OUTCOME_FIELD]: previewed.outcome === 'unchanged' ? 'unchanged' : 'skipped',
			...(previewed.outcome === 'error' ? { reason: `The preview found an error, so nothing was approved: ${previewed.error ?? 'no message'}` } : {}),
		};
		return async () => {
			await checkSeal(context, sealed);
			return [skipped];
		};
	}
	const write = checkedWrite(resource, operation, previewed);
	const apply: ApplyRun = { context, resource, itemIndex, sealed, nonce: previewed.nonce, steps: appliedSteps(run.perRun) };
	if (previewed.chain) {
		if (!previewed.changes) throw new InputError(`Input item › preview.changes: missing; expected the changes the preview described`);
		const ids = lookupFor(run.perRun, context, resource, 'id');
		// The same key as the row it builds on, so that the router sends it after that row.
		let recordKey: string;
		if (previewed.employeeId !== undefined) recordKey = ids.keyOf(idKey(previewed.employeeId));
		else if (previewed.match) recordKey = `${previewed.match.field}=${lookupFor(run.perRun, context, resource, previewed.match.field).keyOf(previewed.match.value)}`;
		else throw new InputError(`Input item › preview.match: missing; expected the column and value the preview matched on`);
		return applyChained(apply, ids, previewed.chain.after, recordKey, write, { changes: previewed.changes as ChangeDescription, employeeId: previewed.employeeId });
	}
	if (previewed.outcome === 'create') {
		if (!previewed.match) throw new InputError(`Input item › preview.match: missing; expected the column and value the preview matched on`);
		const lookup = lookupFor(run.perRun, context, resource, previewed.match.field);
		lookup.want(previewed.match.value);
		return applyCreate(apply, lookup, previewed.match, write);
	}
	if (!previewed.read) throw new InputError(`Input item › preview.read: missing; expected what the preview read of the employee`);
	if (!previewed.changes) throw new InputError(`Input item › preview.changes: missing; expected the changes the preview described`);
	const id = idKey(previewed.employeeId as string);
	const lookup = lookupFor(run.perRun, context, resource, 'id');
	lookup.want(id);
	return applyUpdate(apply, lookup, id, write, { read: previewed.read, changes: previewed.changes as ChangeDescription });
}
