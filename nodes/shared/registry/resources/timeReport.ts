import type { ResourceDefinition } from '../types';
import { dateField, idField, plain, referenceField, timestampField } from '../types';

/** The spec gives time reports no `updated_at`: they change only by being inserted. */
export const timeReport: ResourceDefinition = {
	value: 'timeReport',
	displayName: 'Time Report',
	pluralName: 'Time Reports',
	description: 'Reported absence and attendance: employee ID, start and end date (YYYY-MM-DD), times, extent, time type',
	builderHint: { propertyHint: 'Absence and attendance reports (vacation, sick leave, hours) of employees by date range; read-only.' },
	conditionDomain: 'time_report',
	paths: { list: '/v1/org/time-reports', get: '/v1/org/time-reports/{id}' },
	fields: {
		id: idField,
		org_id: plain('uuid'),
		employee_id: referenceField,
		start_date: { ...dateField, orderable: true },
		end_date: dateField,
		from_time: plain('string'),
		to_time: plain('string'),
		minutes: plain('array'),
		extent: plain('number'),
		comment: plain('string'),
		child_id: plain('uuid'),
		child_name: plain('string'),
		time_type_id: { type: 'string', filter: ['eq', 'in'] },
		source_external_time_type_id: plain('string'),
		source_system_slug: plain('string'),
		time_report_request_status: plain('string'),
		inserted_at: timestampField,
	},
	datedProperties: [],
	changeFields: { created: 'inserted_at' },
};
