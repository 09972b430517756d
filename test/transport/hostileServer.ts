import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { sleep } from 'n8n-workflow';

import { PersonnelDataApi } from '../../credentials/PersonnelDataApi.credentials';
import { PersonnelData } from '../../nodes/PersonnelData/PersonnelData.node';
import { PersonnelDataTrigger } from '../../nodes/PersonnelDataTrigger/PersonnelDataTrigger.node';
import { provisioningSignature } from '../../nodes/shared/transport/provisioning';
import { NodeRuntime } from '../../scripts/harness';

/** What the hostile server saw: one entry per request, at arrival. */
export interface HostileRequest {
	method: string;
	path: string;
	query: URLSearchParams;
	authorization: string;
	at: number;
	body: string;
}

export type Handler = (request: HostileRequest, response: ServerResponse, server: HostileServer) => void | Promise<void>;

export const JTI = 'jti-hostile-0001';
export const REFRESH_TOKEN = 'rt_hostile_refresh_token_secret_value';
export const SALT = 'salt-hostile-0123456789abcdef';

/** A JWT-shaped token (unsigned: the client only reads `exp`). */
export function jwt(expiresInSeconds: number): string {
	const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
	const exp = Math.floor(Date.now() / 1000) + expiresInSeconds;
	return `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode({ exp, jti: randomUUID() })}.${randomUUID().replace(/-/g, '')}`;
}

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
	const text = JSON.stringify(body);
	response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
	response.end(text);
}

export function sendText(response: ServerResponse, status: number, contentType: string | undefined, text: string): void {
	response.writeHead(status, contentType === undefined ? {} : { 'content-type': contentType });
	response.end(text);
}

export function employee(index: number): Record<string, unknown> {
	return { id: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`, first_name: `E${index}`, updated_at: '2026-01-01T00:00:00.000000Z', inserted_at: '2026-01-01T00:00:00.000000Z' };
}

export function page(data: unknown, endCursor: unknown, hasNextPage: unknown): Record<string, unknown> {
	return { data, pagination: { end_cursor: endCursor, has_next_page: hasNextPage, start_cursor: null, has_previous_page: false } };
}

/**
 * A handler that sends its headers at once and then `body` one byte every `everyMs`: never idle,
 * never done in time. `exchanges` receives, per request, how long its connection stayed open.
 */
export function trickling(status: number, body: string, everyMs: number, exchanges: number[] = []): Handler {
	return async (request, response) => {
		response.on('close', () => exchanges.push(Date.now() - request.at));
		response.writeHead(status, { 'content-type': 'application/json' });
		for (const byte of body) {
			if (response.destroyed) return;
			response.write(byte);
			await sleep(everyMs);
		}
		response.end();
	};
}

/**
 * A small HTTP server on 127.0.0.1 that misbehaves on demand: `api` answers every request outside
 * `/provisioning`, `begin` and `refresh` the two provisioning calls (by default correctly, with a
 * JWT valid for an hour). Tokens it issued are in `issued`; every request is in `requests`.
 */
export class HostileServer {
	readonly requests: HostileRequest[] = [];
	readonly issued: string[] = [];
	baseUrl = '';
	api: Handler = (_request, response) => sendJson(response, 200, page([employee(1)], null, false));
	begin: Handler = (_request, response) => sendJson(response, 200, { data: { salt: SALT } });
	refresh: Handler = (_request, response, server) => sendJson(response, 200, { data: { access_token: server.issue() } });
	private server?: Server;

	issue(expiresInSeconds = 3_600): string {
		const token = jwt(expiresInSeconds);
		this.issued.push(token);
		return token;
	}

	apiRequests(): HostileRequest[] {
		return this.requests.filter((request) => !request.path.startsWith('/provisioning'));
	}

	provisioningCalls(step: 'begin' | 'refresh'): number {
		return this.requests.filter((request) => request.path === `/provisioning/refresh-token/${step}`).length;
	}

	async start(): Promise<this> {
		this.server = createServer((request, response) => void this.handle(request, response));
		await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
		this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
		return this;
	}

	async close(): Promise<void> {
		this.server?.closeAllConnections();
		await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
	}

	private async handle(incoming: IncomingMessage, response: ServerResponse): Promise<void> {
		const chunks: Buffer[] = [];
		for await (const chunk of incoming) chunks.push(chunk as Buffer);
		const url = new URL(incoming.url ?? '/', 'http://localhost');
		const request: HostileRequest = {
			method: incoming.method ?? 'GET',
			path: url.pathname,
			query: url.searchParams,
			authorization: String(incoming.headers.authorization ?? ''),
			at: Date.now(),
			body: Buffer.concat(chunks).toString('utf8'),
		};
		this.requests.push(request);
		response.on('error', () => undefined);
		const handler =
			request.path === '/provisioning/refresh-token/begin' ? this.begin : request.path === '/provisioning/refresh-token/refresh' ? this.refresh : this.api;
		try {
			await handler(request, response, this);
		} catch {
			response.destroy();
		}
	}
}

/** n8n's runtime (the harness) with this package's nodes and a credential for `server`. */
export function runtimeFor(server: HostileServer): NodeRuntime {
	const runtime = new NodeRuntime({
		nodeTypes: [new PersonnelData(), new PersonnelDataTrigger()],
		credentialTypes: [new PersonnelDataApi()],
	});
	runtime.setCredentials('personnelDataApi', {
		baseUrl: server.baseUrl,
		authMode: 'refreshToken',
		jti: JTI,
		refreshToken: REFRESH_TOKEN,
	});
	return runtime;
}

/** Every secret the hostile server handed out or was sent. */
export function hostileSecrets(server: HostileServer): string[] {
	return [REFRESH_TOKEN, SALT, provisioningSignature(SALT, REFRESH_TOKEN), ...server.issued];
}
