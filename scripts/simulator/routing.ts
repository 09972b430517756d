import type { Principal } from './auth';
import { ApiError } from './errors';
import type { QueryObject } from './query';
import type { Simulator } from './simulator';
import type { Json } from './types';

/** What a handler gets. `body` is the parsed JSON body, or undefined when there was none. */
export interface ApiRequest {
	sim: Simulator;
	method: string;
	path: string;
	query: QueryObject;
	body: Json | undefined;
	principal?: Principal;
}

export interface Reply {
	status: number;
	body: unknown;
	/** Pre-serialized body; sent instead of JSON.stringify(body) when present. */
	raw?: Buffer;
	headers?: Record<string, string>;
}

export interface Route {
	method: string;
	/** Path template: `:name` matches one segment. */
	path: string;
	/** Stats label, e.g. `employees.list`. */
	kind: string;
	/** Whether a bearer token is required (all /v1 and /v2 routes). */
	auth: boolean;
	handle(req: ApiRequest, params: Record<string, string>): Reply;
}

interface CompiledRoute extends Route {
	regex: RegExp;
	names: string[];
}

export type RouteMatch =
	| { kind: 'found'; route: Route; params: Record<string, string> }
	| { kind: 'method_not_allowed'; allow: string[] }
	| { kind: 'not_found' };

/**
 * A tiny router. The first template that matches a path owns it: literal paths such as
 * `/v1/org/employees/shape` are listed before `/v1/org/employees/:id`, so a wrong method on them
 * is a 405 rather than a lookup of an employee called "shape".
 */
export class Router {
	private readonly routes: CompiledRoute[];

	constructor(routes: readonly Route[]) {
		this.routes = routes.map((route) => {
			const names: string[] = [];
			const source = route.path.replace(/:([a-z_]+)/g, (_m, name: string) => {
				names.push(name);
				return '([^/]+)';
			});
			return { ...route, regex: new RegExp(`^${source}/?$`), names };
		});
	}

	match(method: string, path: string): RouteMatch {
		const owner = this.routes.find((r) => r.regex.test(path));
		if (!owner) return { kind: 'not_found' };
		const family = this.routes.filter((r) => r.path === owner.path);
		const route = family.find((r) => r.method === method);
		if (!route) return { kind: 'method_not_allowed', allow: family.map((r) => r.method) };
		const values = route.regex.exec(path)?.slice(1) ?? [];
		const params: Record<string, string> = {};
		route.names.forEach((name, i) => (params[name] = decodeURIComponent(values[i])));
		return { kind: 'found', route, params };
	}
}

/**
 * Records serialized to UTF-8, cached per record object. Records are never mutated (writes store
 * new objects), so the cache stays valid; a page is then a memcpy of cached bytes, with no
 * JSON.stringify and no string encoding on the socket (both dominate Return All of 100,000).
 */
// A symbol-keyed property is invisible to JSON.stringify and, unlike a WeakMap with 100,000
// entries, costs the garbage collector nothing extra.
const BYTES = Symbol('serialized');
type Cached = object & { [BYTES]?: Buffer };

export function recordBytes(record: object): Buffer {
	const cached = record as Cached;
	let bytes = cached[BYTES];
	if (bytes === undefined) {
		bytes = Buffer.from(JSON.stringify(record), 'utf8');
		Object.defineProperty(cached, BYTES, { value: bytes, enumerable: false });
	}
	return bytes;
}

const COMMA = Buffer.from(',');
const OPEN = Buffer.from('{"data":[');

/** A list reply `{data, pagination, ...topLevel}` assembled from cached record bytes. */
export function listOk(records: readonly object[], pagination: object, topLevel: Record<string, unknown> = {}): Reply {
	const parts: Buffer[] = [OPEN];
	records.forEach((record, i) => {
		if (i > 0) parts.push(COMMA);
		parts.push(recordBytes(record));
	});
	const rest = Object.entries(topLevel).map(([key, value]) => `,${JSON.stringify(key)}:${JSON.stringify(value)}`).join('');
	parts.push(Buffer.from(`],"pagination":${JSON.stringify(pagination)}${rest}}`));
	return { status: 200, body: undefined, raw: Buffer.concat(parts) };
}

export function ok(body: unknown, status = 200): Reply {
	return { status, body };
}

export function routeNotFound(method: string, path: string): ApiError {
	return new ApiError(404, [{ domain: 'routing', reason: 'unknown_route', message: `${method} ${path}: no such endpoint` }]);
}
