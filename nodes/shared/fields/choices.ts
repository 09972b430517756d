import type { INodePropertyOptions } from 'n8n-workflow';

import { fieldOptions, labelOf } from '../descriptions/labels';
import type { FieldType, ResourceDefinition } from '../registry';
import { filterableFields, orderableFields } from '../registry';
import type { DiscoveredFields } from './discover';

/**
 * The choices of each field picker: the registry's fields (what the package knows for sure, with
 * their types, operators and checks) merged with the fields the customer's records showed. A
 * field only the records know is sent as the user gives it and the API decides; its description
 * says so, and which type its values showed.
 */

const TYPE_WORDS: Record<FieldType, string> = {
	uuid: 'UUIDs',
	date: 'dates (YYYY-MM-DD)',
	dateTime: 'date-times',
	number: 'numbers',
	boolean: 'true or false',
	string: 'text',
	enum: 'text',
	object: 'objects',
	array: 'lists',
};

function discoveredDescription(resource: ResourceDefinition, name: string, type: FieldType | undefined, capability: string): string {
	if (resource.fields[name]) return `Not known to be ${capability}: sent as given, the API decides`;
	const seen = type ? `, holding ${TYPE_WORDS[type]}` : '';
	return `Found in your ${resource.pluralName.toLowerCase()}${seen}; not in this package's list, so the API decides what it accepts`;
}

/** Known fields first as the registry has them, then the others in the records, sorted as n8n's lint wants. */
function merge(
	resource: ResourceDefinition,
	known: readonly string[],
	found: ReadonlyMap<string, FieldType | undefined>,
	capability: string,
	describeKnown: (name: string) => string | undefined = () => undefined,
): INodePropertyOptions[] {
	const options = fieldOptions(known).map((option) => {
		const description = describeKnown(String(option.value));
		return description ? { ...option, description } : option;
	});
	for (const [name, type] of found) {
		if (known.includes(name)) continue;
		options.push({ name: labelOf(name), value: name, description: discoveredDescription(resource, name, type, capability) });
	}
	return options.sort((a, b) => a.name.localeCompare(b.name) || String(a.value).localeCompare(String(b.value)));
}

/** Objects and lists cannot be compared with a value: not offered for filters or order. */
const isScalar = (type: FieldType | undefined): boolean => type !== 'object' && type !== 'array';

function scalarOnly(found: ReadonlyMap<string, FieldType | undefined>): Map<string, FieldType | undefined> {
	return new Map([...found].filter(([, type]) => isScalar(type)));
}

/** Registry fields the package does not know to be filterable (or orderable), but the records have. */
function unknownCapability(resource: ResourceDefinition, found: ReadonlyMap<string, FieldType | undefined>, known: readonly string[]) {
	const others = new Map<string, FieldType | undefined>();
	for (const [name, type] of scalarOnly(found)) {
		const definition = resource.fields[name];
		if (!known.includes(name)) others.set(name, definition && isScalar(definition.type) ? definition.type : type);
	}
	return others;
}

export function filterFieldChoices(resource: ResourceDefinition, discovered: DiscoveredFields): INodePropertyOptions[] {
	const known = filterableFields(resource);
	return merge(resource, known, unknownCapability(resource, discovered.fields, known), 'filterable', (name) =>
		`Operators the API takes: ${(resource.fields[name].filter ?? []).join(', ')}`,
	);
}

export function orderFieldChoices(resource: ResourceDefinition, discovered: DiscoveredFields): INodePropertyOptions[] {
	const known = orderableFields(resource);
	return merge(resource, known, unknownCapability(resource, discovered.fields, known), 'orderable');
}

export function selectFieldChoices(resource: ResourceDefinition, discovered: DiscoveredFields): INodePropertyOptions[] {
	return merge(resource, Object.keys(resource.fields), discovered.fields, 'selectable');
}

export function datedPropertyChoices(resource: ResourceDefinition, discovered: DiscoveredFields): INodePropertyOptions[] {
	return merge(resource, resource.datedProperties, discovered.datedProperties, 'a dated property');
}

/** Fields a write may set by name: the registry's writable ones and every plain field the records show that the registry does not know as read-only. */
export function writableFieldChoices(resource: ResourceDefinition, discovered: DiscoveredFields): INodePropertyOptions[] {
	const writable = resource.writable?.plainFields ?? [];
	const others = new Map([...scalarOnly(discovered.fields)].filter(([name]) => !resource.fields[name]));
	return merge(resource, writable, others, 'writable');
}

/** Trigger › Watch Fields: every field but the id, and each dated property as `properties.<name>`. */
export function watchFieldChoices(resource: ResourceDefinition, discovered: DiscoveredFields): INodePropertyOptions[] {
	const plain = selectFieldChoices(resource, discovered).filter((option) => option.value !== 'id' && option.value !== 'properties');
	const dated = datedPropertyChoices(resource, discovered).map((option) => ({
		...option,
		name: `${option.name} (Dated, Whole History)`,
		value: `properties.${String(option.value)}`,
	}));
	return [...plain, ...dated].sort((a, b) => a.name.localeCompare(b.name));
}
