import { z } from 'zod';

import { InputError } from './errors';
import type { FieldDefinition } from './registry';

/**
 * The spec says "UUID strings" and nothing about versions. zod's own `uuid()` changed between
 * majors (zod 4 checks the version and variant digits, so `00000000-0000-0000-0000-000000000001`
 * passes zod 3 and fails zod 4, and n8n decides which zod the package gets): any 8-4-4-4-12 hex.
 */
export const uuidSchema = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
const dateSchema = z.string().date();
const dateTimeSchema = z.string().datetime({ offset: true });

const EXPECTATION: Record<FieldDefinition['type'], string> = {
	uuid: 'a UUID such as 3f2b8c1e-5d4a-4e7b-9c1d-2a6f8e0b7c9d',
	date: 'a date as YYYY-MM-DD',
	dateTime: 'an ISO 8601 date-time such as 2026-11-23T08:00:00Z',
	number: 'a number',
	boolean: 'true or false',
	string: 'text',
	enum: 'one of the listed values',
	object: 'an object',
	array: 'a list',
};

/** What a value of this field must look like, in words for an error message. */
export function expectationOf(field: FieldDefinition): string {
	if (field.type === 'enum' && field.values) return `one of ${field.values.join(', ')}`;
	return EXPECTATION[field.type];
}

function schemaOf(field: FieldDefinition): z.ZodType<unknown> {
	switch (field.type) {
		case 'uuid':
			return uuidSchema;
		case 'date':
			return dateSchema;
		case 'dateTime':
			return dateTimeSchema;
		case 'number':
			return z.coerce.number();
		case 'boolean':
			return z.enum(['true', 'false']);
		case 'enum':
			return z.enum((field.values ?? []) as [string, ...string[]]);
		default:
			return z.string();
	}
}

/** A date-time with a numeric offset: whole seconds, fraction, offset sign, hours, minutes. */
const OFFSET_DATE_TIME = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2})?)(\.\d+)?([+-])(\d{2}):?(\d{2})?$/;

/**
 * Date-times go to the API in UTC with a Z. A value already in UTC keeps its digits (the API keeps
 * microseconds, which a JavaScript Date would drop); an offset is converted.
 */
export function normalizeDateTime(value: string): string {
	if (/Z$/i.test(value)) return value.replace(/z$/, 'Z');
	// Convert the whole seconds and keep the fraction's digits as given: a Date would cut
	// .123456 to .123 and move a `gt` filter's bound back by up to a millisecond.
	const parts = OFFSET_DATE_TIME.exec(value);
	if (!parts) return new Date(value).toISOString();
	const [, wholeSeconds, fraction = '', sign, hours, minutes = '00'] = parts;
	const utc = new Date(`${wholeSeconds}${sign}${hours}:${minutes}`).toISOString();
	return fraction ? `${utc.slice(0, 19)}${fraction}Z` : utc;
}

/** Returns the value to send, or undefined when it does not fit the field. */
export function checkValue(field: FieldDefinition, raw: string): string | undefined {
	const value = raw.trim();
	if (!schemaOf(field).safeParse(value).success) return undefined;
	return field.type === 'dateTime' ? normalizeDateTime(value) : value;
}

/**
 * A whole number between `min` and `max` from a number field. An expression may hand over the
 * number as text ("10"): that counts; anything else is an error naming the field, never clamped.
 */
export function checkWholeNumber(raw: unknown, label: string, min: number, max: number): number {
	const value = typeof raw === 'string' && /^\s*-?\d+\s*$/.test(raw) ? Number(raw) : raw;
	if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
		throw new InputError(`${label}: expected a whole number from ${min} to ${max}, got ${JSON.stringify(raw)}`);
	}
	return value;
}
