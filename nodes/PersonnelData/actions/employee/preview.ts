import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { InputError } from '../../../shared/errors';
import type { OperationRun } from '../types';
import type { ChangeDescription, WriteMethod } from './changes';
import { changeJson, fingerprintOf } from './changes';
import { sealPreview } from './previewSeal';

/**
 * Preview and apply (version 2 writes, Options › Write Mode). A preview reads and compares as a
 * write does and sends no write: each item says what the write would do and the exact change. An
 * apply takes those items (later in the workflow, or in another execution after an approval) and
 * sends exactly the previewed requests, each only if its employee has not moved since (./apply.ts).
 */
export type WriteMode = 'write' | 'preview' | 'apply';

export const WRITE_MODES: ReadonlyArray<{ name: string; value: WriteMode; description: string }> = [
	{ name: 'Write', value: 'write', description: 'Write now' },
	{
		name: 'Preview Only',
		value: 'preview',
		description: 'Read and compare as a write does, send no write: each item says create, update, unchanged or the error, and the exact change',
	},
	{
		name: 'Apply a Preview',
		value: 'apply',
		description: 'The input items are a preview\'s items: send exactly their writes, each only if the employee has not changed since the preview',
	},
];

/** Options › Write Mode, with the modes an operation offers (absent: write, as before the option existed). */
export function writeModeOption(offered: readonly WriteMode[]): INodeProperties {
	return {
		displayName: 'Write Mode',
		name: 'writeMode',
		type: 'options',
		options: WRITE_MODES.filter((mode) => offered.includes(mode.value)).map((mode) => ({ ...mode })),
		default: 'write',
		description: offered.includes('apply')
			? 'Write now, preview the writes without sending them, or apply the items of an earlier preview'
			: 'Write now, or preview the writes without sending them',
	};
}

/** The output field of a preview item. */
export const PREVIEW_FIELD = 'preview';

/**
 * What the write would do. `createOrUpdate`: a write whose target the API decides and no read can
 * tell beforehand (a system time type, matched by the server on its code or external ID).
 */
export type PreviewOutcome = 'create' | 'update' | 'unchanged' | 'error' | 'createOrUpdate';

export function writeModeOf(read: OperationRun['read']): WriteMode {
	const mode = read<unknown>('options.writeMode', 'write');
	if (WRITE_MODES.some((known) => known.value === mode)) return mode as WriteMode;
	throw new InputError(`Options › Write Mode: "${String(mode)}" is not a mode; expected one of ${WRITE_MODES.map((known) => known.value).join(', ')}`);
}

/** The exact write a preview approves: what an apply sends. */
export interface PreviewedRequest {
	/** An employee write's method (a system time type's is always POST). */
	method: WriteMethod;
	path: string;
	body: IDataObject;
}

/** What the preview read of the employee: an apply writes only if it reads the same. */
export interface PreviewedRead {
	/** The record's updated_at; null when the preview compared with the state an earlier item would leave. */
	updated_at: string | null;
	/** A hash of the whole content (./changes.ts); no value can be read back from it. */
	fingerprint: string;
}

export interface PreviewItem {
	operation: string;
	outcome: PreviewOutcome;
	/** The employee to update (absent: one to create). */
	employeeId?: string;
	/** Create or Update: the column matched on and its value. */
	match?: { field: string; value: string };
	error?: string;
	/** Why the outcome is what it is, where the item alone does not say it. */
	note?: string;
	changes?: ChangeDescription;
	write?: PreviewedRequest;
	read?: PreviewedRead;
	/**
	 * The row builds on an earlier row of the preview for the same employee (or the same new key):
	 * the `nonce` of that row's item. It was previewed against the state that row leaves, and an
	 * apply writes it only after that row, against the state that row's write left.
	 */
	chain?: { after: string };
}

export function previewedRead(record: IDataObject, fromServer: boolean): PreviewedRead {
	const updatedAt = record.updated_at;
	return { updated_at: fromServer && typeof updatedAt === 'string' ? updatedAt : null, fingerprint: fingerprintOf(record) };
}

export function previewJson(item: PreviewItem): IDataObject {
	const { changes, ...rest } = item;
	return { [PREVIEW_FIELD]: { ...rest, ...(changes ? { changes: changeJson(changes) } : {}) } as IDataObject };
}

/** A preview item an apply takes: sealed (./previewSeal.ts), so that an edit of it is refused. */
export async function sealedPreviewJson(context: IExecuteFunctions, item: PreviewItem, nonce?: string): Promise<IDataObject> {
	return { [PREVIEW_FIELD]: await sealPreview(context, previewJson(item)[PREVIEW_FIELD] as IDataObject, nonce) };
}

/**
 * Whether an error is one the write itself would meet for this item (bad input, several matches,
 * an unknown or unreadable id): a preview reports it in the item. Anything else (the lookup's list
 * failing, the connection) fails the preview as it would fail the write.
 */
export function isItemOutcome(error: unknown): error is Error {
	if (error instanceof InputError || error instanceof NodeOperationError) return true;
	return error instanceof NodeApiError && (error.httpCode === '404' || error.httpCode === '403');
}
