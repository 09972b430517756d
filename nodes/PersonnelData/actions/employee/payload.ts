import type { IDataObject } from 'n8n-workflow';
import { z } from 'zod';

import { WRITE_ENVELOPE } from '../../../shared/apiChoices';
import { InputError } from '../../../shared/errors';
import type { ResourceDefinition } from '../../../shared/registry';
import { parseJsonObject } from '../json';
import type { OperationRun } from '../types';
import type { DatedRow, HistoryEdit } from './datedRows';
import { checkPayloadDatedArrays, planDatedRows } from './datedRows';
import { fieldsByName } from './fieldsByName';
import type { WriteName } from './write';

type Writable = NonNullable<ResourceDefinition['writable']>;

const emailSchema = z.string().email();

function plainFields(writable: Writable, operation: WriteName, read: OperationRun['read'], byName: IDataObject): IDataObject {
	const data: IDataObject = {};
	const required = operation === 'update' ? [] : writable.requiredOnCreate;
	for (const name of required) {
		const value = read<string>(name, '').trim();
		if (!value) throw new InputError(`${name}: required to ${operation} an employee; expected non-empty text`);
		data[name] = value;
	}
	const optional = read<IDataObject>('fields', {});
	for (const [name, value] of Object.entries(optional)) {
		if (!writable.plainFields.includes(name)) throw new InputError(`Fields › ${name}: not a field of an employee`);
		// An Update may leave a required field out, but not empty it: the API refuses a blank name.
		if (writable.requiredOnCreate.includes(name) && String(value ?? '').trim() === '') {
			throw new InputError(`Fields › ${name}: cannot be emptied; expected non-empty text or leave the field out`);
		}
		data[name] = typeof value === 'string' ? value.trim() : value;
	}
	for (const [name, value] of Object.entries(byName)) {
		if (name in data) throw new InputError(`Fields by Name › ${name}: already set above; expected each field once`);
		data[name] = value;
	}
	if (typeof data.email === 'string' && data.email !== '' && !emailSchema.safeParse(data.email).success) {
		throw new InputError(`email: "${data.email}" is not an email address; expected name@domain`);
	}
	return data;
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
	const other = parseJsonObject(read('otherFields', ''), 'Other Fields (JSON)') ?? {};
	const data: IDataObject = { ...other, ...plainFields(writable, operation, read, fieldsByName(resource, read)) };

	const rows = read<DatedRow[]>('datedValues.entry', []);
	const plan = planDatedRows(rows, resource.datedProperties, writable.datedValueTypes, operation === 'update');
	const customProperties = parseJsonObject(read('customProperties', ''), 'Custom Properties (JSON)');
	const otherProperties = (other.properties as IDataObject | undefined) ?? {};
	for (const property of plan.edits.keys()) {
		if (property in otherProperties) {
			throw new InputError(
				`Other Fields (JSON) › properties.${property}: also edited by Dated Values; expected the property in one place only`,
			);
		}
	}
	const properties: IDataObject = { ...otherProperties, ...plan.whole };
	if (customProperties) properties.custom_properties = customProperties;
	if (Object.keys(properties).length > 0) data.properties = checkPayloadDatedArrays(properties);

	if (operation === 'update' && Object.keys(data).length === 0 && plan.edits.size === 0) {
		throw new InputError('Update Fields: nothing to update; expected at least one field, dated value or custom property');
	}
	return { body: { [WRITE_ENVELOPE]: data }, historyEdits: plan.edits };
}
