import type { IDataObject } from 'n8n-workflow';

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
}

interface AxiosLike {
	name?: string;
	response?: { status?: number; headers?: Record<string, unknown>; data?: unknown };
	code?: string;
	message?: string;
	cause?: unknown;
}

/** n8n wraps the HTTP client's error in a NodeApiError whose `cause` is the original. */
export function failureOf(error: unknown): TransportFailure {
	let current = error as AxiosLike | undefined;
	let provisioningMessage: string | undefined;
	for (let depth = 0; depth < 4 && current; depth++) {
		if (current.name === 'ProvisioningError') provisioningMessage = current.message;
		if (current.response || !current.cause) break;
		current = current.cause as AxiosLike;
	}
	const response = current?.response;
	const retryAfter = response?.headers?.['retry-after'];
	return {
		status: response?.status,
		retryAfter: retryAfter === undefined ? undefined : String(retryAfter),
		body: response?.data,
		code: current?.code ?? (error as AxiosLike | undefined)?.code,
		message: current?.message ?? String(error),
		provisioningMessage,
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
