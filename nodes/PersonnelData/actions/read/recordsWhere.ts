import type { IDataObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { PAGE_SIZE_MAX, QUERY } from '../../../shared/apiChoices';
import { toNodeError } from '../../../shared/errors';
import { checkFieldName } from '../../../shared/fields/names';
import { idKey } from '../../../shared/ids';
import { collectRecords } from '../../../shared/pagination';
import type { ResourceDefinition } from '../../../shared/registry';
import type { ApiContext, ApiRequest } from '../../../shared/transport';
import { redactShapes } from '../../../shared/transport/redact';
import { mapConcurrently } from '../concurrency';

/** Values one list request asks for with `in`: one full page of records when the field is unique. */
export const VALUES_PER_REQUEST = PAGE_SIZE_MAX;

/**
 * Requests one chunk's page walk may send. A unique field (an id) fits a chunk in one page; the
 * rest is room for a server that ends with an empty page, or a non-unique field (an email shared
 * by a few records). Far below the Max Requests of a listing: a chunk is never a long walk.
 */
export const REQUESTS_PER_CHUNK = 50;

/**
 * List requests the batched reader keeps in flight at least, whatever the node's Concurrency: each
 * carries up to 100 values, so ten at a time is still a hundredth of one request per item, and a
 * run of 1,000 records waits for one round trip instead of ten: what matters 150 ms away.
 */
export const LIST_REQUESTS_IN_FLIGHT = 10;

/** The list requests a batched read keeps in flight under the node's Concurrency. */
export const listRequestsInFlight = (concurrency = 1): number => Math.max(concurrency, LIST_REQUESTS_IN_FLIGHT);

export interface RecordsWhere {
	resource: ResourceDefinition;
	/** A field the list endpoint filters with `in` (a server that does not answers 400). */
	field: string;
	/**
	 * `in` (the default): up to VALUES_PER_REQUEST values a request; `eq`: one request per value,
	 * for a field the server filters with `eq` only. Either way every record is checked against
	 * the values asked.
	 */
	operator?: 'in' | 'eq';
	/** The values to look up; repeats are asked for once. */
	values: readonly string[];
	/** Fields to return (the field looked up is added); empty or absent: every field. */
	select?: readonly string[];
	itemIndex?: number;
	/** The node's Concurrency (default 1): chunks are read listRequestsInFlight(concurrency) at a time. */
	concurrency?: number;
}

/** How the reader compares values: UUIDs in any case are the same record (see shared/ids.ts). */
export function keyOf(resource: ResourceDefinition, field: string, value: unknown): string | undefined {
	if (typeof value === 'string') return resource.fields[field]?.type === 'uuid' ? idKey(value) : value;
	if (typeof value === 'number' || typeof value === 'boolean') return String(value);
	return undefined;
}

/**
 * The field, well formed. Whether the list filters it with `in` is the server's to say (a 400): the
 * registry's operator lists feed the form and do not cover every field a lookup may use.
 */
function checkedField(resource: ResourceDefinition, field: string): string {
	const name = checkFieldName(field, `${resource.displayName} lookup field`);
	if (!resource.paths.list) throw new Error(`${resource.pluralName} have no list endpoint to look records up in`);
	return name;
}

/** The values to ask for, each once (compared as the server compares them), in first-seen order. */
export function distinctValues(resource: ResourceDefinition, field: string, values: readonly string[]): string[] {
	const seen = new Set<string>();
	const distinct: string[] = [];
	for (const value of values) {
		const key = keyOf(resource, field, value) as string;
		if (seen.has(key)) continue;
		seen.add(key);
		distinct.push(value);
	}
	return distinct;
}

/** `values` in chunks of at most VALUES_PER_REQUEST. */
export function chunksOf<T>(values: readonly T[], size = VALUES_PER_REQUEST): T[][] {
	const chunks: T[][] = [];
	for (let start = 0; start < values.length; start += size) chunks.push(values.slice(start, start + size));
	return chunks;
}

/**
 * One chunk (at most VALUES_PER_REQUEST distinct values): one list request with
 * `filters[<field>][op]=in`, its pages walked with the shared paginator. Every record must carry
 * one of the asked values in `field`: anything else is the server answering another question, and
 * an error rather than a record handed to the wrong item. A value no record has maps to `[]`.
 */
export async function readChunkWhere(this: ApiContext, query: Omit<RecordsWhere, 'concurrency'>): Promise<Map<string, IDataObject[]>> {
	const { resource, itemIndex } = query;
	const field = checkedField(resource, query.field);
	const values = distinctValues(resource, field, query.values);
	const operator = query.operator ?? 'in';
	const most = operator === 'in' ? VALUES_PER_REQUEST : 1;
	if (values.length > most) throw new Error(`A lookup chunk with ${operator} holds at most ${most} values, got ${values.length}`);
	const found = new Map<string, IDataObject[]>();
	const byKey = new Map<string, IDataObject[]>();
	for (const value of values) {
		const records: IDataObject[] = [];
		found.set(value, records);
		byKey.set(keyOf(resource, field, value) as string, records);
	}
	if (values.length === 0) return found;

	const select = query.select && query.select.length > 0 ? [...new Set([field, ...query.select])] : undefined;
	const request: ApiRequest = {
		method: 'GET',
		path: resource.paths.list as string,
		query: {
			[QUERY.filter(field, 'op')]: operator,
			[QUERY.filter(field, 'value')]: operator === 'in' ? values : values[0],
			[QUERY.select]: select,
		},
		itemIndex,
	};
	const records = await collectRecords.call(this, request, { itemIndex, maxRequests: REQUESTS_PER_CHUNK });
	for (const record of records) {
		const key = keyOf(resource, field, record[field]);
		const bucket = key === undefined ? undefined : byKey.get(key);
		if (!bucket) {
			const shown = record[field] === undefined ? 'no value' : redactShapes(JSON.stringify(record[field]).slice(0, 60));
			throw new NodeOperationError(
				this.getNode(),
				`GET ${request.path}: asked for ${resource.pluralName.toLowerCase()} by ${field}, the API sent a record with ${shown} in ${field}, which was not asked for; stopped instead of handing it to the wrong item`,
				{ itemIndex },
			);
		}
		bucket.push(record);
	}
	return found;
}

/**
 * The records whose `field` equals each value: value → records (`[]` when none), for every value
 * asked (as given; repeats once). Reads in chunks of VALUES_PER_REQUEST values, one list request
 * each (plus any further pages), instead of one request per value. A list leaves out records the
 * credential's role may not read (spec, authentication 8), so a missing record is not proof that
 * none exists: callers that need the exact reason ask for it on its own.
 */
export async function readRecordsWhere(this: ApiContext, query: RecordsWhere): Promise<Map<string, IDataObject[]>> {
	const field = checkedField(query.resource, query.field);
	const chunks = chunksOf(distinctValues(query.resource, field, query.values), query.operator === 'eq' ? 1 : VALUES_PER_REQUEST);
	let failed = false;
	const settled = await mapConcurrently(
		chunks.length,
		listRequestsInFlight(query.concurrency),
		async (index) => {
			try {
				return await readChunkWhere.call(this, { ...query, field, values: chunks[index] });
			} catch (error) {
				failed = true;
				throw toNodeError(this.getNode(), error, query.itemIndex);
			}
		},
		() => failed,
	);
	const byKey = new Map<string, IDataObject[]>();
	for (const result of settled) {
		// Chunks start in order and stop after a failure, so a chunk never started (undefined)
		// comes after a rejected one: the first failure in order is thrown before it is reached.
		if (result === undefined || result.status === 'rejected') throw result?.reason ?? new Error('A lookup chunk was not read');
		for (const [value, records] of result.value) byKey.set(keyOf(query.resource, field, value) as string, records);
	}
	// Every value as asked, in first-seen order; another spelling of a UUID gets the same records.
	const found = new Map<string, IDataObject[]>();
	for (const value of query.values) {
		if (!found.has(value)) found.set(value, byKey.get(keyOf(query.resource, field, value) as string) ?? []);
	}
	return found;
}
