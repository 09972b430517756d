import { QUERY } from '../apiChoices';

export type QueryValue = string | number | boolean | readonly string[];
export type Query = Record<string, QueryValue | undefined>;

/**
 * The API's bracket notation, built here rather than by n8n's `qs` options, whose array format
 * (`x[0]=a`) the API does not read: lists become repeated `name[]=value` pairs.
 */
export function serializeQuery(query: Query): string {
	const pairs: string[] = [];
	const add = (key: string, value: string | number | boolean) =>
		pairs.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`);
	for (const [key, value] of Object.entries(query)) {
		if (value === undefined) continue;
		if (Array.isArray(value)) {
			for (const item of value as readonly string[]) add(`${key}${QUERY.listSuffix}`, item);
		} else {
			add(key, value as string | number | boolean);
		}
	}
	return pairs.join('&');
}

export function withQuery(path: string, query: Query | undefined): string {
	const serialized = query ? serializeQuery(query) : '';
	if (!serialized) return path;
	return `${path}${path.includes('?') ? '&' : '?'}${serialized}`;
}
