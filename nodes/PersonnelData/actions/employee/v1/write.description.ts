import type { INodeProperties } from 'n8n-workflow';

import { fieldPicker } from '../../../../shared/descriptions/fieldPicker';
import { labelOf } from '../../../../shared/descriptions/labels';
import { recordLocator } from '../../../../shared/descriptions/recordLocator';
import type { ResourceDefinition } from '../../../../shared/registry';
import { DEFAULT_HISTORY_MODE, HISTORY_MODES } from '../datedRows';
import type { WriteName } from '../payload';

type Writable = NonNullable<ResourceDefinition['writable']>;

const DATED_HINTS: Record<WriteName, string> = {
	update:
		'Each row adds, replaces or removes one entry; the default mode keeps every other entry of the property. Dated properties you leave out stay untouched.',
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

/** Update's one-line warning: the PATCH rule, and the mode that protects a history from it. */
const historyNotice: INodeProperties = {
	displayName:
		'The API\'s PATCH replaces the whole history of each dated property it names; the Dated Values mode "Add or Replace This Entry, Keep the Others" (the default) keeps the rest of it',
	name: 'historyNotice',
	type: 'notice',
	default: '',
};

const historyModeField: INodeProperties = {
	displayName: 'Mode',
	name: 'mode',
	type: 'options',
	options: HISTORY_MODES.map((mode) => ({ ...mode })),
	default: DEFAULT_HISTORY_MODE,
	description: 'What this row does to the property\'s current history',
};

function firstOf(values: readonly string[]): string {
	return values[0] ?? '';
}

export function employeeWriteProperties(
	resource: ResourceDefinition,
	writable: Writable,
	operation: WriteName,
): INodeProperties[] {
	const properties: INodeProperties[] = [];
	if (operation !== 'create') {
		properties.push(
			recordLocator({ name: 'id', displayName: resource.displayName, what: 'employee', searchMethod: 'searchRecords' }),
		);
	}
	if (operation === 'update') properties.push(historyNotice);
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
					fieldPicker({ displayName: 'Property', name: 'property', method: 'getDatedProperties', default: firstOf(resource.datedProperties) }),
					...(operation === 'update' ? [historyModeField] : []),
					{ displayName: 'Valid From', name: 'validFrom', type: 'string', default: '', placeholder: 'YYYY-MM-DD', description: 'Empty: valid from the beginning' },
					{
						displayName: 'Value',
						name: 'value',
						type: 'string',
						default: '',
						description: 'For a property this package does not know, the text is sent as typed; give a number or true/false by an expression, e.g. {{ 40 }}',
					},
				],
			},
		],
	});
	properties.push({
		displayName: 'Fields by Name',
		name: 'fieldsByName',
		type: 'fixedCollection',
		placeholder: 'Add Field by Name',
		typeOptions: { multipleValues: true },
		default: {},
		description:
			'Any other field of your employees: one found in your records or a name given by an expression. The API decides whether it accepts the field and its value.',
		options: [
			{
				displayName: 'Field',
				name: 'field',
				values: [
					fieldPicker({ displayName: 'Name', name: 'name', method: 'getWritableFields', default: '' }),
					{ displayName: 'Value', name: 'value', type: 'string', default: '', description: 'Sent as typed; give a number, true/false or null by an expression' },
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
	return properties;
}
