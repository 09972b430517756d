import type { IHttpRequestMethods } from 'n8n-workflow';

import { HTTP } from '../apiChoices';
import type { TransportFailure } from './failure';

const RETRYABLE_STATUS_WHEN_IDEMPOTENT = new Set([500, 502, 503, 504]);
const RETRYABLE_NETWORK_CODES = new Set(['ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'ECONNREFUSED', 'EAI_AGAIN']);
const IDEMPOTENT_METHODS = new Set<IHttpRequestMethods>(['GET', 'HEAD', 'PUT', 'DELETE']);

export function isIdempotent(method: IHttpRequestMethods, declaredIdempotent = false): boolean {
	return declaredIdempotent || IDEMPOTENT_METHODS.has(method);
}

/**
 * 429 means the server did not act, so every method may repeat it; other failures only when
 * repeating cannot write twice. A 401 was already retried once by n8n after provisioning again.
 * An answer still trickling in at the deadline is not repeated: the run would wait once per attempt.
 */
export function isRetryable(failure: TransportFailure, idempotent: boolean): boolean {
	if (failure.status === 429) return true;
	if (failure.trickled) return false;
	// A token request that failed transiently: the API request itself was never sent.
	if (failure.notSent) return failure.status !== undefined ? failure.status >= 500 : failure.code !== undefined;
	if (!idempotent) return false;
	if (failure.status !== undefined) return RETRYABLE_STATUS_WHEN_IDEMPOTENT.has(failure.status);
	return failure.code !== undefined && RETRYABLE_NETWORK_CODES.has(failure.code);
}

export function retryAfterMs(header: string | undefined, now = Date.now()): number | undefined {
	if (header === undefined || header.trim() === '') return undefined;
	const seconds = Number(header);
	if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
	const date = Date.parse(header);
	return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The server said how long to wait (a positive Retry-After). */
export function namesDelay(failure: TransportFailure): boolean {
	return (retryAfterMs(failure.retryAfter) ?? 0) > 0;
}

/**
 * A request refused (429, no delay named) while others of the same listing were in flight is sent
 * again as soon as one of them ends, under the limit the refusal lowered (ApiRequest.retryOnASlot):
 * the server limits requests at once, and a timed pause of the whole run would only cost time. At
 * most this many times per request; then the backoff applies, as to any 429. The limit halves with
 * each round of refusals, so a server taking one at a time is met alone after two.
 */
export const REFUSALS_RETRIED_ON_A_SLOT = 2;

/**
 * The backoff used when the server names no delay (or a delay of 0). Production always uses
 * HTTP's values; tests may lower them (and must restore them) so that exhausting the attempts does
 * not take seconds. A positive Retry-After is always honoured as sent, whatever these are.
 */
export const backoffTiming = { baseMs: HTTP.backoffBaseMs as number, maxMs: HTTP.backoffMaxMs as number };

/**
 * Exponential backoff with jitter (50–100 % of the ceiling), unless the server said how long to
 * wait. "Retry-After: 0" (or a date already past) counts as no delay named: every request in
 * flight that was refused together would come back at once, meet the same limit and use up its
 * attempts within milliseconds.
 */
export function retryDelayMs(failure: TransportFailure, attempt: number, random = Math.random): number {
	const announced = retryAfterMs(failure.retryAfter);
	if (announced !== undefined && announced > 0) return announced;
	const ceiling = Math.min(backoffTiming.maxMs, backoffTiming.baseMs * 2 ** (attempt - 1));
	return Math.round(ceiling * (0.5 + random() / 2));
}
