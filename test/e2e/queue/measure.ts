/**
 * What the queue-mode suites measure on the simulator's side: credentials pointing at it, and
 * token provisioning per token lifetime from its request log.
 */
import { parseTimestampMicros } from '../../../scripts/simulator/clock';
import type { RequestLogEntry } from '../../../scripts/simulator/requestLog';
import type { RunningSimulator } from '../../../scripts/simulator/server';
import type { CredentialFile } from '../../../scripts/n8n/driver';
import type { CredentialRef } from '../../../scripts/n8n/driver/workflowBuilders';

/** A provisioned-refresh-token credential of the simulator's admin role. */
export function credentialFile(ref: CredentialRef, simulator: RunningSimulator): CredentialFile {
	const { jti, refreshToken } = simulator.credentials.admin;
	return {
		...ref,
		type: 'personnelDataApi',
		data: { baseUrl: simulator.baseUrl, authMode: 'refreshToken', jti, refreshToken },
	};
}

export interface ProvisioningReport {
	tokenTtlSeconds: number;
	/** Seconds from the first to the last request. */
	spanSeconds: number;
	apiRequests: number;
	/** Completed provisionings (refresh calls answered 200), and begin calls. */
	provisionings: number;
	begins: number;
	/** 401 answers to API requests (provisioning calls excluded). */
	unauthorized: number;
	/**
	 * The most provisionings (and 401s) within any window as long as the shortest token life:
	 * a token with whole-second expiry lives between TTL-1 and TTL seconds, so one process that
	 * renews only when its token has expired renews at most once in such a window.
	 */
	maxProvisioningsPerLifetime: number;
	maxUnauthorizedPerLifetime: number;
	/**
	 * 401s for a token that arrived more than REFUSAL_LEARNT_MS after the first 401 for that token
	 * was answered: a process that sends a token it was told is refused (a 401 storm). A 401 for a
	 * request already on its way when the token expired is not one: with a 700 ms server and
	 * 1–2 s tokens many requests expire in flight (every one the node had in flight, Return All's
	 * ranges included), each refused once and sent again with the renewed token.
	 */
	refusedAfterLearnt: number;
	/** 401s whose token the simulator could name (all of them, unless a token was malformed). */
	refusedNamed: number;
	/** Requests served per issued access token (min / max over the tokens used). */
	requestsPerToken: { tokens: number; min: number; max: number };
}

function maxInWindow(times: readonly number[], windowMicros: number): number {
	const sorted = [...times].sort((a, b) => a - b);
	let best = 0;
	let start = 0;
	for (let end = 0; end < sorted.length; end++) {
		while (sorted[end] - sorted[start] >= windowMicros) start++;
		best = Math.max(best, end - start + 1);
	}
	return best;
}

/** How long a process may take to act on a 401 (its answer read, the event loop busy): 1 s. */
const REFUSAL_LEARNT_MS = 1000;

function refusedAfterLearnt(unauthorized: readonly RequestLogEntry[], at: (r: RequestLogEntry) => number): number {
	const firstAnswer = new Map<string, number>();
	for (const r of unauthorized) {
		if (!r.refusedTokenId) continue;
		const answered = at(r) + r.durationMs * 1000;
		firstAnswer.set(r.refusedTokenId, Math.min(firstAnswer.get(r.refusedTokenId) ?? Infinity, answered));
	}
	return unauthorized.filter((r) => r.refusedTokenId !== undefined && at(r) > (firstAnswer.get(r.refusedTokenId) ?? Infinity) + REFUSAL_LEARNT_MS * 1000).length;
}

export function provisioningReport(requests: readonly RequestLogEntry[], tokenTtlSeconds: number): ProvisioningReport {
	const at = (r: RequestLogEntry) => parseTimestampMicros(r.at);
	const refreshes = requests.filter((r) => r.routeKind === 'provisioning.refresh' && r.status === 200);
	const api = requests.filter((r) => !r.path.startsWith('/provisioning') && !r.path.startsWith('/__sim'));
	const unauthorized = api.filter((r) => r.status === 401);
	const window = Math.max(1, tokenTtlSeconds - 1) * 1_000_000;
	const perToken = new Map<string, number>();
	for (const r of api) if (r.tokenId) perToken.set(r.tokenId, (perToken.get(r.tokenId) ?? 0) + 1);
	const counts = [...perToken.values()];
	const times = requests.map(at);
	return {
		tokenTtlSeconds,
		spanSeconds: times.length ? Math.round((Math.max(...times) - Math.min(...times)) / 10_000) / 100 : 0,
		apiRequests: api.length,
		provisionings: refreshes.length,
		begins: requests.filter((r) => r.routeKind === 'provisioning.begin').length,
		unauthorized: unauthorized.length,
		maxProvisioningsPerLifetime: maxInWindow(refreshes.map(at), window),
		maxUnauthorizedPerLifetime: maxInWindow(unauthorized.map(at), window),
		refusedAfterLearnt: refusedAfterLearnt(unauthorized, at),
		refusedNamed: unauthorized.filter((r) => r.refusedTokenId !== undefined).length,
		requestsPerToken: { tokens: counts.length, min: counts.length ? Math.min(...counts) : 0, max: counts.length ? Math.max(...counts) : 0 },
	};
}
