import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { BASE_URL_PLACEHOLDER, RETIRED_ENVIRONMENTS } from '../apiChoices';
import { InputError } from '../errors';

const BASE_URL_LABEL = 'Base URL (credential)';

/** Where a user finds the address; the credential's description and its errors both say it. */
export const BASE_URL_WHERE =
	'the address of your organisation\'s Personnel Data API (production, staging or a sandbox), from the service\'s back office or its support';

/**
 * The credential's Base URL, checked: an absolute http(s) address without query, fragment or user
 * info, since the API's paths are appended to it as text (a `#…` would swallow them, a `?x=` turn
 * them into a query). A mistake here is the user's to fix, so it is an InputError (never retried),
 * thrown before anything is sent.
 */
function checkBaseUrl(raw: unknown, environment: unknown): string {
	const text = typeof raw === 'string' ? raw : '';
	const retired = typeof environment === 'string' ? RETIRED_ENVIRONMENTS[environment] : undefined;
	if (text.trim() === '' && retired !== undefined) {
		throw new InputError(
			`${BASE_URL_LABEL} is empty: this credential was saved with Environment "${retired}", which pointed at an invented address and never connected. ` +
				`Open the credential, enter ${BASE_URL_WHERE} in Base URL, and save it`,
		);
	}
	const shown = /@/.test(text) ? 'the value' : JSON.stringify(text);
	const refuse = (why: string) =>
		new InputError(`${BASE_URL_LABEL}: ${shown} ${why}; expected an absolute http(s) address such as ${BASE_URL_PLACEHOLDER}: ${BASE_URL_WHERE}`);
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

/** The address every request and token request goes to: always the user's own Base URL. */
export function baseUrlOf(credentials: ICredentialDataDecryptedObject): string {
	return checkBaseUrl(credentials.baseUrl, credentials.environment);
}

/** The same address as an n8n expression, for the credential test request (checked first by preAuthentication). */
export const BASE_URL_EXPRESSION = '={{ String($credentials.baseUrl).replace(/\\/+$/, "") }}';
