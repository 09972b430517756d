import type { IAuthenticateRuleResponseSuccessBody } from 'n8n-workflow';

/**
 * What the credential test's listing (one employee) means when it does not list. The token
 * requests before it have their own messages (provisioningError.ts): a wrong JTI or refresh token,
 * or a Base URL that is not the API. n8n reads a response-code rule only from an error that keeps
 * its response, which n8n 2.8's request helper does not; so the test request takes every status
 * as an answer and these rules read its body, first match wins: the spec's error object carries
 * the status in `code`, and an answer without `data` is not the API's employee list.
 */
export const CREDENTIAL_TEST_RULES: IAuthenticateRuleResponseSuccessBody[] = [
	{
		type: 'responseSuccessBody',
		properties: {
			key: 'code',
			value: 401,
			message:
				'The API refused the access token (HTTP 401 listing employees): with a Legacy Token, check the token; with a refresh token, test again (a stored token may have expired) and check that Base URL is the API that issued it',
		},
	},
	{
		type: 'responseSuccessBody',
		properties: {
			key: 'code',
			value: 403,
			message:
				"The token works, but its role may not list employees (HTTP 403 on GET /v1/org/employees). Operations the role is granted still run; ask the service's administrators for the Employee List permission to pass this test",
		},
	},
	{
		type: 'responseSuccessBody',
		properties: {
			key: 'data',
			value: undefined,
			message:
				"The credential's Base URL did not answer as the Personnel Data API's employee list (GET /v1/org/employees): check that it is your service's API address (not its web application), without /v1 at its end; if it is, the service may be failing: try again later",
		},
	},
];
