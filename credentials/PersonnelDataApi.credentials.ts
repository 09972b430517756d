import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INodeProperties,
	Icon,
} from 'n8n-workflow';

import { BASE_URL_PLACEHOLDER, CREDENTIAL_TEST_PATH, HTTP } from '../nodes/shared/apiChoices';
import { BASE_URL_EXPRESSION, BASE_URL_WHERE, baseUrlOf } from '../nodes/shared/transport/baseUrl';
import { CREDENTIAL_TEST_RULES } from '../nodes/shared/transport/credentialTest';
import { jwtExpiry, provisionAccessToken } from '../nodes/shared/transport/provisioning';
import { storedSecretsOf } from '../nodes/shared/transport/redact';

export class PersonnelDataApi implements ICredentialType {
	name = 'personnelDataApi';

	displayName = 'Personnel Data API';

	icon: Icon = {
		light: 'file:../nodes/PersonnelData/personnelData.svg',
		dark: 'file:../nodes/PersonnelData/personnelData.dark.svg',
	};

	// n8n's lint wants the address written here; test/docs/docsLinks.test.ts checks it against nodes/shared/docsLinks.ts.
	documentationUrl = 'https://github.com/personnel-data/n8n-nodes-personnel-data#set-up-the-credential';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			placeholder: BASE_URL_PLACEHOLDER,
			description: `Required: ${BASE_URL_WHERE}. An http:// or https:// address without a query or a fragment.`,
			required: true,
		},
		{
			displayName: 'Authentication',
			name: 'authMode',
			type: 'options',
			options: [
				{
					name: 'Provisioned Refresh Token',
					value: 'refreshToken',
					description: 'Recommended: a JTI and a refresh token from the back office give short-lived access tokens',
				},
				{ name: 'Legacy Token', value: 'legacyToken', description: 'A long-lived access token' },
			],
			default: 'refreshToken',
		},
		{
			displayName: 'JTI',
			name: 'jti',
			type: 'string',
			default: '',
			required: true,
			description: 'The identifier shown with the refresh token when it was created in the back office',
			displayOptions: { show: { authMode: ['refreshToken'] } },
		},
		{
			displayName: 'Refresh Token',
			name: 'refreshToken',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			displayOptions: { show: { authMode: ['refreshToken'] } },
		},
		{
			displayName: 'Legacy Token',
			name: 'legacyToken',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			displayOptions: { show: { authMode: ['legacyToken'] } },
		},
		// n8n hands a node and preAuthentication only the fields the form displays, so a token kept
		// in the other mode's field (the user switched modes) would be unknown to the redaction of
		// errors, and n8n 2.8 would drop it when it stores a new access token. These never-shown
		// twins (same names, after the visible fields so that n8n blanks them for the browser as
		// passwords) make n8n hand over both stored tokens in either mode.
		{
			displayName: 'Refresh Token (Either Mode)',
			name: 'refreshToken',
			type: 'hidden',
			typeOptions: { password: true },
			default: '',
		},
		{
			displayName: 'Legacy Token (Either Mode)',
			name: 'legacyToken',
			type: 'hidden',
			typeOptions: { password: true },
			default: '',
		},
		// Before 0.2 the form offered Production and Staging, invented addresses that never connected.
		// Kept, never shown, so that such a saved credential is named in its error (baseUrl.ts).
		{
			displayName: 'Environment (Before 0.2)',
			name: 'environment',
			type: 'hidden',
			default: '',
		},
		// Filled by preAuthentication; n8n empties it and provisions again after a 401.
		{
			displayName: 'Access Token',
			name: 'accessToken',
			type: 'hidden',
			typeOptions: { expirable: true, password: true },
			default: '',
		},
		{
			displayName: 'Expires At',
			name: 'expiresAt',
			type: 'hidden',
			default: '',
		},
	];

	async preAuthentication(this: IHttpRequestHelper, credentials: ICredentialDataDecryptedObject) {
		// Checked in both modes: a missing or bad Base URL is named here, before any request.
		const baseUrl = baseUrlOf(credentials);
		if (credentials.authMode === 'legacyToken') {
			const legacyToken = String(credentials.legacyToken ?? '');
			return { accessToken: legacyToken, expiresAt: jwtExpiry(legacyToken) };
		}
		const token = await provisionAccessToken(
			this.helpers,
			baseUrl,
			String(credentials.jti ?? ''),
			String(credentials.refreshToken ?? ''),
			storedSecretsOf(credentials),
		);
		return { ...token };
	}

	/**
	 * A function rather than the generic `=Bearer {{$credentials.accessToken}}`: n8n evaluates a
	 * generic value as an expression on every request (about 2.5 ms each on n8n 2.8, a quarter of
	 * a batched Get's time); the header is the same.
	 */
	async authenticate(credentials: ICredentialDataDecryptedObject, requestOptions: IHttpRequestOptions): Promise<IHttpRequestOptions> {
		return { ...requestOptions, headers: { ...requestOptions.headers, Authorization: `Bearer ${String(credentials.accessToken ?? '')}` } };
	}

	/**
	 * Run by n8n's own request machinery, so only its idle timeout applies to the listing itself;
	 * the token requests before it (preAuthentication) have the transport's total deadline, and
	 * their errors say whether the JTI and refresh token or the address is wrong. The rules say
	 * what a refused listing means (credentialTest.ts).
	 */
	test: ICredentialTestRequest = {
		request: { baseURL: BASE_URL_EXPRESSION, url: CREDENTIAL_TEST_PATH, timeout: HTTP.deadlineMs, ignoreHttpStatusErrors: true },
		rules: CREDENTIAL_TEST_RULES,
	};
}
