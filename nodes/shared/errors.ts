import type { INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/** Bad input never reaches the API: this error names the parameter and what it expects. */
export class InputError extends Error {}

/** A wait for a final status ran out of time ("Wait for Delivery"). */
export class WaitTimeoutError extends Error {}

/**
 * The one mapping from this package's own errors to n8n's: input mistakes and waits that ran out
 * are the user's to fix, so they become NodeOperationErrors (at the item, when there is one).
 * Anything else (n8n's NodeApiErrors from the transport) passes unchanged.
 */
export function toNodeError(node: INode, error: unknown, itemIndex?: number): Error {
	if (error instanceof InputError || error instanceof WaitTimeoutError) {
		return new NodeOperationError(node, error.message, itemIndex === undefined ? {} : { itemIndex });
	}
	return error instanceof Error ? error : new NodeOperationError(node, String(error));
}
