import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { SHAPE_BODY_FIELD } from '../../../shared/apiChoices';
import { conditionProperty, filtersProperty, orderOptions, selectOption } from '../../../shared/listQuery/description';
import { readListQuery } from '../../../shared/listQuery/parse';
import { asOfDay, datedValuesAsOfOption, hasDatedValues, simplifyProperty, simplifyRecords } from '../../../shared/listQuery/simplify';
import { collectRecords, maxRequestsOption, readMaxRequests } from '../../../shared/pagination';
import { rangeField, rangePlan } from '../../../shared/rangePlan';
import { collectInRanges, PAGES_BEFORE_RANGES } from '../../../shared/rangedWalk';
import { maxInFlightOption, readMaxInFlight } from '../../../shared/rangeWorth';
import { optionsCollection } from '../../../shared/descriptions/labels';
import type { ResourceDefinition } from '../../../shared/registry';
import type { ApiRequest } from '../../../shared/transport';
import { checkWholeNumber } from '../../../shared/validation';
import { parseJsonObject } from '../json';
import type { Operation } from '../types';

/** The order Return All gives records in when no Order By is set (see rangedWalk.ts); the field's hint and the generated reference say it. */
export function unorderedReturnAll(resource: ResourceDefinition): string {
	const field = rangeField(resource);
	return field === undefined
		? 'in the API\'s own order, one page after another'
		: `oldest first by ${field}; when the first ${PAGES_BEFORE_RANGES} pages show the node mostly waiting for the API, the rest is read in ranges side by side, up to Options › Max Requests in Flight at once (in the API's own order if it refuses that)`;
}

const paginationProperties = (resource: ResourceDefinition): INodeProperties[] => [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
		hint: `Without Options › Order By: ${unorderedReturnAll(resource)}`,
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 50,
		description: 'Max number of results to return',
		displayOptions: { show: { returnAll: [false] } },
	},
];

function optionsProperty(resource: ResourceDefinition): INodeProperties {
	const options: INodeProperties[] = [selectOption(), ...orderOptions(resource), maxRequestsOption];
	if (rangeField(resource) !== undefined) options.push(maxInFlightOption);
	if (hasDatedValues(resource)) options.push(datedValuesAsOfOption);
	if (resource.paths.shape) {
		options.push({
			displayName: 'Shape (JSON)',
			name: 'shape',
			type: 'json',
			default: '',
			description:
				'Ask the API to return each record in this shape (sent to the shape endpoint), e.g. {"name": "first_name", "title": "properties.title"}',
		});
	}
	return optionsCollection(options);
}

const LIMIT_MAX = 10_000_000;

export const getMany: Operation<'getMany'> = {
	name: 'getMany',
	offeredFor: (resource) => resource.paths.list !== undefined,
	displayName: 'Get Many',
	builderHint: { propertyHint: 'List or search records: filters (field, operator, value), a saved condition, order, Limit or Return All. Changed since a date: filter updated_at with gte; search by name: ilike with %.' },
	action: (resource) => `Get many ${resource.pluralName.toLowerCase()} matching filters`,
	description: (resource) =>
		`List ${resource.pluralName.toLowerCase()} (filters, order, Limit or Return All): one item per record, the API's JSON fields`,
	properties: (resource) => [
		...paginationProperties(resource),
		...conditionProperty(resource),
		...filtersProperty(resource),
		...simplifyProperty(resource),
		optionsProperty(resource),
	],

	prepare({ resource, itemIndex, read }) {
		const query = readListQuery(resource, read);
		const options = read<IDataObject>('options', {});
		const shape = parseJsonObject(options.shape, 'Options › Shape (JSON)');
		const request: ApiRequest = shape
			? { method: 'POST', path: resource.paths.shape as string, query, body: { [SHAPE_BODY_FIELD]: shape }, idempotent: true, itemIndex }
			: { method: 'GET', path: resource.paths.list as string, query, itemIndex };
		const returnAll = read('returnAll', false);
		const limit = returnAll ? undefined : checkWholeNumber(read<unknown>('limit', 50), 'Limit', 1, LIMIT_MAX);
		const maxRequests = readMaxRequests(options.maxRequests);
		const maxInFlight = readMaxInFlight(options.maxInFlight);
		const simplify = read('simplify', false);
		const day = asOfDay(options.asOfDate);
		const plan = limit === undefined ? rangePlan(resource, request) : undefined;
		const collect = async () => {
			if (plan) {
				const inRanges = await collectInRanges.call(this, request, plan, { itemIndex, maxRequests, maxInFlight });
				if (Array.isArray(inRanges)) return inRanges;
				// Ranges refused (see rangedWalk.ts): one cursor, as the user asked, gives the exact answer.
			}
			return await collectRecords.call(this, request, { limit, itemIndex, maxRequests });
		};
		return async () => simplifyRecords(await collect(), simplify, day);
	},
};
