import type { IDataObject } from 'n8n-workflow';
import { z } from 'zod';

import { WRITE_ENVELOPE } from '../../../shared/apiChoices';
import { InputError } from '../../../shared/errors';
import type { ResourceDefinition } from '../../../shared/registry';
import { parseJsonObject } from '../json';
import type { OperationRun } from '../types';
import { checkFieldName } from '../../../shared/fields/names';
import type { DatedRow, HistoryEdit, PlacedEntry } from './datedRows';
import { checkDatedHistory, placedEntriesFromJson, planDatedRows } from './datedRows';
import { fieldsByName } from './v1/fieldsByName';

/** The employee writes of node version 1 (version 2 adds Create or Update, see columns.ts). */
export type WriteName = 'create' | 'update' | 'replace';

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

function plainFields(writable: Writable, operation: WriteName, read: OperationRun['read'], byName: IDataObject): IDataObject {
	const data: IDataObject = {};
	const required = operation === 'update' ? [] : writable.requiredOnCreate;
	for (const name of required) data[name] = checkPlainField(writable, name, read<string>(name, ''), name, { operation });
	const optional = read<IDataObject>('fields', {});
	for (const [name, value] of Object.entries(optional)) {
		if (!writable.plainFields.includes(name)) throw new InputError(`Fields › ${name}: not a field of an employee`);
		data[name] = checkPlainField(writable, name, value, `Fields › ${name}`, undefined);
	}
	for (const [name, value] of Object.entries(byName)) {
		if (name in data) throw new InputError(`Fields by Name › ${name}: already set above; expected each field once`);
		data[name] = writable.plainFields.includes(name) ? checkPlainField(writable, name, value, `Fields by Name › ${name}`, undefined) : value;
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
		// A customer's own field (see "Your own fields"): a well-formed name, sent as given.
		else data[checkFieldName(name, label)] = value;
	}
	return data;
}

function isPlainObject(value: unknown): value is IDataObject {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * `properties` from every source, checked: `custom_properties` an object, every dated history valid
 * (the registry's properties with their value types, a customer's own as given). The form's rows
 * replace a property's JSON entries and Custom Properties (JSON) replaces `custom_properties` (the
 * form takes precedence). A property edited by a history row (Update) may not come from JSON too.
 */
function properties(
	resource: ResourceDefinition,
	writable: Writable,
	other: IDataObject,
	plan: { whole: Map<string, PlacedEntry[]>; edits: Map<string, HistoryEdit[]> },
	read: OperationRun['read'],
): IDataObject | undefined {
	const fromJson = other.properties;
	if (fromJson !== undefined && !isPlainObject(fromJson)) {
		throw new InputError(`${OTHER_FIELDS} › properties: expected an object of dated properties and ${CUSTOM_PROPERTIES_KEY}, got ${JSON.stringify(fromJson)}`);
	}
	const histories = new Map<string, PlacedEntry[]>();
	const asGiven: IDataObject = {};
	let customProperties: unknown;
	for (const [key, value] of Object.entries(fromJson ?? {})) {
		const where = `${OTHER_FIELDS} › properties.${key}`;
		if (plan.edits.has(key)) throw new InputError(`${where}: also edited by Dated Values; expected the property in one place only`);
		if (key === CUSTOM_PROPERTIES_KEY) customProperties = value;
		else if (resource.datedProperties.includes(key)) histories.set(key, placedEntriesFromJson(value, where, writable.datedValueTypes[key]));
		// A customer's own property: a dated history is checked by the spec's rules, anything else sent as given.
		else if (Array.isArray(value)) histories.set(checkFieldName(key, where), placedEntriesFromJson(value, where, undefined, false));
		else asGiven[checkFieldName(key, where)] = value as IDataObject[string];
	}
	for (const [key, entries] of plan.whole) histories.set(key, entries);
	const customFromForm = parseJsonObject(read('customProperties', ''), CUSTOM_PROPERTIES);
	if (customFromForm) customProperties = customFromForm;
	else if (customProperties !== undefined && !isPlainObject(customProperties)) {
		throw new InputError(`${OTHER_FIELDS} › properties.${CUSTOM_PROPERTIES_KEY}: expected an object, got ${JSON.stringify(customProperties)}`);
	}

	const result: IDataObject = { ...asGiven };
	for (const [key, entries] of histories) result[key] = checkDatedHistory(key, entries) as unknown as IDataObject[];
	if (customProperties !== undefined) result[CUSTOM_PROPERTIES_KEY] = customProperties as IDataObject;
	return Object.keys(result).length > 0 ? result : undefined;
}

/** A write checked before sending: its body, and the history edits an Update must merge first. */
export interface EmployeeWrite {
	body: IDataObject;
	/** Dated properties whose current history is read, edited and sent whole (Update only). */
	historyEdits: Map<string, HistoryEdit[]>;
}

/** The `{ data: … }` body of an employee create, update or replace, checked before sending. */
export function employeeWrite(resource: ResourceDefinition, operation: WriteName, read: OperationRun['read']): EmployeeWrite {
	const writable = resource.writable as Writable;
	const other = parseJsonObject(read('otherFields', ''), OTHER_FIELDS) ?? {};
	const data: IDataObject = {
		...otherPlainFields(resource, writable, other),
		...plainFields(writable, operation, read, fieldsByName(resource, read)),
	};
	const plan = planDatedRows(read<DatedRow[]>('datedValues.entry', []), resource.datedProperties, writable.datedValueTypes, operation === 'update');
	const checkedProperties = properties(resource, writable, other, plan, read);
	if (checkedProperties) data.properties = checkedProperties;

	if (operation === 'update' && Object.keys(data).length === 0 && plan.edits.size === 0) {
		throw new InputError('Update Fields: nothing to update; expected at least one field, dated value or custom property');
	}
	return { body: { [WRITE_ENVELOPE]: data }, historyEdits: plan.edits };
}
