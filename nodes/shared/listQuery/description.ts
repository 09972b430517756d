import type { IDisplayOptions, INodeProperties } from 'n8n-workflow';

import { fieldOptions } from '../descriptions/labels';
import { recordLocator } from '../descriptions/recordLocator';
import type { FilterOperator, ResourceDefinition } from '../registry';
import { filterableFields, orderableFields } from '../registry';

const OPERATOR_LABELS: Record<FilterOperator, { name: string; description: string }> = {
	eq: { name: 'Equals', description: 'The field equals the value' },
	in: { name: 'Is One Of', description: 'The field equals one of the comma-separated values' },
	gt: { name: 'After / Greater Than', description: 'Later or greater than the value' },
	gte: { name: 'On or After / At Least', description: 'The value itself, or later or greater' },
	lt: { name: 'Before / Less Than', description: 'Earlier or less than the value' },
	lte: { name: 'On or Before / At Most', description: 'The value itself, or earlier or less' },
	ilike: { name: 'Matches (Case-Insensitive)', description: 'SQL ILIKE pattern: % matches any text' },
};

const preferred = (fields: string[], name: string): string => (fields.includes(name) ? name : fields[0]);

function operatorsOf(resource: ResourceDefinition): FilterOperator[] {
	const used = new Set<FilterOperator>();
	for (const field of Object.values(resource.fields)) for (const op of field.filter ?? []) used.add(op);
	return [...used];
}

export function conditionProperty(resource: ResourceDefinition, displayOptions: IDisplayOptions): INodeProperties[] {
	if (!resource.conditionDomain) return [];
	return [
		recordLocator({
			name: 'condition',
			displayName: 'Condition',
			what: 'condition',
			searchMethod: 'searchConditions',
			required: false,
			description: `Only ${resource.pluralName.toLowerCase()} that this saved condition passes. Leave empty for all.`,
			displayOptions,
		}),
	];
}

export function filtersProperty(resource: ResourceDefinition, displayOptions: IDisplayOptions): INodeProperties[] {
	const fields = filterableFields(resource);
	if (fields.length === 0) return [];
	return [
		{
			displayName: 'Filters',
			name: 'filters',
			type: 'fixedCollection',
			placeholder: 'Add Filter',
			typeOptions: { multipleValues: true },
			default: {},
			displayOptions,
			options: [
				{
					displayName: 'Filter',
					name: 'filter',
					values: [
						{
							displayName: 'Field',
							name: 'field',
							type: 'options',
							options: fieldOptions(fields),
							default: preferred(fields, 'updated_at'),
						},
						{
							displayName: 'Operator',
							name: 'operator',
							type: 'options',
							options: operatorsOf(resource)
								.map((op) => ({ value: op, ...OPERATOR_LABELS[op] }))
								.sort((a, b) => a.name.localeCompare(b.name)),
							default: 'eq',
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

export function selectOption(resource: ResourceDefinition): INodeProperties {
	return {
		displayName: 'Fields to Return',
		name: 'select',
		type: 'multiOptions',
		options: fieldOptions(Object.keys(resource.fields)),
		default: [],
		description: 'Only these fields are fetched (ID is always returned). Leave empty for all.',
	};
}

export function orderOptions(resource: ResourceDefinition): INodeProperties[] {
	const fields = orderableFields(resource);
	if (fields.length === 0) return [];
	return [
		{
			displayName: 'Order By',
			name: 'orderBy',
			type: 'options',
			options: fieldOptions(fields),
			default: preferred(fields, 'id'),
		},
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
