import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { API_ROUTES } from './api';
import type { Principal, SimulatorCredentials } from './auth';
import { CONTROL_ROUTES } from './control';
import { ApiError, errorBody } from './errors';
import type { FaultDecision } from './faults';
import { parseQuery, type QueryObject } from './query';
import { routeNotFound, Router, type Reply, type Route } from './routing';
import { Simulator, type SimulatorOptions } from './simulator';
import type { Json, TokenKind } from './types';

export interface StartOptions extends SimulatorOptions {
	/** 0 (default) picks a free port. */
	port?: number;
	host?: string;
}

export interface RunningSimulator {
	baseUrl: string;
	port: number;
	/** In-process control of the same simulator the server uses. */
	sim: Simulator;
	credentials: SimulatorCredentials;
	close(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;
const apiRouter = new Router(API_ROUTES);
/** Sockets that have carried an API request: the stats count connections, control calls aside. */
const apiSockets = new WeakSet<Socket>();
const controlRouter = new Router(CONTROL_ROUTES);

/** Starts the simulator on 127.0.0.1. */
export async function startSimulator(options: StartOptions = {}): Promise<RunningSimulator> {
	const sim = new Simulator(options);
	const server = createServer((req, res) => {
		handle(sim, req, res).catch((error: unknown) => {
			console.error('[simulator] unexpected failure', error);
			if (!res.headersSent) send(res, { status: 500, body: errorBody(500) });
		});
	});
	server.keepAliveTimeout = 30_000;
	const host = options.host ?? '127.0.0.1';
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(options.port ?? 0, host, () => resolve());
	});
	const port = (server.address() as AddressInfo).port;
	return { baseUrl: `http://${host}:${port}`, port, sim, credentials: sim.credentials, close: () => closeServer(server) };
}

function closeServer(server: Server): Promise<void> {
	return new Promise((resolve) => {
		server.close(() => resolve());
		server.closeAllConnections();
	});
}

interface Exchange {
	method: string;
	path: string;
	rawQuery: string;
	query: QueryObject | null;
	body?: Json;
	tokenKind: TokenKind;
	principal?: Principal;
	/** Set when the Authorization header's token was refused. */
	refusedTokenId?: string;
	routeKind: string;
	fault?: string;
}

/** Per simulator, API requests being answered now (their latency running), for FaultConfig.maxInFlight. */
const inProgressOf = new WeakMap<Simulator, { count: number }>();

async function handle(sim: Simulator, req: IncomingMessage, res: ServerResponse): Promise<void> {
	const started = performance.now();
	const at = sim.clock.now();
	const url = req.url ?? '/';
	const queryAt = url.indexOf('?');
	const ex: Exchange = {
		method: (req.method ?? 'GET').toUpperCase(),
		path: queryAt === -1 ? url : url.slice(0, queryAt),
		rawQuery: queryAt === -1 ? '' : url.slice(queryAt + 1),
		query: null,
		tokenKind: req.headers.authorization ? 'invalid' : 'none',
		routeKind: 'unknown',
	};
	const bodyText = await readBody(req);
	if (bodyText === null) {
		send(res, errorReply(new ApiError(413, [{ domain: 'body', reason: 'too_large', message: `body: larger than ${MAX_BODY_BYTES} bytes` }])));
		return;
	}
	if (ex.path.startsWith('/__sim')) {
		send(res, respond(sim, controlRouter, ex, bodyText, req));
		return;
	}
	if (!apiSockets.has(req.socket)) {
		apiSockets.add(req.socket);
		sim.log.connectionOpened();
	}
	const config = sim.faults.config;
	const applies = sim.faults.appliesTo(ex.path);
	const inProgress = inProgressOf.get(sim) ?? { count: 0 };
	inProgressOf.set(sim, inProgress);
	const overLimit = applies && config.maxInFlight > 0 && inProgress.count >= config.maxInFlight;
	const fault: FaultDecision = overLimit ? { kind: 'status', status: 429, retryAfterSeconds: config.retryAfterSeconds } : sim.faults.decide(ex.method, ex.path, ex.rawQuery);
	const jitterMs = config.jitterMs > 0 ? Math.random() * config.jitterMs : 0;
	const latencyMs = (fault.kind === 'status' && fault.latencyMs !== undefined ? fault.latencyMs : config.latencyMs) + jitterMs;
	// A request refused for the limit is not being worked on.
	const counted = applies && !overLimit;
	if (counted) inProgress.count++;
	try {
		if (applies && latencyMs > 0) await sleep(latencyMs);
	} finally {
		if (counted) inProgress.count--;
	}
	const reply = fault.kind === 'none' ? respond(sim, apiRouter, ex, bodyText, req) : faultReply(fault, ex);
	const log = () =>
		sim.log.record({
			at,
			method: ex.method,
			path: ex.path,
			rawQuery: ex.rawQuery,
			query: ex.query,
			body: ex.body,
			status: reply?.status ?? 0,
			routeKind: ex.routeKind,
			tokenKind: ex.tokenKind,
			role: ex.principal?.role,
			tokenId: ex.principal?.tokenId,
			refusedTokenId: ex.refusedTokenId,
			fault: ex.fault,
			durationMs: Math.round((performance.now() - started) * 1000) / 1000,
		});
	log();
	if (reply) send(res, reply, dateHeaderOf(sim));
	else req.socket.destroy();
}

function faultReply(fault: Exclude<FaultDecision, { kind: 'none' }>, ex: Exchange): Reply | null {
	if (fault.kind === 'drop') {
		ex.fault = 'drop';
		return null;
	}
	if (fault.kind === 'html200') {
		ex.fault = 'html200';
		return { status: 200, body: null, raw: Buffer.from('<!doctype html><html><body>Please sign in</body></html>'), headers: { 'content-type': 'text/html; charset=utf-8' } };
	}
	ex.fault = String(fault.status);
	const headers: Record<string, string> = {};
	if (fault.status === 429) headers['retry-after'] = String(fault.retryAfterSeconds ?? 0);
	const error = new ApiError(fault.status, [{ domain: 'simulator', reason: 'injected_fault', message: `injected ${fault.status}` }], headers);
	return errorReply(error);
}

/** Route → auth → body → query → handler; every failure becomes the API's error body. */
function respond(sim: Simulator, router: Router, ex: Exchange, bodyText: string, req: IncomingMessage): Reply {
	try {
		const match = router.match(ex.method, ex.path);
		if (match.kind === 'not_found') throw routeNotFound(ex.method, ex.path);
		if (match.kind === 'method_not_allowed') {
			throw new ApiError(
				405,
				[{ domain: 'routing', reason: 'method_not_allowed', message: `${ex.method} ${ex.path}: method not allowed; allowed: ${match.allow.join(', ')}` }],
				{ allow: match.allow.join(', ') },
			);
		}
		return runRoute(sim, match.route, match.params, ex, bodyText, req);
	} catch (error) {
		if (error instanceof ApiError) return errorReply(error);
		console.error('[simulator] handler failure', error);
		return errorReply(new ApiError(500, [{ domain: 'server', reason: 'internal_error', message: String(error) }]));
	}
}

function runRoute(sim: Simulator, route: Route, params: Record<string, string>, ex: Exchange, bodyText: string, req: IncomingMessage): Reply {
	ex.routeKind = route.kind;
	if (route.auth) {
		try {
			ex.principal = sim.auth.verify(req.headers.authorization);
		} catch (error) {
			ex.refusedTokenId = sim.auth.tokenIdOf(req.headers.authorization);
			throw error;
		}
		ex.tokenKind = ex.principal.kind;
	}
	ex.body = parseBody(bodyText);
	ex.query = parseQuery(ex.rawQuery);
	return route.handle({ sim, method: ex.method, path: ex.path, query: ex.query, body: ex.body, principal: ex.principal }, params);
}

function parseBody(text: string): Json | undefined {
	if (text.trim() === '') return undefined;
	try {
		return JSON.parse(text) as Json;
	} catch (error) {
		throw new ApiError(400, [{ domain: 'body', reason: 'invalid_json', message: `body: not valid JSON (${(error as Error).message})` }]);
	}
}

function errorReply(error: ApiError): Reply {
	return { status: error.status, body: error.body(), headers: error.headers };
}

/**
 * The API's Date header (variations.ts `dateHeader`): the simulator's clock (which the tests may
 * move), that clock an hour ahead (a front whose clock is another machine's), or none; stepped by
 * `dateHeaderStepMs`.
 */
function dateHeaderOf(sim: Simulator): string | null {
	const ms = Math.floor(sim.clock.nowMicros() / 1000) + sim.dateHeaderStepMs;
	switch (sim.variation.dateHeader) {
		case 'absent':
			return null;
		case 'aheadOneHour':
			return new Date(ms + 3_600_000).toUTCString();
		default:
			return new Date(ms).toUTCString();
	}
}

/** `date`: the Date header to send (null: none); undefined: Node's own (the machine's clock). */
function send(res: ServerResponse, reply: Reply, date?: string | null): void {
	const json = reply.raw ?? Buffer.from(JSON.stringify(reply.body), 'utf8');
	if (date === null) res.sendDate = false;
	res.writeHead(reply.status, {
		'content-type': 'application/json; charset=utf-8',
		'content-length': json.length,
		...(typeof date === 'string' ? { date } : {}),
		...reply.headers,
	});
	res.end(json);
}

/** Resolves null when the body exceeds MAX_BODY_BYTES. */
function readBody(req: IncomingMessage): Promise<string | null> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		req.on('data', (chunk: Buffer) => {
			size += chunk.length;
			if (size <= MAX_BODY_BYTES) chunks.push(chunk);
		});
		req.on('end', () => resolve(size > MAX_BODY_BYTES ? null : Buffer.concat(chunks).toString('utf8')));
		req.on('error', reject);
	});
}

function sleep(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

export { Simulator } from './simulator';
export type { SimulatorOptions } from './simulator';
export type { SimulatorCredentials, RoleCredentials } from './auth';
