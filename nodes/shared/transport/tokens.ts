/**
 * The access token's life across requests, runs and executions of this process: when to
 * provision, which renewal to wait for, which newer token to adopt, and when a run stops because
 * the server refuses every fresh token. One exchange is exchange.ts; the retry loop request.ts.
 */
import { createHash } from 'node:crypto';
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { HTTP } from '../apiChoices';
import { baseUrlOf } from './baseUrl';
import type { ApiContext, ApiRequest, Outcome } from './exchange';
import { CREDENTIAL_TYPE, send, tokenOf } from './exchange';
import type { TransportFailure } from './failure';
import { isRetryable } from './retryPolicy';

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

function digestOf(token: string): string {
	return createHash('sha256').update(token).digest('hex');
}

const REFUSED_FRESH_MESSAGE =
	'The Personnel Data API refused freshly provisioned access tokens; stopped this run instead of provisioning again for every item. Check that the credential\'s Base URL is the API that issues its tokens';

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
export async function attemptOnce(
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

