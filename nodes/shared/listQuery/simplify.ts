import type { IDataObject, IDisplayOptions, INodeProperties } from 'n8n-workflow';

import { flattenDatedProperties } from '../datedValues';
import type { ResourceDefinition } from '../registry';

export function hasDatedValues(resource: ResourceDefinition): boolean {
	return resource.datedProperties.length > 0;
}

export function simplifyProperty(resource: ResourceDefinition, displayOptions: IDisplayOptions): INodeProperties[] {
	if (!hasDatedValues(resource)) return [];
	return [
		{
			displayName: 'Simplify',
			name: 'simplify',
			type: 'boolean',
			default: true,
			displayOptions,
			description:
				'Whether to replace each dated property (a history of {valid_from, value} entries) by the value in force on the "Dated Values As Of" date (today unless set)',
		},
	];
}

export const datedValuesAsOfOption: INodeProperties = {
	displayName: 'Dated Values As Of',
	name: 'asOfDate',
	type: 'dateTime',
	default: '',
	description: 'With Simplify on, dated properties show the value in force on this date. Empty: today (UTC).',
};

export function asOfDay(asOfDate: unknown, now = new Date()): string {
	if (typeof asOfDate === 'string' && asOfDate.trim() !== '') {
		// The calendar day the user picked, not that instant moved to UTC.
		const literal = /^\d{4}-\d{2}-\d{2}/.exec(asOfDate.trim());
		if (literal) return literal[0];
		const parsed = new Date(asOfDate);
		if (!Number.isNaN(parsed.getTime())) return parsed.toISOString().slice(0, 10);
	}
	return now.toISOString().slice(0, 10);
}

export function simplifyRecords(records: IDataObject[], simplify: boolean, asOfDate: unknown): IDataObject[] {
	if (!simplify) return records;
	const day = asOfDay(asOfDate);
	return records.map((record) => flattenDatedProperties(record, day));
}
