import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { toNodeError } from '../../shared/errors';
import { resourceByValue } from '../../shared/registry';
import { CONCURRENCY_MAX, mapConcurrently } from './concurrency';
import { operationsOf } from './operations';

function errorItem(error: Error, itemIndex: number): INodeExecutionData {
	const json: IDataObject = { error: error.message };
	const { description, httpCode } = error as { description?: string | null; httpCode?: string | null };
	if (description) json.description = description;
	if (httpCode) json.httpCode = httpCode;
	return { json, pairedItem: { item: itemIndex } };
}

export async function route(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = resourceByValue(this.getNodeParameter('resource', 0) as string);
	const operationName = this.getNodeParameter('operation', 0) as string;
	const operation = operationsOf(resource).find((offered) => offered.name === operationName);
	if (!operation) {
		throw new NodeOperationError(this.getNode(), `Operation "${operationName}" is not offered for ${resource.pluralName}`);
	}
	const concurrency = operation.concurrent
		? Math.min(CONCURRENCY_MAX, Math.max(1, Number(this.getNodeParameter('options.concurrency', 0, 1)) || 1))
		: 1;

	const settled = await mapConcurrently(items.length, concurrency, async (itemIndex) => {
		const read = <T>(name: string, fallback: T) => this.getNodeParameter(name, itemIndex, fallback as never) as T;
		try {
			return await operation.execute.call(this, { resource, itemIndex, read });
		} catch (error) {
			throw toNodeError(this.getNode(), error, itemIndex);
		}
	});

	// One pass, one wrapper per record: a Return All can hold hundreds of thousands of records,
	// too many for `push(...records)` (one call argument each) and worth not copying twice.
	const output: INodeExecutionData[] = [];
	settled.forEach((result, itemIndex) => {
		if (result.status === 'fulfilled') {
			for (const json of result.value) output.push({ json, pairedItem: { item: itemIndex } });
		} else if (this.continueOnFail()) output.push(errorItem(result.reason as Error, itemIndex));
		else throw result.reason;
	});
	return [output];
}
