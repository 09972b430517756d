import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { backoffTiming } from '../../nodes/shared/transport/retryPolicy';
import type { TestBed } from '../nodes/setup';
import { startTestBed } from '../nodes/setup';
import type { RequestLogEntry } from '../simulator/requestLog';
import type { StartOptions } from '../simulator/server';

export const CREDENTIAL = 'personnelDataApi';

/**
 * A test bed whose simulator clock starts at the real now, so that the `expiresAt` the transport
 * reads from a JWT and the real clock agree (as with a real server). Faults are off.
 */
export async function startBed(options: StartOptions = {}): Promise<TestBed> {
	return await startTestBed(options);
}

/**
 * Exhausting 5 attempts with production backoff (0.5 s doubling) takes seconds; the tests shrink
 * the backoff through the transport's explicit hook. Retry-After is still honoured as sent.
 */
export function fastBackoff(): void {
	const saved = { ...backoffTiming };
	beforeAll(() => {
		backoffTiming.baseMs = 10;
		backoffTiming.maxMs = 40;
	});
	afterAll(() => Object.assign(backoffTiming, saved));
}

export const getManyEmployees = (extra: INodeParameters = {}): INodeParameters => ({
	resource: 'employee',
	operation: 'getMany',
	returnAll: false,
	limit: 3,
	...extra,
});

export const getEmployee = (id: string, options: INodeParameters = {}): INodeParameters => ({
	resource: 'employee',
	operation: 'get',
	id: { __rl: true, mode: 'id', value: id },
	options,
});

export function apiRequests(bed: TestBed): RequestLogEntry[] {
	return bed.simulator.sim.requests().filter((entry) => !entry.path.startsWith('/provisioning'));
}

/** Provisioning calls, faulted ones included (the simulator's stats count routed calls only). */
export function provisioningCalls(bed: TestBed): number {
	return bed.simulator.sim.requests().filter((entry) => entry.path.startsWith('/provisioning')).length;
}

export function jsonOf(items: INodeExecutionData[][] | undefined): Array<Record<string, unknown>> {
	return (items?.[0] ?? []).map((item) => item.json);
}

interface SaltStore {
	salts: Map<string, Array<{ value: string }>>;
	usedSalts: Map<string, Set<string>>;
}

/**
 * Every secret the bed has seen: refresh and legacy tokens of both roles, every access token n8n
 * stored, every signature sent (from the request log) and every salt handed out (read from the
 * simulator's private salt store: the salts are not in the request log, which records requests only).
 */
export function secretsOf(bed: TestBed): string[] {
	const { admin, limited } = bed.simulator.credentials;
	const secrets = [admin.refreshToken, admin.legacyToken, limited.refreshToken, limited.legacyToken];
	for (const update of bed.runtime.credentialUpdates(CREDENTIAL)) secrets.push(String(update.accessToken ?? ''));
	const stored = bed.runtime.storedCredentials(CREDENTIAL);
	if (stored) secrets.push(String(stored.accessToken ?? ''), String(stored.refreshToken ?? ''));
	for (const entry of bed.simulator.sim.requests()) {
		const body = entry.body as { signature?: unknown } | undefined;
		if (typeof body?.signature === 'string') secrets.push(body.signature);
	}
	const store = bed.simulator.sim.auth as unknown as SaltStore;
	for (const live of store.salts.values()) for (const salt of live) secrets.push(salt.value);
	for (const used of store.usedSalts.values()) for (const salt of used) secrets.push(salt);
	return secrets.filter((secret) => secret !== '');
}
