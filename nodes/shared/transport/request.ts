import { createHash } from 'node:crypto';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IN8nHttpFullResponse,
	IPollFunctions,
} from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { HTTP } from '../apiChoices';
import { baseUrlOf } from './baseUrl';
import { toNodeApiError } from './errors';
import type { TransportFailure } from './failure';
import { failureOf, failureOfResponse } from './failure';
import type { Query } from './query';
import { withQuery } from './query';
import { gateFor } from './rateGate';
import { isIdempotent, isRetryable, retryDelayMs } from './retryPolicy';

export const CREDENTIAL_TYPE = 'personnelDataApi';

export type ApiContext = IExecuteFunctions | IPollFunctions | ILoadOptionsFunctions;

export interface ApiRequest {
	method: IHttpRequestMethods;
	/** Path below the base URL, already holding any path parameters. */
	path: string;
	query?: Query;
	body?: IDataObject;
	/** A POST that only reads (the shape list) may be repeated like a GET. */
	idempotent?: boolean;
	/** Names the record for 403/404 messages, e.g. "Employee 3f2c…". */
	subject?: string;
	itemIndex?: number;
	/**
	 * Epoch ms by which any pause before a retry must be over; a longer one (a Retry-After, a
	 * backoff) gives up with the error at once. A trigger poll sets its next poll's start here.
	 */
	waitUntil?: number;
}

type Outcome = { body: unknown; failure?: undefined } | { failure: TransportFailure };

/**
 * One HTTP exchange through n8n's helper, so that pre-authentication, proxies and (in `renew`
 * mode) n8n's "401 → provision again → retry once" apply.
 *
 * Why two modes: when the helper throws, n8n wraps the error in a NodeApiError that keeps the status
 * and body but drops the response headers, so a 429's Retry-After would be lost. In `observe` mode
 * the response comes back whatever its status (`ignoreHttpStatusErrors`), headers included; but
 * then a 401 is not an error to n8n and it does not renew the token. So: `observe` while the stored
 * token is believed valid, `renew` when it is missing or past its `expiresAt` (n8n sees the 401).
 */
async function send(context: ApiContext, request: ApiRequest, url: string, mode: 'observe' | 'renew'): Promise<Outcome> {
	const options: IHttpRequestOptions = {
		method: request.method,
		url,
		json: true,
		timeout: HTTP.timeoutMs,
		headers: { Accept: 'application/json' },
	};
	if (request.body !== undefined) options.body = request.body;
	if (mode === 'observe') {
		options.ignoreHttpStatusErrors = true;
		options.returnFullResponse = true;
	}
	try {
		const response: unknown = await context.helpers.httpRequestWithAuthentication.call(context, CREDENTIAL_TYPE, options);
		if (mode === 'renew') return { body: response };
		const full = response as IN8nHttpFullResponse;
		if (full.statusCode >= 200 && full.statusCode < 300) return { body: full.body };
		return { failure: failureOfResponse(full.statusCode, full.headers as Record<string, unknown>, full.body) };
	} catch (error) {
		return { failure: failureOf(error) };
	}
}

function tokenOf(credentials: ICredentialDataDecryptedObject): string {
	return String(credentials.accessToken ?? '');
}

/**
 * No token yet, or its stored expiry (decoded from the JWT) has passed: the next request renews it.
 * No safety margin: tokens may be short-lived, and a request that races the expiry only costs one
 * more 401 (observe mode sees it, then renews).
 */
function needsNewToken(credentials: ICredentialDataDecryptedObject): boolean {
	if (tokenOf(credentials) === '') return true;
	const expiresAt = Date.parse(String(credentials.expiresAt ?? ''));
	return Number.isFinite(expiresAt) && expiresAt <= Date.now();
}

/**
 * Renewals in flight, by credential and token being replaced. n8n provisions once per 401 and
 * nothing serialises concurrent requests, so with the node's Concurrency option every in-flight
 * request would provision its own token. The first request that finds the token missing or
 * expired goes alone; the others wait for it (once) and then use the token it stored.
 */
const renewals = new Map<string, Promise<void>>();

function renewalKey(credentials: ICredentialDataDecryptedObject): string {
	const digest = createHash('sha256').update(tokenOf(credentials)).digest('hex');
	return [baseUrlOf(credentials), String(credentials.authMode ?? ''), String(credentials.jti ?? ''), digest].join('\n');
}

/** One attempt from the caller's point of view: the token renewal, if one is due, is part of it. */
async function attemptOnce(
	context: ApiContext,
	request: ApiRequest,
	url: string,
	/** Credentials the caller has just read; decrypting them again costs more than the request. */
	fresh?: ICredentialDataDecryptedObject,
): Promise<Outcome> {
	let refused: string | undefined;
	let waited = false;
	for (let round = 0; round < 4; round++) {
		const credentials = round === 0 && fresh ? fresh : await context.getCredentials(CREDENTIAL_TYPE);
		const token = tokenOf(credentials);
		if (token !== refused && !needsNewToken(credentials)) {
			const outcome = await send(context, request, url, 'observe');
			if (outcome.failure?.status !== 401) return outcome;
			// The server refused a token our clock thinks valid (revoked, or the clocks differ):
			// renew it below unless another request has done so meanwhile.
			refused = token;
			continue;
		}
		const key = renewalKey(credentials);
		const pending = renewals.get(key);
		if (pending && !waited) {
			waited = true;
			await pending;
			continue;
		}
		const run = send(context, request, url, 'renew');
		const done = run.then(() => undefined);
		if (!pending) renewals.set(key, done);
		try {
			return await run;
		} finally {
			if (renewals.get(key) === done) renewals.delete(key);
		}
	}
	return await send(context, request, url, 'renew');
}

/** The only way node code talks to the API: authentication, retries and error mapping. */
export async function apiRequest<T = IDataObject>(this: ApiContext, request: ApiRequest): Promise<T> {
	const credentials = await this.getCredentials(CREDENTIAL_TYPE);
	const url = `${baseUrlOf(credentials)}${withQuery(request.path, request.query)}`;
	const idempotent = isIdempotent(request.method, request.idempotent);
	const gate = gateFor(this);

	let failure: TransportFailure | undefined;
	let attempt = 0;
	while (attempt < HTTP.maxAttempts) {
		attempt++;
		await gate.ready();
		const outcome = await attemptOnce(this, request, url, attempt === 1 ? credentials : undefined);
		if (!outcome.failure) return outcome.body as T;
		failure = outcome.failure;
		if (!isRetryable(failure, idempotent) || attempt >= HTTP.maxAttempts) break;
		const delay = retryDelayMs(failure, attempt);
		if (delay > HTTP.retryAfterMaxMs) break;
		if (request.waitUntil !== undefined && Date.now() + delay > request.waitUntil) break;
		if (failure.status === 429) gate.pauseFor(delay);
		await sleep(delay);
	}
	throw toNodeApiError(this.getNode(), failure as TransportFailure, {
		method: request.method,
		path: request.path,
		attempts: attempt,
		subject: request.subject,
		itemIndex: request.itemIndex,
	});
}
