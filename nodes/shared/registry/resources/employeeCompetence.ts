import type { ResourceDefinition } from '../types';
import { dateField, idField, plain, referenceField, timestampField } from '../types';

export const employeeCompetence: ResourceDefinition = {
	value: 'employeeCompetence',
	displayName: 'Employee Competence',
	pluralName: 'Employee Competences',
	description: 'Competences held by employees',
	builderHint: { propertyHint: 'Who holds which competence, valid from and to which date.' },
	conditionDomain: 'employee_competence',
	paths: { list: '/v1/org/employee-competences' },
	fields: {
		id: idField,
		org_id: plain('uuid'),
		competence_id: referenceField,
		employee_id: referenceField,
		source_system: plain('string'),
		mappings: plain('array'),
		valid_from: { ...dateField, orderable: true },
		valid_to: dateField,
		inserted_at: timestampField,
		updated_at: timestampField,
		properties: plain('object'),
	},
	datedProperties: ['issued_by', 'level', 'notes', 'source_external_id', 'valid_from', 'valid_to'],
	changeFields: { created: 'inserted_at', updated: 'updated_at' },
};
