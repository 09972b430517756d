import type { INodeProperties } from 'n8n-workflow';

import { fieldPicker, fieldsPicker } from '../descriptions/fieldPicker';
import { recordLocator } from '../descriptions/recordLocator';
import type { FilterOperator, ResourceDefinition } from '../registry';
import { FILTER_OPERATORS, filterableFields, orderableFields } from '../registry';

const OPERATOR_LABELS: Record<FilterOperator, { name: string; description: string }> = {
	eq: { name: 'Equals', description: 'The field equals the value' },
	in: { name: 'Is One Of', description: 'The field equals one of the comma-separated values' },
	gt: { name: 'After / Greater Than', description: 'Later or greater than the value' },
	gte: { name: 'On or After / At Least', description: 'The value itself, or later or greater' },
	lt: { name: 'Before / Less Than', description: 'Earlier or less than the value' },
	lte: { name: 'On or Before / At Most', description: 'The value itself, or earlier or less' },
	ilike: { name: 'Matches (Case-Insensitive)', description: 'SQL ILIKE pattern: % matches any text' },
};

const preferred = (fields: string[], name: string): string => (fields.includes(name) ? name : (fields[0] ?? ''));

export function conditionProperty(resource: ResourceDefinition): INodeProperties[] {
	if (!resource.conditionDomain) return [];
	return [
		recordLocator({
			name: 'condition',
			displayName: 'Condition',
			what: 'condition',
			searchMethod: 'searchConditions',
			required: false,
			description: `Only ${resource.pluralName.toLowerCase()} that this saved condition passes. Leave empty for all.`,
		}),
	];
}

/**
 * Any field can be filtered on (the spec: "only some fields are filterable per endpoint, and the
 * operators vary per field", without saying which): the Operator list is the whole convention, and
 * the registry's operators are checked before sending for the fields it knows.
 */
export function filtersProperty(resource: ResourceDefinition): INodeProperties[] {
	const fields = filterableFields(resource);
	return [
		{
			displayName: 'Filters',
			name: 'filters',
			type: 'fixedCollection',
			placeholder: 'Add Filter',
			typeOptions: { multipleValues: true },
			default: {},
			options: [
				{
					displayName: 'Filter',
					name: 'filter',
					values: [
						fieldPicker({
							displayName: 'Field',
							name: 'field',
							method: 'getFilterFields',
							default: preferred(fields, 'updated_at'),
						}),
						{
							displayName: 'Operator',
							name: 'operator',
							type: 'options',
							options: FILTER_OPERATORS.map((op) => ({ value: op, ...OPERATOR_LABELS[op] })).sort((a, b) => a.name.localeCompare(b.name)),
							default: 'eq',
							description: 'For a field this package does not list as filterable, the API decides which operators it takes',
						},
						{
							displayName: 'Value',
							name: 'value',
							type: 'string',
							default: '',
							description:
								'Dates as YYYY-MM-DD, date-times in ISO 8601 (e.g. 2026-11-23T08:00:00Z), several values for Is One Of separated by commas',
						},
					],
				},
			],
		},
	];
}

export function selectOption(): INodeProperties {
	return fieldsPicker({
		displayName: 'Fields to Return',
		name: 'select',
		method: 'getSelectFields',
		hint: 'Only these fields are fetched (ID is always returned). Leave empty for all.',
	});
}

export function orderOptions(resource: ResourceDefinition): INodeProperties[] {
	const fields = orderableFields(resource);
	return [
		fieldPicker({ displayName: 'Order By', name: 'orderBy', method: 'getOrderFields', default: preferred(fields, 'id') }),
		{
			displayName: 'Order Direction',
			name: 'orderDirection',
			type: 'options',
			options: [
				{ name: 'Ascending', value: 'asc' },
				{ name: 'Descending', value: 'desc' },
			],
			default: 'asc',
		},
	];
}
