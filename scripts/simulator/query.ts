import { badRequest } from './errors';

/** A parsed bracket-notation query: `filters[email][op]=eq` becomes `{filters: {email: {op: 'eq'}}}`. */
export type QueryValue = string | string[] | QueryObject;
export interface QueryObject {
	[key: string]: QueryValue;
}

/** Splits `a[b][c][]` into `['a', 'b', 'c', '']`; an empty segment means "append to a list". */
function splitKey(key: string): string[] | null {
	const open = key.indexOf('[');
	if (open === -1) return [key];
	const segments = [key.slice(0, open)];
	const rest = key.slice(open);
	const re = /\[([^[\]]*)\]/gy;
	let consumed = 0;
	for (let m = re.exec(rest); m; m = re.exec(rest)) {
		segments.push(m[1]);
		consumed = re.lastIndex;
	}
	if (consumed !== rest.length || segments[0] === '') return null;
	// Only the last segment may be the list marker `[]`.
	if (segments.slice(1, -1).includes('')) return null;
	return segments;
}

/**
 * Parses a raw query string strictly: a parameter given twice without `[]`, or given both as a
 * value and as an object, is a 400 naming it (so a client's encoding mistakes are caught).
 */
export function parseQuery(raw: string): QueryObject {
	const root: QueryObject = {};
	for (const [key, value] of new URLSearchParams(raw)) {
		const segments = splitKey(key);
		if (!segments) throw badRequest('query', 'invalid_parameter', `${key}: malformed parameter name`);
		assign(root, segments, value, key);
	}
	return root;
}

function assign(root: QueryObject, segments: string[], value: string, key: string): void {
	let node = root;
	for (let i = 0; i < segments.length - 1; i++) {
		const segment = segments[i];
		const isListNext = i === segments.length - 2 && segments[i + 1] === '';
		if (isListNext) {
			const existing = node[segment];
			if (existing === undefined) node[segment] = [value];
			else if (Array.isArray(existing)) existing.push(value);
			else throw conflict(key);
			return;
		}
		const child = node[segment];
		if (child === undefined) {
			const created: QueryObject = {};
			node[segment] = created;
			node = created;
		} else if (typeof child === 'object' && !Array.isArray(child)) {
			node = child;
		} else {
			throw conflict(key);
		}
	}
	const last = segments[segments.length - 1];
	if (node[last] !== undefined) {
		throw badRequest(
			'query',
			'duplicate_parameter',
			`${key}: given more than once; use ${key}[] for a list of values`,
		);
	}
	node[last] = value;
}

function conflict(key: string): Error {
	return badRequest('query', 'invalid_parameter', `${key}: conflicts with another parameter of the same name`);
}

/** Rejects top-level parameters that the endpoint does not know. */
export function assertKnownParameters(query: QueryObject, allowed: readonly string[]): void {
	for (const key of Object.keys(query)) {
		if (!allowed.includes(key)) {
			throw badRequest(
				'query',
				'unknown_parameter',
				`${key}: unknown parameter; expected one of ${allowed.join(', ') || '(none)'}`,
			);
		}
	}
}

export function isQueryObject(value: QueryValue | undefined): value is QueryObject {
	return typeof value === 'object' && !Array.isArray(value);
}
