import type { ResourceDefinition } from '../types';
import { idField, plain, textSearchField, timestampField } from '../types';

export const employee: ResourceDefinition = {
	value: 'employee',
	displayName: 'Employee',
	pluralName: 'Employees',
	description:
		'People of the organization: names, email, phones, employee number and dated properties (title, org unit, manager, employment type, cost center, work percentage); the only resource that can be written',
	builderHint: { propertyHint: 'People: who works here, contact details, employee number, and dated title, manager, org unit, employment type, cost center or work percentage. The only resource that can be written (create, update, import).' },
	conditionDomain: 'employee',
	paths: {
		list: '/v1/org/employees',
		shape: '/v1/org/employees/shape',
		get: '/v1/org/employees/{id}',
		create: '/v1/org/employees',
		update: '/v1/org/employees/{id}',
		replace: '/v1/org/employees/{id}',
	},
	fields: {
		id: idField,
		org_id: plain('uuid'),
		first_name: textSearchField,
		last_name: textSearchField,
		email: { type: 'string', filter: ['eq', 'ilike'] },
		phone1: plain('string'),
		phone2: plain('string'),
		private_id_number: plain('string'),
		employee_number: plain('string'),
		inserted_at: timestampField,
		updated_at: timestampField,
		properties: plain('object'),
	},
	datedProperties: ['title', 'org_unit_id', 'manager_id', 'employment_type', 'cost_center', 'work_percentage'],
	changeFields: { created: 'inserted_at', updated: 'updated_at' },
	search: {
		field: 'last_name',
		operator: 'ilike',
		labelFields: ['first_name', 'last_name', 'email'],
		emailField: 'email',
		fullName: { first: 'first_name', last: 'last_name' },
	},
	writable: {
		plainFields: ['first_name', 'last_name', 'email', 'phone1', 'phone2', 'private_id_number', 'employee_number'],
		requiredOnCreate: ['first_name', 'last_name'],
		datedValueTypes: { org_unit_id: 'uuid', manager_id: 'uuid', work_percentage: 'number' },
	},
};
