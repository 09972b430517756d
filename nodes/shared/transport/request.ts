import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IPollFunctions,
} from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { HTTP } from '../apiChoices';
import { baseUrlOf } from './baseUrl';
import { toNodeApiError } from './errors';
import type { TransportFailure } from './failure';
import { failureOf } from './failure';
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
}

async function sendOnce(context: ApiContext, request: ApiRequest, url: string): Promise<unknown> {
	const options: IHttpRequestOptions = {
		method: request.method,
		url,
		json: true,
		timeout: HTTP.timeoutMs,
		headers: { Accept: 'application/json' },
	};
	if (request.body !== undefined) options.body = request.body;
	// Through n8n's helper so that pre-authentication, the retry after a 401 and proxies apply.
	return await context.helpers.httpRequestWithAuthentication.call(context, CREDENTIAL_TYPE, options);
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
		try {
			return (await sendOnce(this, request, url)) as T;
		} catch (error) {
			failure = failureOf(error);
			if (!isRetryable(failure, idempotent) || attempt >= HTTP.maxAttempts) break;
			const delay = retryDelayMs(failure, attempt);
			if (delay > HTTP.retryAfterMaxMs) break;
			if (failure.status === 429) gate.pauseFor(delay);
			await sleep(delay);
		}
	}
	throw toNodeApiError(this.getNode(), failure as TransportFailure, {
		method: request.method,
		path: request.path,
		attempts: attempt,
		subject: request.subject,
		itemIndex: request.itemIndex,
	});
}
