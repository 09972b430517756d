import { STATUS_CODES } from 'node:http';

/** One inner error of the API's error body. */
export interface InnerError {
	domain: string;
	reason: string;
	message: string;
}

/** The error body that the API returns with every error status. */
export interface ErrorBody {
	code: number;
	message: string;
	errors: InnerError[];
}

/** Thrown anywhere in request handling; turned into the error body by the server. */
export class ApiError extends Error {
	constructor(
		readonly status: number,
		readonly errors: InnerError[],
		readonly headers: Record<string, string> = {},
	) {
		super(errors[0]?.message ?? statusText(status));
	}

	body(): ErrorBody {
		return errorBody(this.status, this.errors);
	}
}

export function statusText(status: number): string {
	return STATUS_CODES[status] ?? 'Error';
}

export function errorBody(status: number, errors: InnerError[] = []): ErrorBody {
	return { code: status, message: statusText(status), errors };
}

export function badRequest(domain: string, reason: string, message: string): ApiError {
	return new ApiError(400, [{ domain, reason, message }]);
}

export function unauthorized(reason: string, message: string): ApiError {
	return new ApiError(401, [{ domain: 'auth', reason, message }]);
}

export function forbidden(message: string): ApiError {
	return new ApiError(403, [{ domain: 'permissions', reason: 'forbidden', message }]);
}

export function notFound(domain: string, message: string): ApiError {
	return new ApiError(404, [{ domain, reason: 'not_found', message }]);
}
