import type { ResourceDefinition } from '../types';
import { plain } from '../types';

/** Created or updated under a system integration, which also decides `source_system`. */
export const systemTimeType: ResourceDefinition = {
	value: 'systemTimeType',
	displayName: 'System Time Type',
	pluralName: 'System Time Types',
	description: 'Absence and attendance types of a system integration',
	builderHint: { propertyHint: 'Define or change an absence or attendance type of a system integration, keyed by its name.' },
	paths: { createOrUpdate: '/v1/org/time-reports/system-time-types/{id}' },
	fields: {
		id: plain('uuid'),
		type_name: plain('string'),
		type_code: plain('string'),
		external_type_id: plain('string'),
		wider_unit_type_id: plain('uuid'),
		traits: plain('object'),
	},
	datedProperties: [],
};
