/**
 * Every decision this package makes where the Personnel Data API specification is silent
 * (its "Gaps" sections). docs/spec-gaps.md describes these choices;
 * change a choice here and nowhere else.
 */

/**
 * The spec gives no address (only `{base_url}` and `{staging_base_url}`), so the credential asks the
 * user for it and the package knows none. Credentials saved before 0.2 may still hold one of these
 * Environment choices, which pointed at invented addresses: they are refused naming Base URL.
 */
export const RETIRED_ENVIRONMENTS: Readonly<Record<string, string>> = { production: 'Production', staging: 'Staging' };

/** Shown in the credential's Base URL field and quoted by its errors: clearly not a real address. */
export const BASE_URL_PLACEHOLDER = 'https://personnel-api.your-company.com';

export const PROVISIONING = {
	beginPath: '/provisioning/refresh-token/begin',
	refreshPath: '/provisioning/refresh-token/refresh',
	/** Request field that carries the JTI, in both calls. */
	jtiField: 'jti',
	signatureField: 'signature',
	/** Where the salt and the access token are found in the responses (first match wins). */
	saltPaths: [
		['data', 'salt'],
		['salt'],
	],
	accessTokenPaths: [
		['data', 'access_token'],
		['access_token'],
		['data', 'token'],
	],
} as const;

/** A cheap authenticated request that proves a token works (the credential test). */
export const CREDENTIAL_TEST_PATH = '/v1/org/employees?pagination%5Bfirst%5D=1&select%5B%5D=id';

export const PAGE_SIZE_MAX = 100;

/** Wire names of the shared list query conventions. */
export const QUERY = {
	first: 'pagination[first]',
	after: 'pagination[after]',
	orderField: 'order[field]',
	orderDirection: 'order[direction]',
	conditionId: 'condition_id',
	/** `in` values and `select` are lists: sent as repeated `name[]=value` parameters. */
	listSuffix: '[]',
	select: 'select',
	filter: (field: string, part: 'op' | 'value') => `filters[${field}][${part}]`,
} as const;

/** Write payloads are wrapped like responses: `{ data: … }`. */
export const WRITE_ENVELOPE = 'data';

/** Body of `POST /v1/org/employees/shape`. */
export const SHAPE_BODY_FIELD = 'shape';

export const HTTP = {
	/**
	 * Total time one exchange may take: connecting, the headers and the whole body. Each token request
	 * and the API request after it have their own. An answer still arriving at the deadline is closed
	 * and not retried, so a server that trickles its answer cannot keep a run alive past it.
	 */
	deadlineMs: 120_000,
	/** An answer larger than this is refused ("answer too large") instead of being held in memory. */
	maxBodyBytes: 64 * 1024 * 1024,
	maxAttempts: 5,
	backoffBaseMs: 500,
	backoffMaxMs: 30_000,
	/** A server's Retry-After longer than this is not waited for: the error goes to the user. */
	retryAfterMaxMs: 120_000,
	/**
	 * Freshly provisioned tokens the server may refuse (401) within one node run before the run
	 * stops: renewing once more per item would provision hundreds of times against a broken server.
	 */
	refusedFreshTokensPerRun: 2,
	/** Token requests that may fail transiently (429, 5xx, network) within one node run. */
	failedProvisioningsPerRun: 5,
	/**
	 * Requests one page walk (Return All, Limit, a trigger poll) may send unless the user raises
	 * Options → Max Requests. Under a condition the server reads a bounded number of records per
	 * request (pages come back short or empty), so 1,000,000 employees may take ~20,000 requests.
	 */
	walkMaxRequests: 30_000,
} as const;
