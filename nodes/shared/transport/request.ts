import type { IDataObject } from 'n8n-workflow';
import { sleepWithAbort } from 'n8n-workflow';

import { HTTP } from '../apiChoices';
import { baseUrlOf } from './baseUrl';
import { toNodeApiError } from './errors';
import type { ApiContext, ApiRequest, ServerTimeReading } from './exchange';
import { cancelSignalOf } from './exchange';
import type { TransportFailure } from './failure';
import { withQuery } from './query';
import { redactorOf, storedSecretsOf } from './redact';
import { gateFor, NotSentAfterFailure } from './rateGate';
import { credentialsOfRun, keepRenewedToken } from './runCredentials';
import { isIdempotent, isRetryable, namesDelay, REFUSALS_RETRIED_ON_A_SLOT, retryDelayMs } from './retryPolicy';
import { attemptOnce } from './tokens';

export { cancelSignalOf, CREDENTIAL_TYPE } from './exchange';
export type { ApiContext, ApiRequest } from './exchange';

/** The Date header (RFC 9110: the answer's time, to the second) less the exchange's duration, and plus its second. */
function serverTimeOf(date: string | undefined, elapsedMs: number | undefined): ServerTimeReading | undefined {
	if (date === undefined || elapsedMs === undefined) return undefined;
	const at = Date.parse(date);
	if (!Number.isFinite(at)) return undefined;
	// n8n's own clock, monotonic within this process (a step of the system clock after n8n started does not move it).
	const receivedAt = performance.timeOrigin + performance.now();
	return { atLeast: at - Math.ceil(elapsedMs), atMost: at + 1000, sentAt: receivedAt - elapsedMs, receivedAt };
}

/** The only way node code talks to the API: authentication, retries, checks and error mapping. */
export async function apiRequest<T = IDataObject>(this: ApiContext, request: ApiRequest): Promise<T> {
	// Every attempt and renewal below works on this request's copy of the run's credential.
	const credentials = await credentialsOfRun(this);
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
			redact: redactorOf([...storedSecretsOf(credentials), storedToken]),
		});

	let failure: TransportFailure | undefined;
	let attempt = 0;
	let slotRetries = 0;
	const waitUntil = Math.min(request.waitUntil ?? Infinity, request.deadline ?? Infinity);
	while (attempt < HTTP.maxAttempts) {
		if (request.deadline !== undefined && Date.now() >= request.deadline) {
			throw fail(failure ?? { stopped: 'deadline', message: 'no time was left in the time budget of this poll' }, attempt);
		}
		attempt++;
		try {
			await gate.ready(cancel);
		} catch {
			throw fail({ stopped: 'cancelled', message: 'the execution was cancelled' }, attempt);
		}
		if (request.method !== 'GET' && !gate.mayWrite(request.itemIndex)) {
			throw new NotSentAfterFailure(`${request.method} ${request.path} was not sent: an earlier item failed`);
		}
		const tokenBefore = credentials.accessToken;
		const startedAt = Date.now();
		const outcome = await attemptOnce(this, request, url, credentials);
		gate.report({ status: outcome.failure ? outcome.failure.status : 200, startedAt, ms: Date.now() - startedAt });
		keepRenewedToken(this, credentials, tokenBefore);
		if (!outcome.failure) {
			request.onServerTime?.(serverTimeOf(outcome.serverDate, outcome.elapsedMs));
			return outcome.body as T;
		}
		failure = outcome.failure;
		if (failure.runStopped || !isRetryable(failure, idempotent) || attempt >= HTTP.maxAttempts) break;
		if (failure.status === 429 && slotRetries < REFUSALS_RETRIED_ON_A_SLOT && !namesDelay(failure) && request.retryOnASlot !== undefined && (await request.retryOnASlot())) {
			slotRetries++;
			attempt--;
			continue;
		}
		const delay = retryDelayMs(failure, attempt);
		const wait = namesDelay(failure) ? `the server asked to wait ${secondsOf(delay)} before a retry (Retry-After)` : `the next retry was due in ${secondsOf(delay)}`;
		if (delay > HTTP.retryAfterMaxMs) {
			failure = { ...failure, notWaited: `${wait}, longer than the ${secondsOf(HTTP.retryAfterMaxMs)} this node waits: try again later` };
			break;
		}
		if (Date.now() + delay > waitUntil) {
			failure = { ...failure, notWaited: `${wait}, past the time left for this request` };
			break;
		}
		if (failure.status === 429) gate.pauseFor(delay);
		try {
			await sleepWithAbort(delay, cancel);
		} catch {
			throw fail({ stopped: 'cancelled', message: 'the execution was cancelled' }, attempt);
		}
	}
	throw fail(failure as TransportFailure, attempt);
}

/** A wait as the user reads it: "90 s", "2 min 30 s". */
function secondsOf(ms: number): string {
	const seconds = Math.ceil(ms / 1000);
	if (seconds < 120) return `${seconds} s`;
	const minutes = Math.floor(seconds / 60);
	return seconds % 60 ? `${minutes} min ${seconds % 60} s` : `${minutes} min`;
}
