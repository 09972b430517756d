/**
 * One HTTP exchange with the API through n8n's helper, and the types every caller of the
 * transport shares. Token bookkeeping lives in tokens.ts, the retry loop in request.ts.
 */
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

import type { Expectation } from './answer';
import { checkAnswer } from './answer';
import { boundedExchange, transportLimits } from './bounded';
import type { TransportFailure } from './failure';
import { failureOf } from './failure';
import type { Query } from './query';

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
	/** What a successful answer must hold; a single record unless said otherwise. */
	expect?: Expectation;
	/** Names the record for 403/404 messages, e.g. "Employee 3f2c…". */
	subject?: string;
	itemIndex?: number;
	/**
	 * Epoch ms by which any pause before a retry must be over; a longer one (a Retry-After, a
	 * backoff) gives up with the error at once. A trigger poll sets its next poll's start here.
	 */
	waitUntil?: number;
	/**
	 * Epoch ms by which the request is over, answered or not, retries and their pauses included: a
	 * trigger poll's time budget (n8n abandons a poll that runs past its timeout).
	 */
	deadline?: number;
	/**
	 * A 429 that names no delay: the caller may hold the retry until one of its own requests in
	 * flight has ended (a server limiting how many it takes at once), instead of pausing the whole
	 * run for a backoff. Resolves true when it held it (the retry goes at once, not counted as an
	 * attempt, at most REFUSALS_RETRIED_ON_A_SLOT times); false when nothing else of its was in
	 * flight: the backoff applies.
	 */
	retryOnASlot?: () => Promise<boolean>;
	/**
	 * Called on a successful answer with when the server took and answered it on its own clock
	 * (epoch ms): no earlier than its Date header less the exchange's duration (a monotonic clock,
	 * so n8n's clock stepping changes nothing), no later than the Date header plus its second.
	 * undefined when the answer had no valid Date.
	 */
	onServerTime?: (time: ServerTimeReading | undefined) => void;
}

/**
 * One answer's time on two clocks (epoch ms): the server's Date clock (it took the request no
 * earlier than `atLeast`, answered no later than `atMost`), and n8n's (the request was sent at
 * `sentAt`, its answer came at `receivedAt`). The change feed trusts neither alone (feedClock.ts).
 */
export interface ServerTimeReading {
	atLeast: number;
	atMost: number;
	sentAt: number;
	receivedAt: number;
}

/** A provisioning is two exchanges (begin, refresh), each under its own deadline. */
const PROVISIONING_EXCHANGES = 2;

/** `elapsedMs`: the exchange's duration on a monotonic clock (token requests inside it included). */
export type Outcome = { body: IDataObject; serverDate?: string; elapsedMs?: number; failure?: undefined } | { failure: TransportFailure };

/** The execution's cancel signal, where the context has one (executions and, in n8n 2.x, polls). */
export function cancelSignalOf(context: ApiContext): AbortSignal | undefined {
	const withSignal = context as Partial<Pick<IExecuteFunctions, 'getExecutionCancelSignal'>>;
	return typeof withSignal.getExecutionCancelSignal === 'function' ? withSignal.getExecutionCancelSignal() : undefined;
}

export function tokenOf(credentials: ICredentialDataDecryptedObject): string {
	return String(credentials.accessToken ?? '');
}

/**
 * Calls `onArrival` when n8n merges a provisioned token into `credentials` (n8n-core 2.8 and 2.41
 * both `Object.assign` preAuthentication's result into the object handed over as
 * `credentialsDecrypted` right before they send the request). The returned function turns the
 * property back into plain data. Were n8n ever to copy the object instead, the exchange simply
 * keeps the longer budget that covers the token requests.
 */
function whenTokenArrives(credentials: ICredentialDataDecryptedObject, onArrival: () => void): () => void {
	let token = credentials.accessToken;
	Object.defineProperty(credentials, 'accessToken', {
		configurable: true,
		enumerable: true,
		get: () => token,
		set: (value: ICredentialDataDecryptedObject[string]) => {
			token = value;
			if (tokenOf(credentials) !== '') onArrival();
		},
	});
	return () => Object.defineProperty(credentials, 'accessToken', { configurable: true, enumerable: true, writable: true, value: token });
}

/**
 * One HTTP exchange through n8n's helper, so that pre-authentication (and the write-back of a new
 * token), proxies and n8n's request options apply. The credentials are handed over decrypted
 * (`credentialsDecrypted`): n8n neither reads nor decrypts them again, and a copy whose access
 * token is empty makes n8n's pre-authentication provision a new token before this request, whose
 * result n8n then stores and merges into the copy.
 *
 * Every status comes back as a response (`ignoreHttpStatusErrors`), headers included, so that a
 * 429's Retry-After is always seen and a 401 is handled here: n8n's own "401 → provision → retry
 * once" would send a token the server has just refused once more. The body is streamed and read
 * under the total deadline and size cap (bounded.ts), then checked (answer.ts). When a token must
 * be provisioned first, the request's own deadline starts once the token is in.
 */
export async function send(
	context: ApiContext,
	request: ApiRequest,
	url: string,
	credentials: ICredentialDataDecryptedObject,
): Promise<Outcome> {
	const options: IHttpRequestOptions = {
		method: request.method,
		url,
		json: true,
		timeout: transportLimits.deadlineMs,
		headers: { Accept: 'application/json' },
		encoding: 'stream',
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
	};
	if (request.body !== undefined) options.body = request.body;
	const stored = context.getNode().credentials?.[CREDENTIAL_TYPE];
	const credentialsDecrypted = { id: stored?.id ?? '', name: stored?.name ?? '', type: CREDENTIAL_TYPE, data: credentials };
	const provisioning = tokenOf(credentials) === '';
	let settle = () => {};
	const started = performance.now();
	try {
		const answer = await boundedExchange(async (signal, startOwnDeadline) => {
			options.abortSignal = signal;
			if (provisioning) settle = whenTokenArrives(credentials, startOwnDeadline);
			return (await context.helpers.httpRequestWithAuthentication.call(context, CREDENTIAL_TYPE, options, {
				credentialsDecrypted,
			})) as IN8nHttpFullResponse;
		}, cancelSignalOf(context), provisioning ? PROVISIONING_EXCHANGES : 0, request.deadline);
		const checked = checkAnswer(answer, request.expect ?? 'record');
		return checked.failure ? checked : { ...checked, elapsedMs: performance.now() - started };
	} catch (error) {
		return { failure: failureOf(error) };
	} finally {
		settle();
	}
}

