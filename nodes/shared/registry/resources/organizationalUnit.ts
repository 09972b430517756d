import type { ResourceDefinition } from '../types';
import { idField, plain, referenceField, textSearchField, timestampField } from '../types';

export const organizationalUnit: ResourceDefinition = {
	value: 'organizationalUnit',
	displayName: 'Organizational Unit',
	pluralName: 'Organizational Units',
	description: 'Teams, departments and divisions',
	builderHint: { propertyHint: 'Teams, departments and the org chart (parent unit, tier); also deleted units.' },
	conditionDomain: 'org_unit',
	// v2 for a single unit: the deprecated v1 wraps `properties` in an undocumented container.
	paths: { list: '/v1/org/organizational-units', get: '/v2/org/organizational-units/{id}' },
	fields: {
		id: idField,
		org_id: plain('uuid'),
		parent_id: referenceField,
		name: textSearchField,
		description: plain('string'),
		email: plain('string'),
		phone: plain('string'),
		tier: { type: 'string', filter: ['eq', 'in'] },
		deleted_at: timestampField,
		inserted_at: timestampField,
		updated_at: timestampField,
		properties: plain('object'),
	},
	datedProperties: ['description', 'email', 'name', 'phone', 'source_external_id', 'source_external_parent_id', 'tier'],
	changeFields: { created: 'inserted_at', updated: 'updated_at', deleted: 'deleted_at' },
	search: { field: 'name', operator: 'ilike', labelFields: ['name'] },
};
