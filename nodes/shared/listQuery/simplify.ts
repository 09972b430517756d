import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { flattenDatedProperties } from '../datedValues';
import { InputError } from '../errors';
import type { ResourceDefinition } from '../registry';
import { checkValue } from '../validation';

export function hasDatedValues(resource: ResourceDefinition): boolean {
	return resource.datedProperties.length > 0;
}

export function simplifyProperty(resource: ResourceDefinition): INodeProperties[] {
	if (!hasDatedValues(resource)) return [];
	return [
		{
			displayName: 'Simplify',
			name: 'simplify',
			type: 'boolean',
			default: true,
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

const AS_OF_LABEL = 'Options › Dated Values As Of';

/**
 * The calendar day of the "Dated Values As Of" option (today in UTC when empty). A date the user
 * picked keeps its day, not that instant moved to UTC; a value that is not a real date or date-time
 * (2026-02-30, words) is an error, never quietly today.
 */
export function asOfDay(asOfDate: unknown, now = new Date()): string {
	const raw = asOfDate instanceof Date ? asOfDate.toISOString() : asOfDate;
	if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) {
		return now.toISOString().slice(0, 10);
	}
	const text = typeof raw === 'string' ? raw.trim() : String(raw);
	const day = /^\d{4}-\d{2}-\d{2}/.exec(text)?.[0];
	const rest = day === undefined ? '' : text.slice(10);
	const restIsTime = rest === '' || (/^[T ]/.test(rest) && !Number.isNaN(new Date(`${day}T${rest.slice(1)}`).getTime()));
	if (day === undefined || !checkValue({ type: 'date' }, day) || !restIsTime) {
		throw new InputError(`${AS_OF_LABEL}: ${JSON.stringify(raw)} is not a date; expected YYYY-MM-DD or an ISO 8601 date-time, or empty for today`);
	}
	return day;
}

/** Replaces each dated history by its value in force on `day` (a checked YYYY-MM-DD, see asOfDay). */
export function simplifyRecords(records: IDataObject[], simplify: boolean, day: string): IDataObject[] {
	if (!simplify) return records;
	return records.map((record) => flattenDatedProperties(record, day));
}
