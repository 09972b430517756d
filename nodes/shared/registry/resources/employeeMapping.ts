import type { ResourceDefinition } from '../types';
import { idField, plain, referenceField, timestampField } from '../types';

export const employeeMapping: ResourceDefinition = {
	value: 'employeeMapping',
	displayName: 'Employee Mapping',
	pluralName: 'Employee Mappings',
	description: 'Links between employees and their records in connected systems',
	builderHint: { propertyHint: 'Which employee is which record in a connected system (external IDs per system integration).' },
	paths: { list: '/v1/org/employees/mappings' },
	fields: {
		id: idField,
		employee_id: referenceField,
		external_id: { type: 'string', filter: ['eq', 'in'] },
		system_integration_id: referenceField,
		status: { type: 'string', filter: ['eq', 'in'] },
		status_updated_at: plain('dateTime'),
		inserted_at: timestampField,
		updated_at: timestampField,
	},
	datedProperties: [],
	changeFields: { created: 'inserted_at', updated: 'updated_at' },
};
