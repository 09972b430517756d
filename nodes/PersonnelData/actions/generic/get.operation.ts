import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { labelOf, optionsCollection, withArticle } from '../../../shared/descriptions/labels';
import { recordLocator } from '../../../shared/descriptions/recordLocator';
import { locatorValue } from '../../../shared/listQuery/parse';
import { asOfDay, datedValuesAsOfOption, hasDatedValues, simplifyProperty, simplifyRecords } from '../../../shared/listQuery/simplify';
import type { ResourceDefinition } from '../../../shared/registry';
import type { ApiRequest } from '../../../shared/transport';
import { apiRequest } from '../../../shared/transport';
import { concurrencyOption } from '../concurrency';
import { recordPath, requireUuid } from '../recordPath';
import type { Operation } from '../types';
import { readWaitSettings, waitForOptions, waitUntilDone } from '../waitFor';

function optionsProperty(resource: ResourceDefinition): INodeProperties {
	const options: INodeProperties[] = [concurrencyOption];
	if (hasDatedValues(resource)) options.push(datedValuesAsOfOption);
	if (resource.waitFor) options.push(...waitForOptions(resource.waitFor));
	return optionsCollection(options);
}

export const get: Operation = {
	name: 'get',
	offeredFor: (resource) => resource.paths.get !== undefined,
	displayName: 'Get',
	action: (resource) => `Get ${withArticle(resource.displayName.toLowerCase())} by ID`,
	description: (resource) => `Get one ${resource.displayName.toLowerCase()} by its ID (a UUID): one item, the API's JSON fields`,
	concurrent: true,
	properties: (resource, displayOptions) =>
		[
			recordLocator({
				name: 'id',
				displayName: resource.displayName,
				what: resource.displayName.toLowerCase(),
				searchMethod: resource.search && resource.paths.list ? 'searchRecords' : undefined,
				displayOptions,
			}),
			...simplifyProperty(resource, displayOptions),
			optionsProperty(resource),
		].map((property) => ({ displayOptions, ...property })),

	prepare({ resource, itemIndex, read }) {
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
		return async () => {
			const record = wait
				? await waitUntilDone(fetchOnce, wait.waitFor, wait.settings, `${subject} (${labelOf(wait.waitFor.field)})`)
				: await fetchOnce();
			return simplifyRecords([record], simplify, day);
		};
	},
};
