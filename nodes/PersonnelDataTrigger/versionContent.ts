import type { IDataObject } from 'n8n-workflow';

import { canonicalJson } from '../shared/canonicalJson';
import type { ResourceDefinition } from '../shared/registry';
import { timestampKey } from '../shared/timestamps';

/**
 * What counts as a version's content (changeFeed.ts): the record as the server means it, not as it
 * writes it. A server release that adds a field to every record, leaves out empty optional fields,
 * orders keys otherwise, writes a timestamp with another precision or offset, or an id in other
 * letters changes no version, so it sends nothing again. Two changes of a record within one second
 * on a server that keeps seconds still differ, in the fields the package knows (the registry's
 * and `properties`).
 *
 * Where both cannot hold, the release wins: a second change in the same second to a field the
 * package does not know (a field only a newer server sends) is not told apart from the first.
 * Bump CONTENT_SCHEME when this changes: stored memories then compare by id and time alone until
 * their versions settle, so an upgrade of the package sends nothing again either.
 */
export const CONTENT_SCHEME = 'content v2';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Null, absent, `[]` and `{}` are one "no value"; timestamps as instants; uuids in lower case. */
function normalized(value: unknown): unknown {
	if (value === null || value === undefined) return undefined;
	if (typeof value === 'string') {
		if (UUID.test(value)) return value.toLowerCase();
		return TIMESTAMP.test(value) ? timestampKey(value) : value;
	}
	if (Array.isArray(value)) {
		const entries = value.map((entry) => normalized(entry) ?? null);
		return entries.length === 0 ? undefined : entries;
	}
	if (typeof value === 'object') {
		const out: Record<string, unknown> = {};
		for (const [key, inner] of Object.entries(value as IDataObject)) {
			const kept = normalized(inner);
			if (kept !== undefined) out[key] = kept;
		}
		return Object.keys(out).length === 0 ? undefined : out;
	}
	return value;
}

/** The content a version is compared by: the fields the resource knows, normalized, as canonical JSON. */
export function versionContent(resource: ResourceDefinition, record: IDataObject): string {
	const known: IDataObject = {};
	for (const [key, value] of Object.entries(record)) if (key === 'properties' || key in resource.fields) known[key] = value;
	return canonicalJson(normalized(known) ?? {});
}
