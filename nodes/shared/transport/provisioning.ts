import { createHash } from 'node:crypto';
import type { IDataObject, IHttpRequestHelper } from 'n8n-workflow';

import { PROVISIONING } from '../apiChoices';

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

/**
 * Errors from `helpers.httpRequest` carry the request (JTI, signature) and sometimes the response;
 * only the status and the API's reasons are kept so that no secret reaches a message or a log.
 */
export class ProvisioningError extends Error {
	constructor(step: string, detail: string) {
		super(
			`Personnel Data API credential: ${step} failed (${detail}). ` +
				'Check the credential\'s environment, JTI and refresh token, or create a new refresh token in the back office.',
		);
		this.name = 'ProvisioningError';
	}
}

function describeFailure(error: unknown): string {
	const failure = error as {
		response?: { status?: number; data?: { errors?: Array<{ reason?: string }> } };
		code?: string;
	};
	const status = failure.response?.status;
	const reasons = (failure.response?.data?.errors ?? [])
		.map((inner) => inner.reason)
		.filter((reason): reason is string => typeof reason === 'string');
	if (status !== undefined) return [`HTTP ${status}`, ...reasons].join(', ');
	return failure.code ?? 'no response from the server';
}

async function postJson(
	helpers: IHttpRequestHelper['helpers'],
	baseUrl: string,
	path: string,
	body: IDataObject,
	step: string,
): Promise<unknown> {
	let failure: string | undefined;
	const response: unknown = await helpers
		.httpRequest({ method: 'POST', url: `${baseUrl}${path}`, body, json: true })
		.catch((error: unknown) => {
			failure = describeFailure(error);
		});
	if (failure !== undefined) throw new ProvisioningError(step, failure);
	return response;
}

/** The spec's provisioning flow: begin with the JTI, sign the salt, exchange for an access token. */
export async function provisionAccessToken(
	helpers: IHttpRequestHelper['helpers'],
	baseUrl: string,
	jti: string,
	refreshToken: string,
): Promise<ProvisionedToken> {
	const begun = await postJson(helpers, baseUrl, PROVISIONING.beginPath, { [PROVISIONING.jtiField]: jti }, 'begin');
	const salt = pick(begun, PROVISIONING.saltPaths);
	if (!salt) throw new ProvisioningError('begin', 'the response holds no salt');

	const refreshed = await postJson(
		helpers,
		baseUrl,
		PROVISIONING.refreshPath,
		{
			[PROVISIONING.jtiField]: jti,
			[PROVISIONING.signatureField]: provisioningSignature(salt, refreshToken),
		},
		'refresh',
	);
	const accessToken = pick(refreshed, PROVISIONING.accessTokenPaths);
	if (!accessToken) throw new ProvisioningError('refresh', 'the response holds no access token');
	return { accessToken, expiresAt: jwtExpiry(accessToken) };
}
