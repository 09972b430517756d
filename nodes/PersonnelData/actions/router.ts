import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { toNodeError } from '../../shared/errors';
import { resourceByValue } from '../../shared/registry';
import { checkWholeNumber } from '../../shared/validation';
import { gateFor, NotSentAfterFailure } from '../../shared/transport/rateGate';
import { AdaptiveLimit } from '../../shared/transport/adaptiveLimit';
import type { InFlightLimit } from './concurrency';
import { CONCURRENCY_MAX, mapConcurrently, WRITE_CONCURRENCY_DEFAULT, WRITE_CONCURRENCY_MAX } from './concurrency';
import { NODE_VERSION_COLUMNS } from './versions';
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
	// Version 1 keeps one write at a time unless its (hidden) Concurrency says otherwise.
	const adaptive = operation.adaptiveWrites === true && this.getNode().typeVersion >= NODE_VERSION_COLUMNS;
	let ceiling = 1;
	let nodeFailure: Error | undefined;
	if (operation.concurrent || adaptive) {
		try {
			const [fallback, most] = adaptive ? [WRITE_CONCURRENCY_DEFAULT, WRITE_CONCURRENCY_MAX] : [1, CONCURRENCY_MAX];
			ceiling = checkWholeNumber(this.getNodeParameter('options.concurrency', 0, fallback), 'Options › Concurrency', 1, most);
		} catch (error) {
			nodeFailure = toNodeError(this.getNode(), error);
			if (!continueOnFail) throw nodeFailure;
		}
	}
	let concurrency: number | InFlightLimit = ceiling;
	if (adaptive && ceiling > 1) {
		const limit = new AdaptiveLimit(ceiling);
		gateFor(this).observe((report) => limit.report(report));
		concurrency = limit;
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
	const gate = gateFor(this);
	// Items whose write was held back because an earlier item had failed: not sent, not failed.
	const notSent = new Set<number>();
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
				if (error instanceof NotSentAfterFailure) notSent.add(itemIndex);
				else {
					firstFailure = Math.min(firstFailure, itemIndex);
					if (!continueOnFail) gate.stopWritesAfter(itemIndex);
				}
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
		else throw withLaterOutcomes(result.reason as Error, settled, itemIndex, notSent);
	}
	return [output];
}

const indexList = (indexes: number[]): string => (indexes.length > 10 ? `${indexes.slice(0, 10).join(', ')} and ${indexes.length - 10} more` : indexes.join(', '));

/**
 * Under On Error → Stop with several items in flight, items after the failing one may already have
 * been sent when it failed: the error says which were done (their records are not output) and which
 * failed, so that no write goes unreported.
 */
function withLaterOutcomes(error: Error, settled: Array<PromiseSettledResult<unknown> | undefined>, failedIndex: number, notSent: Set<number>): Error {
	const done: number[] = [];
	const failed: number[] = [];
	for (let index = failedIndex + 1; index < settled.length; index++) {
		const result = settled[index];
		if (result?.status === 'fulfilled') done.push(index);
		else if (result?.status === 'rejected' && !notSent.has(index)) failed.push(index);
	}
	if (done.length === 0 && failed.length === 0) return error;
	const parts = [`Items already sent when item ${failedIndex} failed (item indexes from 0; their output is not passed on):`];
	if (done.length > 0) parts.push(`done: ${indexList(done)}`);
	if (failed.length > 0) parts.push(`failed too: ${indexList(failed)}`);
	const described = error as Error & { description?: string | null };
	described.description = [described.description, parts.join(' ')].filter(Boolean).join('\n\n');
	return error;
}
