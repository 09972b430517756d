import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { SHAPE_BODY_FIELD } from '../../../shared/apiChoices';
import { conditionProperty, filtersProperty, orderOptions, selectOption } from '../../../shared/listQuery/description';
import { readListQuery } from '../../../shared/listQuery/parse';
import { asOfDay, datedValuesAsOfOption, hasDatedValues, simplifyProperty, simplifyRecords } from '../../../shared/listQuery/simplify';
import { collectRecords, maxRequestsOption, readMaxRequests } from '../../../shared/pagination';
import { optionsCollection } from '../../../shared/descriptions/labels';
import type { ResourceDefinition } from '../../../shared/registry';
import type { ApiRequest } from '../../../shared/transport';
import { checkWholeNumber } from '../../../shared/validation';
import { parseJsonObject } from '../json';
import type { Operation } from '../types';

const paginationProperties: INodeProperties[] = [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
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
		...paginationProperties,
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
		const simplify = read('simplify', false);
		const day = asOfDay(options.asOfDate);
		return async () => simplifyRecords(await collectRecords.call(this, request, { limit, itemIndex, maxRequests }), simplify, day);
	},
};
