import type { IDataObject } from 'n8n-workflow';
import { z } from 'zod';

import { WRITE_ENVELOPE } from '../../../shared/apiChoices';
import { InputError } from '../../../shared/errors';
import type { ResourceDefinition } from '../../../shared/registry';
import { parseJsonObject } from '../json';
import type { OperationRun } from '../types';
import type { DatedRow, PlacedEntry } from './datedRows';
import { checkDatedHistory, placedEntriesFromJson, placedEntriesFromRows } from './datedRows';
import type { WriteName } from './write';

type Writable = NonNullable<ResourceDefinition['writable']>;

const emailSchema = z.string().email();

const OTHER_FIELDS = 'Other Fields (JSON)';
const CUSTOM_PROPERTIES = 'Custom Properties (JSON)';
const CUSTOM_PROPERTIES_KEY = 'custom_properties';

/**
 * One plain field, however it was given (a form field or a key of Other Fields (JSON)): the same
 * rules for both. `required`: the form's own required field of a create or replace.
 */
function checkPlainField(writable: Writable, name: string, value: unknown, label: string, required: { operation: WriteName } | undefined): string | null {
	const mandatory = writable.requiredOnCreate.includes(name);
	if (value === null && !mandatory) return null;
	if (typeof value !== 'string') throw new InputError(`${label}: expected text, got ${JSON.stringify(value)}`);
	const text = value.trim();
	if (mandatory && text === '') {
		throw new InputError(
			required
				? `${label}: required to ${required.operation} an employee; expected non-empty text`
				: `${label}: cannot be emptied; expected non-empty text or leave the field out`,
		);
	}
	if (name === 'email' && text !== '' && !emailSchema.safeParse(text).success) {
		throw new InputError(`${label}: "${text}" is not an email address; expected name@domain`);
	}
	return text;
}

function plainFields(writable: Writable, operation: WriteName, read: OperationRun['read']): IDataObject {
	const data: IDataObject = {};
	const required = operation === 'update' ? [] : writable.requiredOnCreate;
	for (const name of required) data[name] = checkPlainField(writable, name, read<string>(name, ''), name, { operation });
	const optional = read<IDataObject>('fields', {});
	for (const [name, value] of Object.entries(optional)) {
		if (!writable.plainFields.includes(name)) throw new InputError(`Fields › ${name}: not a field of an employee`);
		data[name] = checkPlainField(writable, name, value, `Fields › ${name}`, undefined);
	}
	return data;
}

/** Other Fields (JSON) outside `properties`: writable plain fields only, checked like the form's. */
function otherPlainFields(resource: ResourceDefinition, writable: Writable, other: IDataObject): IDataObject {
	const data: IDataObject = {};
	for (const [name, value] of Object.entries(other)) {
		if (name === 'properties') continue;
		const label = `${OTHER_FIELDS} › ${name}`;
		if (writable.plainFields.includes(name)) data[name] = checkPlainField(writable, name, value, label, undefined);
		else if (resource.fields[name]) throw new InputError(`${label}: cannot be supplied; the API sets it`);
		else throw new InputError(`${label}: not a field of an employee; expected one of ${[...writable.plainFields, 'properties'].join(', ')}`);
	}
	return data;
}

function isPlainObject(value: unknown): value is IDataObject {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * `properties` from every source, checked: `custom_properties` an object, every other key a dated
 * property of the resource with a valid history. The form's rows replace a property's JSON entries
 * and Custom Properties (JSON) replaces `custom_properties` (the form takes precedence).
 */
function properties(resource: ResourceDefinition, writable: Writable, other: IDataObject, read: OperationRun['read']): IDataObject | undefined {
	const fromJson = other.properties;
	if (fromJson !== undefined && !isPlainObject(fromJson)) {
		throw new InputError(`${OTHER_FIELDS} › properties: expected an object of dated properties and ${CUSTOM_PROPERTIES_KEY}, got ${JSON.stringify(fromJson)}`);
	}
	const histories = new Map<string, PlacedEntry[]>();
	let customProperties: unknown;
	for (const [key, value] of Object.entries(fromJson ?? {})) {
		const where = `${OTHER_FIELDS} › properties.${key}`;
		if (key === CUSTOM_PROPERTIES_KEY) customProperties = value;
		else if (resource.datedProperties.includes(key)) histories.set(key, placedEntriesFromJson(value, where, writable.datedValueTypes[key]));
		else {
			throw new InputError(`${where}: not a property of an employee; expected ${CUSTOM_PROPERTIES_KEY} or one of ${resource.datedProperties.join(', ')}`);
		}
	}
	const rows = placedEntriesFromRows(read<DatedRow[]>('datedValues.entry', []), resource.datedProperties, writable.datedValueTypes);
	for (const [key, entries] of rows) histories.set(key, entries);
	const customFromForm = parseJsonObject(read('customProperties', ''), CUSTOM_PROPERTIES);
	if (customFromForm) customProperties = customFromForm;
	else if (customProperties !== undefined && !isPlainObject(customProperties)) {
		throw new InputError(`${OTHER_FIELDS} › properties.${CUSTOM_PROPERTIES_KEY}: expected an object, got ${JSON.stringify(customProperties)}`);
	}

	const result: IDataObject = {};
	for (const [key, entries] of histories) result[key] = checkDatedHistory(key, entries) as unknown as IDataObject[];
	if (customProperties !== undefined) result[CUSTOM_PROPERTIES_KEY] = customProperties as IDataObject;
	return Object.keys(result).length > 0 ? result : undefined;
}

/** The `{ data: … }` body of an employee create, update or replace, checked before sending. */
export function employeeWriteBody(resource: ResourceDefinition, operation: WriteName, read: OperationRun['read']): IDataObject {
	const writable = resource.writable as Writable;
	const other = parseJsonObject(read('otherFields', ''), OTHER_FIELDS) ?? {};
	const data: IDataObject = { ...otherPlainFields(resource, writable, other), ...plainFields(writable, operation, read) };
	const checkedProperties = properties(resource, writable, other, read);
	if (checkedProperties) data.properties = checkedProperties;

	if (operation === 'update' && Object.keys(data).length === 0) {
		throw new InputError('Update Fields: nothing to update; expected at least one field, dated value or custom property');
	}
	return { [WRITE_ENVELOPE]: data };
}
