import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { BASE_URLS } from '../apiChoices';
import { InputError } from '../errors';

export type Environment = 'production' | 'staging' | 'custom';

const BASE_URL_LABEL = 'Base URL (credential)';

/**
 * The credential's custom Base URL, checked: an absolute http(s) address without query, fragment
 * or user info, since the API's paths are appended to it as text (a `#…` would swallow them, a
 * `?x=` turn them into a query). A mistake here is the user's to fix, so it is an InputError
 * (never retried), thrown before anything is sent.
 */
function checkCustomBaseUrl(raw: unknown): string {
	const text = typeof raw === 'string' ? raw : '';
	const shown = /@/.test(text) ? 'the value' : JSON.stringify(text);
	const refuse = (why: string) =>
		new InputError(`${BASE_URL_LABEL}: ${shown} ${why}; expected an absolute http(s) address such as https://sandbox.personnel-data.example`);
	if (text.trim() === '') throw refuse('is empty');
	if (text !== text.trim()) throw refuse('has spaces around it');
	let url: URL;
	try {
		url = new URL(text);
	} catch {
		throw refuse('is not a URL');
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refuse(`uses ${url.protocol} instead of http or https`);
	if (url.username !== '' || url.password !== '') throw refuse('holds a user name or password');
	if (text.includes('?')) throw refuse('holds a query (?…)');
	if (text.includes('#')) throw refuse('holds a fragment (#…)');
	return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

export function baseUrlOf(credentials: ICredentialDataDecryptedObject): string {
	const environment = (credentials.environment ?? 'production') as Environment;
	return environment === 'custom' ? checkCustomBaseUrl(credentials.baseUrl) : BASE_URLS[environment];
}

/** The same rule as an n8n expression, for the credential test request. */
export const BASE_URL_EXPRESSION =
	'={{ $credentials.environment === "custom" ? $credentials.baseUrl.replace(/\\/+$/, "") : ' +
	`($credentials.environment === "staging" ? "${BASE_URLS.staging}" : "${BASE_URLS.production}") }}`;
