import { createHash } from 'node:crypto';
import type { IDataObject, IHttpRequestHelper, IN8nHttpFullResponse } from 'n8n-workflow';

import { PROVISIONING } from '../apiChoices';
import { checkAnswer } from './answer';
import type { RawAnswer } from './bounded';
import { boundedExchange, ExchangeStopped, transportLimits } from './bounded';
import { apiErrorBody } from './failure';
import type { ProvisioningStep } from './provisioningError';
import { ProvisioningError, UNREACHABLE } from './provisioningError';
import type { Redact } from './redact';
import { redactorOf } from './redact';

export interface ProvisionedToken {
	accessToken: string;
	/** ISO date-time decoded from the JWT's `exp`, kept for diagnostics; empty when absent. */
	expiresAt: string;
}

/** The spec's signature: lower-case hex SHA-256 of `<salt>:<refresh_token>`. */
export function provisioningSignature(salt: string, refreshToken: string): string {
	return createHash('sha256').update(`${salt}:${refreshToken}`, 'utf8').digest('hex');
}

/** Reads `exp` without verifying the signature: the server verifies, the client only plans. */
export function jwtExpiry(token: string): string {
	const payload = token.split('.')[1];
	if (!payload) return '';
	try {
		const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown };
		return typeof claims.exp === 'number' ? new Date(claims.exp * 1000).toISOString() : '';
	} catch {
		return '';
	}
}

function pick(body: unknown, paths: ReadonlyArray<readonly string[]>): string | undefined {
	for (const path of paths) {
		let value: unknown = body;
		for (const key of path) {
			value = value !== null && typeof value === 'object' ? (value as IDataObject)[key] : undefined;
		}
		if (typeof value === 'string' && value !== '') return value;
	}
	return undefined;
}

/** 429 and 5xx of a provisioning call are worth another try; other statuses are not. */
function isTransient(status: number | undefined): boolean {
	return status !== undefined && (status === 429 || status >= 500);
}

/**
 * One provisioning call within the transport's deadline and size cap. Only the status, the API's
 * reasons (redacted) or what came instead of JSON reach the error: the request holds the JTI and
 * the signature, the response the salt or the token.
 */
async function postJson(
	helpers: IHttpRequestHelper['helpers'],
	baseUrl: string,
	path: string,
	body: IDataObject,
	step: ProvisioningStep,
	redact: Redact,
): Promise<IDataObject> {
	let unanswered: ProvisioningError | undefined;
	const answer: RawAnswer | undefined = await boundedExchange(
		async (signal) =>
			(await helpers.httpRequest({
				method: 'POST',
				url: `${baseUrl}${path}`,
				body,
				json: true,
				timeout: transportLimits.deadlineMs,
				encoding: 'stream',
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
				abortSignal: signal,
			})) as IN8nHttpFullResponse,
	).catch((error: unknown) => {
		const code = (error as { code?: unknown }).code;
		unanswered =
			error instanceof ExchangeStopped
				? new ProvisioningError(step, error.message, error.trickled ? 'tooSlow' : error.reason === 'deadline' ? 'transient' : 'notThisApi')
				: typeof code === 'string' && code in UNREACHABLE
					? new ProvisioningError(step, code, 'unreachable')
					: new ProvisioningError(step, typeof code === 'string' && /^[A-Z][A-Z_]+$/.test(code) ? code : 'NO_RESPONSE', 'transient');
		return undefined;
	});
	if (answer === undefined) throw unanswered as ProvisioningError;
	const checked = checkAnswer(answer, 'record');
	if (checked.failure === undefined) return checked.body;
	const { status, badAnswer } = checked.failure;
	if (badAnswer !== undefined) throw new ProvisioningError(step, redact(`HTTP ${status}, ${badAnswer}`), 'notThisApi');
	const apiErrors = apiErrorBody(checked.failure.body).errors;
	const reasons = (apiErrors ?? [])
		.map((inner) => inner.reason)
		.filter((reason): reason is string => typeof reason === 'string')
		.map(redact);
	// A refusal of the JTI or token comes as the API's error object; a 4xx without one (a web
	// server's 404 page, a proxy's 405) comes from something that is not the API.
	const kind = isTransient(status) ? 'transient' : apiErrors === undefined ? 'notThisApi' : 'refused';
	throw new ProvisioningError(step, [`HTTP ${status}`, ...reasons].join(', '), kind);
}

/** The spec's provisioning flow: begin with the JTI, sign the salt, exchange for an access token. */
export async function provisionAccessToken(
	helpers: IHttpRequestHelper['helpers'],
	baseUrl: string,
	jti: string,
	refreshToken: string,
	/** The credential's other tokens (storedSecretsOf), which a token request's error may echo too. */
	otherSecrets: unknown[] = [],
): Promise<ProvisionedToken> {
	let redact = redactorOf([refreshToken, ...otherSecrets]);
	const begun = await postJson(helpers, baseUrl, PROVISIONING.beginPath, { [PROVISIONING.jtiField]: jti }, 'begin', redact);
	const salt = pick(begun, PROVISIONING.saltPaths);
	if (!salt) throw new ProvisioningError('begin', 'the response holds no salt', 'notThisApi');

	const signature = provisioningSignature(salt, refreshToken);
	redact = redactorOf([refreshToken, ...otherSecrets, salt, signature]);
	const refreshed = await postJson(
		helpers,
		baseUrl,
		PROVISIONING.refreshPath,
		{ [PROVISIONING.jtiField]: jti, [PROVISIONING.signatureField]: signature },
		'refresh',
		redact,
	);
	const accessToken = pick(refreshed, PROVISIONING.accessTokenPaths);
	if (!accessToken) throw new ProvisioningError('refresh', 'the response holds no access token', 'notThisApi');
	return { accessToken, expiresAt: jwtExpiry(accessToken) };
}
