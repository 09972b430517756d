import type { IDataObject } from 'n8n-workflow';

import { InputError } from '../../shared/errors';

function parseOrUndefined(text: string): unknown {
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return undefined;
	}
}

/** A JSON field of the form: empty is "not given", anything but an object is a named error. */
export function parseJsonObject(raw: unknown, fieldLabel: string): IDataObject | undefined {
	if (raw === undefined || raw === null || raw === '') return undefined;
	if (typeof raw === 'object' && !Array.isArray(raw)) return raw as IDataObject;
	const parsed = parseOrUndefined(String(raw));
	if (parsed === undefined) {
		throw new InputError(`${fieldLabel}: not valid JSON; expected an object such as {"key": "value"}`);
	}
	if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
		throw new InputError(`${fieldLabel}: expected a JSON object, got ${Array.isArray(parsed) ? 'an array' : typeof parsed}`);
	}
	return parsed as IDataObject;
}
