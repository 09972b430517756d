import type { ResourceDefinition } from '../types';
import { plain } from '../types';

export const fileTransfer: ResourceDefinition = {
	value: 'fileTransfer',
	displayName: 'File Transfer',
	pluralName: 'File Transfers',
	description: 'Files delivered to a target system',
	builderHint: { propertyHint: 'A file sent to a target system: its status, and waiting until it is delivered.' },
	paths: { get: '/v1/org/file-transfers/{id}' },
	fields: {
		id: plain('uuid'),
		status: plain('string'),
		file_name: plain('string'),
		remote_id: plain('string'),
		delivered_at: plain('dateTime'),
		inserted_at: plain('dateTime'),
		updated_at: plain('dateTime'),
	},
	datedProperties: [],
	waitFor: { field: 'status', doneValue: 'delivered', label: 'Delivery' },
};
