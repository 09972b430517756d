import type { IDataObject } from 'n8n-workflow';

import type { ExchangeStop } from './bounded';
import { ExchangeStopped } from './bounded';
import { provisioningFailureOf } from './provisioningError';

/** What a failed request left behind, stripped of the request itself (it holds the token). */
export interface TransportFailure {
	status?: number;
	/** Seconds or an HTTP date, as the server sent it. */
	retryAfter?: string;
	body?: unknown;
	/** Network error code such as ECONNRESET, when no response came. */
	code?: string;
	message: string;
	/** Set when pre-authentication failed: the message is the credential's own, free of secrets. */
	provisioningMessage?: string;
	/**
	 * The request itself never left: getting a token failed first. Repeating it cannot write twice,
	 * so a transient provisioning failure may be retried for every method.
	 */
	notSent?: boolean;
	/** This side ended the exchange: out of time, the answer too large, or the execution cancelled. */
	stopped?: ExchangeStop;
	/**
	 * Out of time while the answer (of the API or of a token request) was still arriving: the server
	 * answers, too slowly. Not retried: a trickling server or proxy would hold the run once per attempt.
	 */
	trickled?: boolean;
	/** A 2xx that is not the API's JSON: what was expected and what came instead. */
	badAnswer?: string;
	/** An error status whose body is not JSON: its type, size and first words. */
	bodyExcerpt?: string;
	/** Why no retry came although one was allowed: the wait it needed (a Retry-After too long, or past the time budget). */
	notWaited?: string;
	/** The run already stopped for this reason (see request.ts): nothing was sent. */
	runStopped?: boolean;
}

interface AxiosLike {
	name?: string;
	response?: { status?: number; headers?: Record<string, unknown>; data?: unknown };
	code?: string;
	message?: string;
	cause?: unknown;
	/** Set on n8n's NodeApiError. */
	httpCode?: string | null;
	messages?: unknown;
	context?: { data?: unknown };
}

/** A response received with `ignoreHttpStatusErrors` + `returnFullResponse` (status and headers visible). */
export function failureOfResponse(statusCode: number, headers: Record<string, unknown> | undefined, body: unknown): TransportFailure {
	const retryAfter = headers?.['retry-after'];
	return {
		status: statusCode,
		retryAfter: retryAfter === undefined ? undefined : String(retryAfter),
		body,
		message: `HTTP ${statusCode}`,
	};
}

function textsOf(error: AxiosLike): string[] {
	const texts = [error.message, ...(Array.isArray(error.messages) ? error.messages : [])];
	return texts.filter((text): text is string => typeof text === 'string');
}

/**
 * A thrown error of `httpRequestWithAuthentication`. n8n wraps the HTTP client's error in a
 * NodeApiError and (n8n-workflow 2.x: `ExecutionBaseError` redeclares `cause`) drops the original:
 * what is left is `httpCode` (status or network code), `context.data` (the response body) and the
 * original message among `messages`. Response headers, hence Retry-After, are lost on this path,
 * which is why request.ts reads responses with `ignoreHttpStatusErrors` whenever it can.
 */
export function failureOf(error: unknown): TransportFailure {
	if (error instanceof ExchangeStopped) {
		return {
			stopped: error.reason,
			code: error.reason === 'deadline' ? 'ETIMEDOUT' : undefined,
			trickled: error.trickled || undefined,
			message: error.message,
		};
	}
	let current = error as AxiosLike | undefined;
	for (let depth = 0; depth < 4 && current; depth++) {
		if (current.response || !current.cause) break;
		current = current.cause as AxiosLike;
	}
	const top = (error ?? {}) as AxiosLike;
	for (const text of [...textsOf(top), ...(current && current !== top ? textsOf(current) : [])]) {
		const provisioning = provisioningFailureOf(text);
		if (provisioning) return { ...provisioning, message: text, provisioningMessage: text, notSent: true };
	}
	const response = current?.response;
	if (response) {
		const headers = response.headers;
		return { ...failureOfResponse(response.status ?? 0, headers, response.data), code: current?.code };
	}
	const httpCode = typeof top.httpCode === 'string' ? top.httpCode : undefined;
	const numeric = httpCode !== undefined && /^\d{3}$/.test(httpCode) ? Number(httpCode) : undefined;
	return {
		status: numeric,
		body: numeric === undefined ? undefined : top.context?.data,
		code: current?.code ?? top.code ?? (numeric === undefined ? httpCode : undefined),
		message: current?.message ?? String(error),
	};
}

export interface ApiErrorBody {
	code?: number;
	message?: string;
	errors?: Array<{ domain?: string; reason?: string; message?: string }>;
}

export function apiErrorBody(body: unknown): ApiErrorBody {
	if (body === null || typeof body !== 'object' || Array.isArray(body)) return {};
	const { code, message, errors } = body as IDataObject;
	return {
		code: typeof code === 'number' ? code : undefined,
		message: typeof message === 'string' ? message : undefined,
		errors: Array.isArray(errors) ? (errors as ApiErrorBody['errors']) : undefined,
	};
}
