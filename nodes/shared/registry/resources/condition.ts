import type { ResourceDefinition } from '../types';
import { DOMAINS, plain, timestampField } from '../types';

/** Exactly the spec's `GET /v1/org/conditions` filters and orderable fields. */
export const condition: ResourceDefinition = {
	value: 'condition',
	displayName: 'Condition',
	pluralName: 'Conditions',
	description: 'Saved rules of the organization (read-only)',
	builderHint: { propertyHint: 'Saved rules (for example "North office staff") to pass as the condition of a list; look up their IDs here.' },
	paths: { list: '/v1/org/conditions' },
	fields: {
		id: { type: 'uuid', filter: ['eq', 'in'], orderable: true },
		name: { type: 'string', filter: ['eq', 'ilike'], orderable: true },
		domain: { type: 'enum', values: DOMAINS, filter: ['eq', 'in'], orderable: true },
		description: plain('string'),
		summary: plain('string'),
		data_engine: plain('object'),
		inserted_at: timestampField,
		updated_at: timestampField,
	},
	datedProperties: [],
	changeFields: { created: 'inserted_at', updated: 'updated_at' },
	search: { field: 'name', operator: 'ilike', labelFields: ['name', 'domain'] },
};
