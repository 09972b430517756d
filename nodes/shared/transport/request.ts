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
import { sleepWithAbort } from 'n8n-workflow';

import { HTTP } from '../apiChoices';
import type { Expectation } from './answer';
import { checkAnswer } from './answer';
import { baseUrlOf } from './baseUrl';
import { boundedExchange, transportLimits } from './bounded';
import { toNodeApiError } from './errors';
import type { TransportFailure } from './failure';
import { failureOf } from './failure';
import type { Query } from './query';
import { withQuery } from './query';
import { redactorOf } from './redact';
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
}

/** A provisioning is two exchanges (begin, refresh), each under its own deadline. */
const PROVISIONING_EXCHANGES = 2;

type Outcome = { body: IDataObject; failure?: undefined } | { failure: TransportFailure };

/** The execution's cancel signal, where the context has one (executions and, in n8n 2.x, polls). */
export function cancelSignalOf(context: ApiContext): AbortSignal | undefined {
	const withSignal = context as Partial<Pick<IExecuteFunctions, 'getExecutionCancelSignal'>>;
	return typeof withSignal.getExecutionCancelSignal === 'function' ? withSignal.getExecutionCancelSignal() : undefined;
}

function tokenOf(credentials: ICredentialDataDecryptedObject): string {
	return String(credentials.accessToken ?? '');
}

/**
 * No token yet, or its stored expiry (decoded from the JWT) has passed: provision before sending.
 * A token this run has just provisioned is sent whatever our clock says (a server whose clock runs
 * behind ours issues tokens that look expired here): only the server's 401 renews it.
 */
function needsNewToken(credentials: ICredentialDataDecryptedObject, run: RunAuth): boolean {
	if (tokenOf(credentials) === '') return true;
	if (run.provisioned.has(digestOf(tokenOf(credentials)))) return false;
	const expiresAt = Date.parse(String(credentials.expiresAt ?? ''));
	return Number.isFinite(expiresAt) && expiresAt <= Date.now();
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
 * under the total deadline and size cap (bounded.ts), then checked (answer.ts).
 */
async function send(
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
	try {
		const answer = await boundedExchange(async (signal) => {
			options.abortSignal = signal;
			return (await context.helpers.httpRequestWithAuthentication.call(context, CREDENTIAL_TYPE, options, {
				credentialsDecrypted,
			})) as IN8nHttpFullResponse;
		}, cancelSignalOf(context), tokenOf(credentials) === '' ? PROVISIONING_EXCHANGES : 0);
		return checkAnswer(answer, request.expect ?? 'record');
	} catch (error) {
		return { failure: failureOf(error) };
	}
}

/**
 * Token renewals in flight in this process, one per credential: the first
 * request that needs a new token provisions it, every other one (of this run or of another
 * execution sharing the credential, e.g. on a queue-mode worker) waits and adopts it. Per process,
 * not per run: 20 executions whose token expires together cost one provisioning, not 20.
 */
const renewals = new Map<string, Promise<ICredentialDataDecryptedObject | undefined>>();

/**
 * The newest token this process obtained, per credential. An execution that read the credential
 * before another one renewed it holds an older token: when the server refuses it, it takes this
 * one rather than provisioning again (several executions, one renewal).
 */
const newestTokens = new Map<string, { accessToken: string; expiresAt: unknown }>();

/** Identifies a credential (n8n's credential, its API and JTI), never by its secrets. */
function credentialKeyOf(context: ApiContext, credentials: ICredentialDataDecryptedObject): string {
	const stored = context.getNode().credentials?.[CREDENTIAL_TYPE];
	return digestOf([stored?.id ?? '', baseUrlOf(credentials), String(credentials.authMode ?? ''), String(credentials.jti ?? '')].join('\n'));
}

/**
 * What one node run has learnt about its credential, shared by its requests (items, pages,
 * concurrent requests): the tokens it provisioned, and a failure that ends the run. Without it a
 * server that refuses every token would cost one provisioning per item.
 */
interface RunAuth {
	/** Digests of the tokens this run provisioned. */
	provisioned: Set<string>;
	/** Those not yet accepted by the server once: a 401 for one of them is a refusal, not an expiry. */
	unproven: Set<string>;
	/** Those the server refused before accepting them once. */
	refusedFresh: Set<string>;
	failedProvisionings: number;
	/** Set once renewing cannot help: every later request of the run fails with it, unsent. */
	stop?: TransportFailure;
	/**
	 * The credential as n8n gave it to this run, read once: n8n 2.8 reads it from its database and
	 * decrypts it on every `getCredentials` call, a few ms per page of a long listing.
	 */
	credentials?: Promise<ICredentialDataDecryptedObject>;
	/** The token a request of this run last held, when it differs from the one read (a renewal). */
	token?: ICredentialDataDecryptedObject;
}

const runs = new WeakMap<object, RunAuth>();

function runAuthOf(context: object): RunAuth {
	let state = runs.get(context);
	if (!state) {
		state = { provisioned: new Set(), unproven: new Set(), refusedFresh: new Set(), failedProvisionings: 0 };
		runs.set(context, state);
	}
	return state;
}

/**
 * A copy of the run's credential for one request (its attempts and renewals change only the copy),
 * holding the newest token a request of this run has used. A failed read is not kept: the next
 * request asks n8n again.
 */
async function credentialsFor(context: ApiContext, run: RunAuth): Promise<ICredentialDataDecryptedObject> {
	if (!run.credentials) {
		const read = context.getCredentials(CREDENTIAL_TYPE);
		run.credentials = read;
		read.catch(() => {
			if (run.credentials === read) run.credentials = undefined;
		});
	}
	return { ...(await run.credentials), ...run.token };
}

function digestOf(token: string): string {
	return createHash('sha256').update(token).digest('hex');
}

const REFUSED_FRESH_MESSAGE =
	'The Personnel Data API refused freshly provisioned access tokens; stopped this run instead of provisioning again for every item. Check that the credential\'s environment or base URL is the API that issues its tokens';

/**
 * What the server said to `token`. A 401 for a token this run provisioned and the server never
 * accepted counts as a refusal, and enough of them end the run; a token that worked and later
 * expires (a long run) is renewed like any other.
 */
function noteAnswer(run: RunAuth, token: string, failure: TransportFailure | undefined): TransportFailure | undefined {
	const digest = digestOf(token);
	if (failure?.status !== 401) {
		if (failure?.status !== undefined || failure === undefined) run.unproven.delete(digest);
		return failure;
	}
	if (!run.unproven.has(digest)) return failure;
	run.refusedFresh.add(digest);
	if (run.refusedFresh.size < HTTP.refusedFreshTokensPerRun) return failure;
	run.stop = { ...failure, provisioningMessage: REFUSED_FRESH_MESSAGE };
	return run.stop;
}

/** Rounds of "send, 401, adopt a token another request renewed" before this request renews itself. */
const MAX_ADOPTIONS = 3;

/**
 * One attempt from the caller's point of view. A token our clock believes valid is sent; if the
 * server refuses it (revoked, or its clock runs ahead), the next send provisions directly: one 401
 * per renewal. A token missing or past its `expiresAt` is renewed before sending: no 401 at all.
 * `credentials` is the caller's object; a renewal replaces its token, so later attempts use it.
 */
async function attemptOnce(
	context: ApiContext,
	request: ApiRequest,
	url: string,
	credentials: ICredentialDataDecryptedObject,
): Promise<Outcome> {
	const run = runAuthOf(context);
	let refused = false;
	let ownRenewals = 0;
	for (let adoptions = 0; ; ) {
		if (run.stop) return { failure: { ...run.stop, runStopped: true } };
		if (!refused && !needsNewToken(credentials, run)) {
			const token = tokenOf(credentials);
			const outcome = await send(context, request, url, credentials);
			const failure = noteAnswer(run, token, outcome.failure);
			if (outcome.failure?.status !== 401) return outcome;
			if (run.stop) return { failure: failure as TransportFailure };
			refused = true;
			continue;
		}
		const credentialKey = credentialKeyOf(context, credentials);
		const newest = newestTokens.get(credentialKey);
		if (newest && newest.accessToken !== tokenOf(credentials) && adoptions < MAX_ADOPTIONS) {
			adoptions++;
			Object.assign(credentials, newest);
			refused = false;
			if (!needsNewToken(credentials, run)) continue;
		}
		const pending = renewals.get(credentialKey);
		if (pending && adoptions < MAX_ADOPTIONS) {
			adoptions++;
			const renewed = await pending;
			if (renewed && tokenOf(renewed) !== tokenOf(credentials)) {
				Object.assign(credentials, { accessToken: renewed.accessToken, expiresAt: renewed.expiresAt });
				refused = false;
				continue;
			}
		}
		const outcome = await renewAndSend(context, request, url, credentials, run, credentialKey);
		// A fresh token refused: renew again, until the run's bound says the server never accepts one.
		if (outcome.failure?.status !== 401 || run.stop || ++ownRenewals >= HTTP.refusedFreshTokensPerRun) return outcome;
		refused = true;
	}
}

/** Sends with the token cleared, so that n8n provisions (and stores) a new one first. */
async function renewAndSend(
	context: ApiContext,
	request: ApiRequest,
	url: string,
	credentials: ICredentialDataDecryptedObject,
	run: RunAuth,
	credentialKey: string,
): Promise<Outcome> {
	const copy: ICredentialDataDecryptedObject = { ...credentials, accessToken: '', expiresAt: '' };
	const sending = send(context, request, url, copy);
	const renewal = sending.then(() => (tokenOf(copy) === '' ? undefined : copy));
	renewals.set(credentialKey, renewal);
	let outcome: Outcome;
	try {
		outcome = await sending;
	} finally {
		if (renewals.get(credentialKey) === renewal) renewals.delete(credentialKey);
	}
	const fresh = tokenOf(copy);
	if (fresh !== '') {
		Object.assign(credentials, { accessToken: fresh, expiresAt: copy.expiresAt });
		newestTokens.set(credentialKey, { accessToken: fresh, expiresAt: copy.expiresAt });
		run.provisioned.add(digestOf(fresh));
		run.unproven.add(digestOf(fresh));
	}
	const failure = outcome.failure;
	if (failure?.provisioningMessage !== undefined) {
		run.failedProvisionings++;
		// A refused JTI or signature cannot succeed by repeating, for this item or the next.
		if (!isRetryable(failure, false) || run.failedProvisionings >= HTTP.failedProvisioningsPerRun) run.stop = failure;
	} else if (fresh !== '') {
		const noted = noteAnswer(run, fresh, failure);
		if (noted) return { failure: noted };
	}
	return outcome;
}

/** The only way node code talks to the API: authentication, retries, checks and error mapping. */
export async function apiRequest<T = IDataObject>(this: ApiContext, request: ApiRequest): Promise<T> {
	// Every attempt and renewal below works on this request's copy of the run's credential.
	const run = runAuthOf(this);
	const credentials = await credentialsFor(this, run);
	const storedToken = credentials.accessToken;
	const url = `${baseUrlOf(credentials)}${withQuery(request.path, request.query)}`;
	const idempotent = isIdempotent(request.method, request.idempotent);
	const gate = gateFor(this);
	const cancel = cancelSignalOf(this);
	const fail = (failure: TransportFailure, attempts: number) =>
		toNodeApiError(this.getNode(), failure, {
			method: request.method,
			path: request.path,
			attempts,
			subject: request.subject,
			itemIndex: request.itemIndex,
			redact: redactorOf([credentials.refreshToken, credentials.legacyToken, credentials.accessToken, storedToken]),
		});

	let failure: TransportFailure | undefined;
	let attempt = 0;
	while (attempt < HTTP.maxAttempts) {
		attempt++;
		try {
			await gate.ready(cancel);
		} catch {
			throw fail({ stopped: 'cancelled', message: 'the execution was cancelled' }, attempt);
		}
		const outcome = await attemptOnce(this, request, url, credentials);
		if (credentials.accessToken !== storedToken) run.token = { accessToken: credentials.accessToken, expiresAt: credentials.expiresAt };
		if (!outcome.failure) return outcome.body as T;
		failure = outcome.failure;
		if (failure.runStopped || !isRetryable(failure, idempotent) || attempt >= HTTP.maxAttempts) break;
		const delay = retryDelayMs(failure, attempt);
		if (delay > HTTP.retryAfterMaxMs) break;
		if (request.waitUntil !== undefined && Date.now() + delay > request.waitUntil) break;
		if (failure.status === 429) gate.pauseFor(delay);
		try {
			await sleepWithAbort(delay, cancel);
		} catch {
			throw fail({ stopped: 'cancelled', message: 'the execution was cancelled' }, attempt);
		}
	}
	throw fail(failure as TransportFailure, attempt);
}
