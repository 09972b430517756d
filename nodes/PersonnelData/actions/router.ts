import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { toNodeError } from '../../shared/errors';
import { resourceByValue } from '../../shared/registry';
import { checkWholeNumber } from '../../shared/validation';
import { CONCURRENCY_MAX, mapConcurrently } from './concurrency';
import { ItemParameters } from './itemParameters';
import { operationsOf } from './operations';
import { PerRun } from './read/perRun';
import { isToolCall } from './toolMode';
import type { SendItem } from './types';

/**
 * A failed item under On Error → Continue. `error` (the error object) is what n8n's "Continue
 * (using error output)" looks for to move the item to the error output (n8n-core
 * `WorkflowExecute.handleNodeErrorOutput`). n8n then stores such an item as
 * `{ json: { error: <message> }, error }` whatever else its json held (`processRunExecutionData`),
 * so the details (description: the API's inner errors and the request; context.itemIndex) travel
 * in `error`, which n8n keeps in its JSON form.
 */
function errorItem(error: Error, itemIndex: number): INodeExecutionData {
	return { json: { error: error.message }, error: error as INodeExecutionData['error'], pairedItem: { item: itemIndex } };
}

type Prepared = { send: SendItem } | { failure: Error };

export async function route(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = resourceByValue(this.getNodeParameter('resource', 0) as string);
	const operationName = this.getNodeParameter('operation', 0) as string;
	const operation = operationsOf(resource).find((offered) => offered.name === operationName);
	if (!operation) {
		throw new NodeOperationError(this.getNode(), `Operation "${operationName}" is not offered for ${resource.pluralName}`);
	}
	const continueOnFail = this.continueOnFail();
	// A node-wide setting: checked once, before any item. Under Continue a mistake here fails every
	// item (a thrown error would pass the input items on as if they had succeeded).
	let concurrency = 1;
	let nodeFailure: Error | undefined;
	if (operation.concurrent) {
		try {
			concurrency = checkWholeNumber(this.getNodeParameter('options.concurrency', 0, 1), 'Options › Concurrency', 1, CONCURRENCY_MAX);
		} catch (error) {
			nodeFailure = toNodeError(this.getNode(), error);
			if (!continueOnFail) throw nodeFailure;
		}
	}

	// 1. Every item's input, checked before anything is sent: under On Error → Stop a mistake in
	//    any item stops the node with nothing written; under Continue it fails that item alone.
	const perRun = new PerRun();
	// As an agent's tool the node runs one item, with parameters toolMode.ts rewrites: read those as given.
	const parameters = isToolCall(this) ? undefined : new ItemParameters(this);
	const prepared = items.map((_item, itemIndex): Prepared => {
		if (nodeFailure) return { failure: nodeFailure };
		const read = <T>(name: string, fallback: T): T =>
			parameters ? parameters.read(name, itemIndex, fallback) : (this.getNodeParameter(name, itemIndex, fallback as never) as T);
		try {
			return { send: operation.prepare.call(this, { resource, itemIndex, read, perRun }) };
		} catch (error) {
			const failure = toNodeError(this.getNode(), error, itemIndex);
			if (!continueOnFail) throw failure;
			return { failure };
		}
	});

	// 2. The requests, in input order (up to `concurrency` at a time; items that write one record
	//    one after another). Under On Error → Stop no item after the first failing one in input
	//    order starts: the items already in flight finish (their records are not output), an item
	//    waiting for an earlier write to its record is not sent. A cancelled execution starts none.
	const cancelSignal = this.getExecutionCancelSignal();
	let firstFailure = Number.POSITIVE_INFINITY;
	const settled = await mapConcurrently(
		items.length,
		concurrency,
		async (itemIndex) => {
			const item = prepared[itemIndex];
			if ('failure' in item) throw item.failure;
			try {
				return await item.send();
			} catch (error) {
				firstFailure = Math.min(firstFailure, itemIndex);
				throw toNodeError(this.getNode(), error, itemIndex);
			}
		},
		(itemIndex) => (firstFailure < itemIndex && !continueOnFail) || cancelSignal?.aborted === true,
		(itemIndex) => {
			const item = prepared[itemIndex];
			return 'send' in item ? item.send.recordKey : undefined;
		},
	);

	// One pass, one wrapper per record: a Return All can hold hundreds of thousands of records,
	// too many for `push(...records)` (one call argument each) and worth not copying twice.
	const output: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < settled.length; itemIndex++) {
		const result = settled[itemIndex];
		if (result === undefined) {
			// Under Concurrency a later item may have been sent (its record has another key): count.
			let notSent = 0;
			for (let index = itemIndex; index < settled.length; index++) if (settled[index] === undefined) notSent++;
			throw new NodeOperationError(this.getNode(), `The execution was cancelled; ${notSent} of the items from ${itemIndex + 1} on were not sent`);
		}
		if (result.status === 'fulfilled') {
			for (const json of result.value) output.push({ json, pairedItem: { item: itemIndex } });
		} else if (continueOnFail) output.push(errorItem(result.reason as Error, itemIndex));
		else throw result.reason;
	}
	return [output];
}
