import { createHash } from 'node:crypto';
import type { ICredentialDataDecryptedObject, INode } from 'n8n-workflow';

import { CREDENTIAL_TYPE } from '../../../shared/transport';

/** How long a server's 400 to a batched read keeps the credential's reads one per item. */
export const REFUSAL_MEMORY_MS = 60 * 60 * 1000;
/** Credentials remembered at most; the oldest is forgotten first. */
export const REFUSAL_MEMORY_MAX = 200;

/**
 * Credentials whose server answered 400 to a batched read (`filters[id][op]=in`), with the time
 * until which their reads go one per item without trying again. Module-level: it outlives a run, so
 * a workflow that runs every minute does not send a refused request every time.
 */
const refusedUntil = new Map<string, number>();

/** The credential (its id in n8n, where it has one) and the server it talks to; a digest, so no address or id is kept in clear. */
export function credentialKey(node: INode, credentials: ICredentialDataDecryptedObject): string {
	const id = node.credentials?.[CREDENTIAL_TYPE]?.id ?? '';
	const server = `${String(credentials.environment ?? '')}|${String(credentials.baseUrl ?? '')}`;
	return createHash('sha256').update(`${id}\n${server}`).digest('base64');
}

export function isRefused(key: string, now = Date.now()): boolean {
	const until = refusedUntil.get(key);
	if (until === undefined) return false;
	if (until > now) return true;
	refusedUntil.delete(key);
	return false;
}

export function rememberRefusal(key: string, now = Date.now()): void {
	refusedUntil.delete(key);
	refusedUntil.set(key, now + REFUSAL_MEMORY_MS);
	// A Map iterates in insertion order: the first key is the oldest refusal.
	while (refusedUntil.size > REFUSAL_MEMORY_MAX) refusedUntil.delete(refusedUntil.keys().next().value as string);
}

/** For tests: forget every refusal. */
export function forgetRefusals(): void {
	refusedUntil.clear();
}
