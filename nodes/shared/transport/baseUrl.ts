import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { BASE_URLS } from '../apiChoices';

export type Environment = 'production' | 'staging' | 'custom';

export function baseUrlOf(credentials: ICredentialDataDecryptedObject): string {
	const environment = (credentials.environment ?? 'production') as Environment;
	const url = environment === 'custom' ? String(credentials.baseUrl ?? '') : BASE_URLS[environment];
	return url.replace(/\/+$/, '');
}

/** The same rule as an n8n expression, for the credential test request. */
export const BASE_URL_EXPRESSION =
	'={{ $credentials.environment === "custom" ? $credentials.baseUrl.replace(/\\/+$/, "") : ' +
	`($credentials.environment === "staging" ? "${BASE_URLS.staging}" : "${BASE_URLS.production}") }}`;
