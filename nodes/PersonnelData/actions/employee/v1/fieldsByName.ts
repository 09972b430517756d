import type { IDataObject } from 'n8n-workflow';

import { InputError } from '../../../../shared/errors';
import { checkFieldName } from '../../../../shared/fields/names';
import type { ResourceDefinition } from '../../../../shared/registry';
import type { OperationRun } from '../../types';

interface FieldByNameRow {
	name?: unknown;
	value?: unknown;
}

/**
 * "Fields by Name": any top-level field, so that a customer's own fields can be written from the
 * form. Nothing is known of a field the registry does not list (the form's sample of records is not
 * read while a workflow runs), so it gets the checks every field gets: a well-formed name, given
 * once, with a value; the API decides the rest. Fields the registry knows keep its rules.
 */
export function fieldsByName(resource: ResourceDefinition, read: OperationRun['read']): IDataObject {
	const writable = resource.writable?.plainFields ?? [];
	const data: IDataObject = {};
	read<FieldByNameRow[]>('fieldsByName.field', []).forEach((row, index) => {
		const where = `Fields by Name › Field ${index + 1}`;
		const name = checkFieldName(row.name, `${where} › Name`);
		if (name === 'properties') {
			throw new InputError(`${where} › Name: properties are written with Dated Values or Custom Properties (JSON); expected a top-level field`);
		}
		if (resource.fields[name] && !writable.includes(name)) {
			throw new InputError(`${where} › Name: ${name} is not writable; expected a field such as ${writable.join(', ')}`);
		}
		if (name in data) throw new InputError(`${where} › Name: ${name} is given twice; expected each field once`);
		const value = typeof row.value === 'string' ? row.value.trim() : row.value;
		if (value === undefined || value === '') {
			throw new InputError(`${where} › Value: a value is required for ${name}; to clear a field, give null by an expression ({{ null }})`);
		}
		data[name] = value as IDataObject[string];
	});
	return data;
}
