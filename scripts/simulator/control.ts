import { badRequest } from './errors';
import type { FaultConfig, QueuedFault } from './faults';
import { ok, type ApiRequest, type Reply, type Route } from './routing';
import type { Simulator, SimulatorConfig } from './simulator';
import type { ServerVariation } from './variations';
import { isJsonObject, isResourceName, type Json, type JsonObject, type ResourceName, type Role, type SeedSizes } from './types';

/** Control routes under /__sim: no auth, no faults, not in the request log. */

function bodyObject(req: ApiRequest): JsonObject {
	if (req.body === undefined) return {};
	if (!isJsonObject(req.body)) throw badRequest('control', 'invalid_body', 'body: expected a JSON object');
	return req.body;
}

function optionalNumber(body: JsonObject, key: string): number | undefined {
	const value = body[key];
	if (value === undefined || value === null) return undefined;
	if (typeof value !== 'number') throw badRequest('control', 'invalid_value', `${key}: expected a number`);
	return value;
}

function requiredNumber(body: JsonObject, key: string): number {
	const value = optionalNumber(body, key);
	if (value === undefined) throw badRequest('control', 'missing_field', `${key}: is required`);
	return value;
}

function optionalString(body: JsonObject, key: string): string | undefined {
	const value = body[key];
	if (value === undefined || value === null) return undefined;
	if (typeof value !== 'string') throw badRequest('control', 'invalid_value', `${key}: expected a string`);
	return value;
}

function optionalBoolean(body: JsonObject, key: string): boolean | undefined {
	const value = body[key];
	if (value === undefined || value === null) return undefined;
	if (typeof value !== 'boolean') throw badRequest('control', 'invalid_value', `${key}: expected a boolean`);
	return value;
}

function optionalObject(body: JsonObject, key: string): JsonObject | undefined {
	const value = body[key];
	if (value === undefined || value === null) return undefined;
	if (!isJsonObject(value)) throw badRequest('control', 'invalid_value', `${key}: expected an object`);
	return value;
}

function stringList(value: Json | undefined, key: string): string[] | undefined {
	if (value === undefined || value === null) return undefined;
	if (!Array.isArray(value) || !value.every((v): v is string => typeof v === 'string')) {
		throw badRequest('control', 'invalid_value', `${key}: expected a list of strings`);
	}
	return value;
}

function resourceParam(params: Record<string, string>): ResourceName {
	const name = params.resource;
	if (!isResourceName(name)) throw badRequest('control', 'unknown_resource', `resource: unknown "${name}"`);
	return name;
}

function numberRecord(value: JsonObject | undefined): Record<string, number> | undefined {
	if (!value) return undefined;
	const out: Record<string, number> = {};
	for (const [key, v] of Object.entries(value)) {
		if (typeof v !== 'number') throw badRequest('control', 'invalid_value', `${key}: expected a number`);
		out[key] = v;
	}
	return out;
}

function createOptions(body: JsonObject) {
	return { overrides: optionalObject(body, 'overrides'), restricted: optionalBoolean(body, 'restricted'), timestamp: optionalString(body, 'timestamp') };
}

/** Runs a simulator call and turns thrown plain errors into a 400 (control misuse). */
function guarded(handler: (sim: Simulator, body: JsonObject, req: ApiRequest, params: Record<string, string>) => unknown): Route['handle'] {
	return (req, params): Reply => {
		const body = bodyObject(req);
		try {
			return ok(handler(req.sim, body, req, params) ?? { ok: true });
		} catch (error) {
			if (error instanceof Error && error.constructor === Error) throw badRequest('control', 'invalid_request', error.message);
			throw error;
		}
	};
}

const control = (method: string, path: string, handler: Parameters<typeof guarded>[0]): Route => ({
	method,
	path: `/__sim${path}`,
	kind: 'control',
	auth: false,
	handle: guarded(handler),
});

function queryString(req: ApiRequest, key: string): string | undefined {
	const value = req.query[key];
	return typeof value === 'string' ? value : undefined;
}

export const CONTROL_ROUTES: readonly Route[] = [
	control('GET', '/health', () => ({ ok: true })),
	control('GET', '/credentials', (sim) => sim.credentials),
	control('POST', '/reset', (sim, body) => ({
		counts: sim.reset({ seed: optionalNumber(body, 'seed'), sizes: numberRecord(optionalObject(body, 'sizes')) as SeedSizes | undefined }),
	})),
	control('GET', '/counts', (sim) => sim.counts()),
	control('GET', '/config', (sim) => sim.getConfig()),
	control('GET', '/variation', (sim) => sim.variation),
	control('PATCH', '/variation', (sim, body) => sim.setVariation(isJsonObject(body) ? (body as Partial<ServerVariation>) : {})),
	control('PATCH', '/config', (sim, body) => sim.setConfig(numberRecord(body) as Partial<SimulatorConfig>)),
	control('GET', '/clock', (sim) => sim.clockState()),
	control('POST', '/clock/set', (sim, body) => sim.setClock(optionalString(body, 'now') ?? '')),
	control('POST', '/clock/advance', (sim, body) => sim.advanceClock(requiredNumber(body, 'seconds'))),
	control('POST', '/clock/freeze', (sim, body) => sim.freezeClock(optionalString(body, 'at'))),
	control('POST', '/clock/unfreeze', (sim) => sim.unfreezeClock()),
	control('GET', '/restricted', (sim) => sim.restrictedIds()),
	control('GET', '/hidden', (sim) => sim.hiddenIds()),
	control('GET', '/conditions', (sim) => sim.conditionIds()),
	control('GET', '/records/:resource', (sim, _b, req, params) =>
		({ data: sim.getRecords(resourceParam(params), queryString(req, 'ids')?.split(',').filter(Boolean)) })),
	control('POST', '/records/:resource', (sim, body, _r, params) =>
		({ data: sim.createRecords(resourceParam(params), requiredNumber(body, 'count'), createOptions(body)) })),
	control('POST', '/records/:resource/touch', (sim, body, _r, params) => ({
		data: sim.touchRecords(resourceParam(params), stringList(body.ids, 'ids') ?? [], {
			sameTimestamp: optionalBoolean(body, 'sameTimestamp'),
			timestamp: optionalString(body, 'timestamp'),
			changes: optionalObject(body, 'changes'),
		}),
	})),
	control('POST', '/records/:resource/delete', (sim, body, _r, params) =>
		({ deleted: sim.deleteRecords(resourceParam(params), stringList(body.ids, 'ids') ?? []) })),
	control('POST', '/records/:resource/late', (sim, body, _r, params) => {
		const timestamp = optionalString(body, 'timestamp');
		if (!timestamp) throw badRequest('control', 'missing_field', 'timestamp: is required');
		return { data: sim.createLateRecords(resourceParam(params), requiredNumber(body, 'count'), timestamp, createOptions(body)) };
	}),
	control('POST', '/records/:resource/reveal', (sim, body, _r, params) =>
		({ revealed: sim.revealRecords(resourceParam(params), stringList(body.ids, 'ids')) })),
	control('POST', '/file-transfers', (sim, body) =>
		({ data: sim.createFileTransfer({ deliverAfterReads: optionalNumber(body, 'deliverAfterReads'), overrides: optionalObject(body, 'overrides') }) })),
	control('GET', '/faults', (sim) => sim.getFaults()),
	control('PATCH', '/faults', (sim, body) => sim.setFaults(body as Partial<FaultConfig>)),
	control('DELETE', '/faults', (sim) => sim.clearFaults()),
	control('POST', '/faults/queue', (sim, body) => sim.queueFault(parseQueuedFault(body))),
	control('GET', '/requests', (sim, _b, req) => {
		const limit = queryString(req, 'limit');
		return { data: sim.requests(limit === undefined ? undefined : Number(limit)) };
	}),
	control('DELETE', '/requests', (sim) => sim.clearRequests()),
	control('GET', '/stats', (sim) => sim.stats()),
	control('DELETE', '/stats', (sim) => sim.resetStats()),
	control('POST', '/tokens/revoke', (sim) => sim.revokeTokens()),
	control('POST', '/tokens', (sim, body) => ({ access_token: sim.issueToken(parseRole(optionalString(body, 'role'))) })),
];

function parseRole(value: string | undefined): Role {
	if (value === undefined || value === 'admin' || value === 'limited') return value ?? 'admin';
	throw badRequest('control', 'invalid_value', 'role: expected admin or limited');
}

function parseQueuedFault(body: JsonObject): QueuedFault {
	const pathPrefix = optionalString(body, 'pathPrefix') ?? '/';
	const status = body.status === 'drop' ? 'drop' : requiredNumber(body, 'status');
	return {
		pathPrefix,
		status,
		count: optionalNumber(body, 'count') ?? 1,
		method: optionalString(body, 'method'),
		retryAfterSeconds: optionalNumber(body, 'retryAfterSeconds'),
	};
}
