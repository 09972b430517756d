import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { labelOf, optionsCollection, withArticle } from '../../../shared/descriptions/labels';
import { recordLocator } from '../../../shared/descriptions/recordLocator';
import { locatorValue } from '../../../shared/listQuery/parse';
import { asOfDay, datedValuesAsOfOption, hasDatedValues, simplifyProperty, simplifyRecords } from '../../../shared/listQuery/simplify';
import type { ResourceDefinition } from '../../../shared/registry';
import type { ApiRequest } from '../../../shared/transport';
import { apiRequest } from '../../../shared/transport';
import { concurrencyOption, CONCURRENCY_MAX } from '../concurrency';
import { readsInBatches, RecordsById } from '../read/recordsById';
import { recordPath, requireUuid } from '../recordPath';
import type { Operation } from '../types';
import { readWaitSettings, waitForOptions, waitUntilDone } from '../waitFor';

/** Options → Read in Batches, offered where the list can serve Get (see readsInBatches). */
export const readInBatchesOption: INodeProperties = {
	displayName: 'Read in Batches',
	name: 'readInBatches',
	type: 'boolean',
	default: true,
	description:
		'Whether several items read their records with one list request per 100 IDs (up to 3 at a time, or Concurrency when higher) instead of one request per item. A record the list leaves out is still asked for on its own, so each item gets its exact error (403, 404). Off: one request per item, Concurrency at a time.',
};

function optionsProperty(resource: ResourceDefinition): INodeProperties {
	const options: INodeProperties[] = [concurrencyOption];
	if (readsInBatches(resource)) options.push(readInBatchesOption);
	if (hasDatedValues(resource)) options.push(datedValuesAsOfOption);
	if (resource.waitFor) options.push(...waitForOptions(resource.waitFor));
	return optionsCollection(options);
}

/** The node's Concurrency (the router has checked it before any item) for the batch's list requests. */
function batchConcurrency(context: IExecuteFunctions): number {
	const concurrency = Number(context.getNodeParameter('options.concurrency', 0, 1));
	return Number.isInteger(concurrency) ? Math.min(Math.max(concurrency, 1), CONCURRENCY_MAX) : 1;
}

export const get: Operation<'get'> = {
	name: 'get',
	offeredFor: (resource) => resource.paths.get !== undefined,
	displayName: 'Get',
	builderHint: { propertyHint: 'Read one record by its ID (a UUID). Several items with one ID each are read in batches of 100.' },
	action: (resource) => `Get ${withArticle(resource.displayName.toLowerCase())} by ID`,
	description: (resource) => `Get one ${resource.displayName.toLowerCase()} by its ID (a UUID): one item, the API's JSON fields`,
	concurrent: true,
	properties: (resource) => [
		recordLocator({
			name: 'id',
			displayName: resource.displayName,
			what: resource.displayName.toLowerCase(),
			searchMethod: resource.search && resource.paths.list ? 'searchRecords' : undefined,
		}),
		...simplifyProperty(resource),
		optionsProperty(resource),
	],

	prepare({ resource, itemIndex, read, perRun }) {
		const id = requireUuid(locatorValue(read('id', '')), resource.displayName);
		const subject = `${resource.displayName} ${id}`;
		const options = read<IDataObject>('options', {});
		const simplify = read('simplify', false);
		const day = asOfDay(options.asOfDate);
		const wait = resource.waitFor && options.waitUntilDone ? { waitFor: resource.waitFor, settings: readWaitSettings(options) } : undefined;
		const fetchOnce = async () =>
			(
				await apiRequest.call<IExecuteFunctions, [ApiRequest], Promise<IDataObject>>(this, {
					method: 'GET',
					path: recordPath(resource.paths.get as string, id),
					subject,
					itemIndex,
				})
			).data as IDataObject;
		// Waiting polls each record on its own; everything else may share the run's batched read.
		const batch =
			!wait && readsInBatches(resource) && options.readInBatches !== false
				? perRun.of(`get:${resource.value}`, () => new RecordsById(this, resource, batchConcurrency(this)))
				: undefined;
		batch?.add(id);
		return async () => {
			const record = wait
				? await waitUntilDone(fetchOnce, wait.waitFor, wait.settings, `${subject} (${labelOf(wait.waitFor.field)})`)
				: ((await batch?.recordOf(id)) ?? (await fetchOnce()));
			return simplifyRecords([record], simplify, day);
		};
	},
};
