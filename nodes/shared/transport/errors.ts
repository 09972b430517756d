import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { TransportFailure } from './failure';
import { apiErrorBody } from './failure';
import type { Redact } from './redact';

export interface FailureContext {
	method: string;
	path: string;
	attempts: number;
	/** Names the record a single-resource request was about, e.g. "Employee 3f2c…". */
	subject?: string;
	itemIndex?: number;
	/** Replaces the credential's secrets and anything token-shaped (redact.ts). */
	redact: Redact;
}

function innerErrorLines(failure: TransportFailure): string[] {
	return (apiErrorBody(failure.body).errors ?? []).map(
		(inner) => `${inner.domain ?? 'api'}/${inner.reason ?? 'error'}: ${inner.message ?? ''}`.trim(),
	);
}

const NETWORK_PHRASES: Record<string, string> = {
	ECONNRESET: 'the connection was closed unexpectedly',
	ECONNREFUSED: 'the connection was refused',
	ECONNABORTED: 'no answer in time',
	ETIMEDOUT: 'no answer in time',
	ENOTFOUND: 'the host name is unknown',
	EAI_AGAIN: 'the host name could not be resolved',
	EHOSTUNREACH: 'the host is unreachable',
	EPIPE: 'the connection was closed unexpectedly',
};

/**
 * n8n's NodeApiError replaces any message that mentions a network error code (ECONNRESET, …)
 * with its own generic text, which would hide that the Personnel Data API was the one not
 * answering. The code therefore goes to the description and the message gets words instead.
 */
function withoutNetworkCodes(text: string): string {
	return text.replace(/\b(E[A-Z]+(?:_[A-Z]+)*|GETADDRINFO)\b/g, (code) =>
		/^(ECONN|ETIMEDOUT|ENOTFOUND|EAI_|EHOST|EPIPE|EADDR|ERRADDR|GETADDRINFO|ENOENT|EISDIR|ENOTDIR|EACCES|EEXIST|EPERM)/.test(code)
			? (NETWORK_PHRASES[code] ?? 'a network error')
			: code,
	);
}

function headline(failure: TransportFailure, context: FailureContext): string {
	const text = withoutNetworkCodes(rawHeadline(failure, context));
	return failure.notWaited ? `${text}; ${failure.notWaited}` : text;
}

function rawHeadline(failure: TransportFailure, context: FailureContext): string {
	const status = failure.status;
	const endpoint = `${context.method} ${context.path}`;
	const apiMessage = apiErrorBody(failure.body).message;
	if (failure.provisioningMessage) return failure.provisioningMessage;
	if (failure.stopped === 'cancelled') return `Stopped ${endpoint}: the execution was cancelled`;
	if (failure.stopped === 'deadline') return `The Personnel Data API did not answer ${endpoint} in time (${failure.message})`;
	if (failure.stopped === 'tooLarge') return `The Personnel Data API's answer to ${endpoint} was too large (${failure.message})`;
	if (failure.badAnswer) return `The Personnel Data API answered ${endpoint} with ${status} but ${failure.badAnswer}`;
	if (status === 404 && context.subject) return `${context.subject} was not found`;
	if (status === 403 && context.subject) return `Access to ${context.subject} is forbidden for this credential's role`;
	if (status === 401) return 'The Personnel Data API did not accept the credential\'s token';
	const [first] = status !== undefined && status >= 400 && status < 500 ? (apiErrorBody(failure.body).errors ?? []) : [];
	const why = first ? `: ${[first.reason, first.message].filter((part) => typeof part === 'string' && part !== '').join(': ')}` : '';
	if (status === 403) return `The credential's role lacks the permission for this request${why}`;
	if (status !== undefined) return `The Personnel Data API answered ${status}${apiMessage ? ` ${apiMessage}` : ''}${why}`;
	return `The Personnel Data API could not be reached (${failure.code ?? 'no response'})`;
}

/**
 * The one place an HTTP failure becomes the error the user sees: the status, the API's message and
 * every inner error (domain/reason/message). Built from the parsed body only, never from the
 * request, so that no token can reach the message, the description or the error's context.
 */
export function toNodeApiError(node: INode, failure: TransportFailure, context: FailureContext): NodeApiError {
	const { redact } = context;
	const inner = innerErrorLines(failure);
	const details = [
		...inner,
		`${context.method} ${context.path}`,
		failure.bodyExcerpt ? `answer: ${failure.bodyExcerpt}` : '',
		failure.status === undefined && failure.code && !failure.stopped ? `network error ${failure.code}` : '',
		context.attempts > 1 ? `gave up after ${context.attempts} attempts` : '',
	].filter(Boolean);
	const body = apiErrorBody(failure.body);
	const errorResponse: JsonObject = {
		httpCode: failure.status === undefined ? null : String(failure.status),
		message: redact(body.message ?? failure.code ?? 'request failed'),
		errors: (body.errors ?? []).map((error) => ({
			domain: redact(String(error.domain ?? '')),
			reason: redact(String(error.reason ?? '')),
			message: redact(String(error.message ?? '')),
		})),
	};
	return new NodeApiError(node, errorResponse, {
		message: redact(headline(failure, context)),
		description: redact(details.join('\n')),
		httpCode: failure.status === undefined ? undefined : String(failure.status),
		itemIndex: context.itemIndex,
	});
}
