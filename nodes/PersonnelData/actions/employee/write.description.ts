import type { IDisplayOptions, INodeProperties } from 'n8n-workflow';

import { fieldOptions, labelOf } from '../../../shared/descriptions/labels';
import { recordLocator } from '../../../shared/descriptions/recordLocator';
import type { ResourceDefinition } from '../../../shared/registry';
import type { WriteName } from './write';

type Writable = NonNullable<ResourceDefinition['writable']>;

const DATED_HINTS: Record<WriteName, string> = {
	update:
		'For each dated property you add here, ALL its existing entries are replaced by these rows (the API\'s PATCH rule): include the history you want to keep. Dated properties you leave out stay untouched.',
	create: 'Each row is one value and the date it is valid from; leave Valid From empty for "from the beginning" (once per property)',
	replace: 'The employee is replaced whole: dated properties you leave out are removed',
};

function textField(name: string, required: boolean): INodeProperties {
	return {
		displayName: labelOf(name),
		name,
		type: 'string',
		default: '',
		required,
		placeholder: name === 'email' ? 'name@email.com' : undefined,
	};
}

function firstOf(values: readonly string[]): string {
	return values[0] ?? '';
}

export function employeeWriteProperties(
	resource: ResourceDefinition,
	writable: Writable,
	operation: WriteName,
	displayOptions: IDisplayOptions,
): INodeProperties[] {
	const properties: INodeProperties[] = [];
	if (operation !== 'create') {
		properties.push(
			recordLocator({ name: 'id', displayName: resource.displayName, what: 'employee', searchMethod: 'searchRecords', displayOptions }),
		);
	}
	const requiredHere = operation === 'update' ? [] : writable.requiredOnCreate;
	properties.push(...requiredHere.map((name) => textField(name, true)));
	properties.push({
		displayName: operation === 'update' ? 'Update Fields' : 'Additional Fields',
		name: 'fields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: writable.plainFields
			.filter((name) => !requiredHere.includes(name))
			.map((name) => textField(name, false))
			.sort((a, b) => a.displayName.localeCompare(b.displayName)),
	});
	properties.push({
		displayName: 'Dated Values',
		name: 'datedValues',
		type: 'fixedCollection',
		placeholder: 'Add Dated Value',
		typeOptions: { multipleValues: true, sortable: true },
		default: {},
		description: DATED_HINTS[operation],
		options: [
			{
				displayName: 'Entry',
				name: 'entry',
				values: [
					{ displayName: 'Property', name: 'property', type: 'options', options: fieldOptions(resource.datedProperties), default: firstOf(resource.datedProperties) },
					{ displayName: 'Valid From', name: 'validFrom', type: 'string', default: '', placeholder: 'YYYY-MM-DD', description: 'Empty: valid from the beginning' },
					{ displayName: 'Value', name: 'value', type: 'string', default: '' },
				],
			},
		],
	});
	properties.push({
		displayName: 'Custom Properties (JSON)',
		name: 'customProperties',
		type: 'json',
		default: '',
		description: 'Object stored as properties.custom_properties; on Update only the keys given are replaced',
	});
	properties.push({
		displayName: 'Other Fields (JSON)',
		name: 'otherFields',
		type: 'json',
		default: '',
		description:
			'Fields of the employee as a JSON object, e.g. {"phone2": "…", "properties": {"title": [{"valid_from": "2026-01-01", "value": "Lead"}]}}; checked like the fields above, which take precedence',
	});
	return properties.map((property) => ({ displayOptions, ...property }));
}
