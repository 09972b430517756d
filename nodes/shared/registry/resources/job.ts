import type { ResourceDefinition } from '../types';
import { plain } from '../types';

export const job: ResourceDefinition = {
	value: 'job',
	displayName: 'Job',
	pluralName: 'Jobs',
	description: 'Asynchronous work such as a sync or a replication',
	builderHint: { propertyHint: 'The status of asynchronous work such as the replication an employee write starts.' },
	paths: { get: '/v1/org/jobs/{id}' },
	fields: {
		id: plain('uuid'),
		status: plain('string'),
		type: plain('string'),
		completed_at: plain('dateTime'),
		inserted_at: plain('dateTime'),
		updated_at: plain('dateTime'),
	},
	datedProperties: [],
};
