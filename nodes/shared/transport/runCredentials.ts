import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import type { ApiContext } from './exchange';
import { CREDENTIAL_TYPE } from './exchange';

/**
 * The credential of one node run, read once: n8n 2.8 reads it from its database and decrypts it on
 * every `getCredentials` call, a few ms per page of a long listing (bench: Return All on 2.8.4).
 */
interface RunCredentials {
	read?: Promise<ICredentialDataDecryptedObject>;
	/** The token a request of this run last held, when a renewal replaced the one read. */
	token?: ICredentialDataDecryptedObject;
}

const runs = new WeakMap<object, RunCredentials>();

function runOf(context: object): RunCredentials {
	let run = runs.get(context);
	if (!run) {
		run = {};
		runs.set(context, run);
	}
	return run;
}

/**
 * A copy of the run's credential for one request (its attempts and renewals change only the copy),
 * with the newest token a request of this run has used. A failed read is not kept: the next request
 * asks n8n again.
 */
export async function credentialsOfRun(context: ApiContext): Promise<ICredentialDataDecryptedObject> {
	const run = runOf(context);
	if (!run.read) {
		const read = context.getCredentials(CREDENTIAL_TYPE);
		run.read = read;
		read.catch(() => {
			if (run.read === read) run.read = undefined;
		});
	}
	return { ...(await run.read), ...run.token };
}

/** After an attempt: a token renewed during it is the one the run's later requests start from. */
export function keepRenewedToken(context: ApiContext, credentials: ICredentialDataDecryptedObject, tokenBefore: unknown): void {
	if (credentials.accessToken === tokenBefore) return;
	runOf(context).token = { accessToken: credentials.accessToken, expiresAt: credentials.expiresAt };
}
