import type { ResourceDefinition } from '../types';
import { idField, plain, textSearchField, timestampField } from '../types';

export const competence: ResourceDefinition = {
	value: 'competence',
	displayName: 'Competence',
	pluralName: 'Competences',
	description: 'Skills, certificates and qualifications',
	builderHint: { propertyHint: 'The catalogue of skills, certificates and qualifications.' },
	conditionDomain: 'competence',
	paths: { list: '/v1/org/competences', get: '/v1/org/competences/{id}' },
	fields: {
		id: idField,
		org_id: plain('uuid'),
		name: textSearchField,
		type: { type: 'string', filter: ['eq', 'in'] },
		source_system: plain('string'),
		mappings: plain('array'),
		inserted_at: timestampField,
		updated_at: timestampField,
		properties: plain('object'),
	},
	datedProperties: ['code', 'description', 'name', 'source_external_id', 'type'],
	changeFields: { created: 'inserted_at', updated: 'updated_at' },
	search: { field: 'name', operator: 'ilike', labelFields: ['name'] },
};
