import type { IDataObject } from 'n8n-workflow';

import { InputError } from '../../shared/errors';

function parseOrUndefined(text: string): unknown {
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return undefined;
	}
}

/** Keys that change an object's prototype when copied or merged; never meant as API data. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function refuseForbiddenKeys(value: unknown, fieldLabel: string, path: string): void {
	if (value === null || typeof value !== 'object') return;
	for (const [key, inner] of Object.entries(value)) {
		const at = Array.isArray(value) ? `${path}[${key}]` : path === '' ? key : `${path}.${key}`;
		if (!Array.isArray(value) && FORBIDDEN_KEYS.has(key)) {
			throw new InputError(`${fieldLabel} › ${at}: "${key}" is not allowed as a key; expected field names of the API`);
		}
		refuseForbiddenKeys(inner, fieldLabel, at);
	}
}

/**
 * A JSON field of the form: empty is "not given", anything but an object is a named error, and so
 * is a `__proto__`, `constructor` or `prototype` key at any depth.
 */
export function parseJsonObject(raw: unknown, fieldLabel: string): IDataObject | undefined {
	if (raw === undefined || raw === null || raw === '') return undefined;
	const parsed = typeof raw === 'object' ? raw : parseOrUndefined(String(raw));
	if (parsed === undefined) {
		throw new InputError(`${fieldLabel}: not valid JSON; expected an object such as {"key": "value"}`);
	}
	if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
		throw new InputError(`${fieldLabel}: expected a JSON object, got ${Array.isArray(parsed) ? 'an array' : typeof parsed}`);
	}
	refuseForbiddenKeys(parsed, fieldLabel, '');
	return parsed as IDataObject;
}
