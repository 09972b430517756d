import { createHash } from 'node:crypto';
import type { IDataObject, ILoadOptionsFunctions } from 'n8n-workflow';

import { QUERY } from '../apiChoices';
import { isDatedArray } from '../datedValues';
import type { FieldType, ResourceDefinition } from '../registry';
import { baseUrlOf } from '../transport/baseUrl';
import type { ApiRequest } from '../transport';
import { apiRequest, CREDENTIAL_TYPE } from '../transport';
import { checkValue } from '../validation';

/**
 * The spec leaves the fields of most resources "not shown" and lets each customer map its own
 * data, so the form asks the customer's records which fields they have: a few records of the
 * resource are read with the user's credential and their keys become choices next to the
 * registry's (see ./choices.ts). This only ever runs while the form is open (load-options
 * methods), never while a workflow executes.
 */

/** Records read per sample: enough to see fields that are null on one record. */
export const SAMPLE_SIZE = 5;
/** How long one sample serves the form (every field picker of an open form asks for it). */
const SAMPLE_TTL_MS = 60_000;
const SAMPLE_CACHE_MAX = 50;

export interface DiscoveredFields {
	/** Whether records were read; false: no records, no permission or no answer, so only the registry counts. */
	sampled: boolean;
	/** Top-level keys of the records, with the type their values showed (undefined: only nulls or mixed). */
	fields: ReadonlyMap<string, FieldType | undefined>;
	/** Keys of `properties` that held dated values `[{ valid_from, value }]`, with the type of those values. */
	datedProperties: ReadonlyMap<string, FieldType | undefined>;
}

export const NOTHING_DISCOVERED: DiscoveredFields = { sampled: false, fields: new Map(), datedProperties: new Map() };

/** The most specific type a value shows; the checks of ../validation decide what a date or UUID is. */
function typeOfValue(value: unknown): FieldType | undefined {
	if (value === null || value === undefined) return undefined;
	if (Array.isArray(value)) return 'array';
	if (typeof value === 'number') return 'number';
	if (typeof value === 'boolean') return 'boolean';
	if (typeof value === 'object') return 'object';
	const text = String(value);
	for (const type of ['uuid', 'date', 'dateTime'] as const) if (checkValue({ type }, text) !== undefined) return type;
	return 'string';
}

/** Collects the types seen per key; one type seen is the observation, several or none say nothing. */
class Observations {
	private readonly seen = new Map<string, Set<FieldType>>();

	note(key: string, value: unknown): void {
		const types = this.seen.get(key) ?? new Set<FieldType>();
		const type = typeOfValue(value);
		if (type) types.add(type);
		this.seen.set(key, types);
	}

	result(): Map<string, FieldType | undefined> {
		const result = new Map<string, FieldType | undefined>();
		for (const [key, types] of this.seen) result.set(key, types.size === 1 ? [...types][0] : undefined);
		return result;
	}
}

const isObject = (value: unknown): value is IDataObject => value !== null && typeof value === 'object' && !Array.isArray(value);

/** What a page of records shows; anything that is not a list of objects shows nothing. */
export function observeRecords(records: unknown): DiscoveredFields {
	if (!Array.isArray(records) || records.length === 0 || !records.every(isObject)) return NOTHING_DISCOVERED;
	const fields = new Observations();
	const dated = new Observations();
	for (const record of records) {
		for (const [key, value] of Object.entries(record)) fields.note(key, value);
		if (!isObject(record.properties)) continue;
		for (const [key, value] of Object.entries(record.properties)) {
			if (!isDatedArray(value)) continue;
			for (const entry of value) dated.note(key, entry.value);
		}
	}
	return { sampled: true, fields: fields.result(), datedProperties: dated.result() };
}

interface Sample {
	fields: DiscoveredFields;
	/** False when the request failed: such a sample is not kept, the next picker tries again. */
	answered: boolean;
}

async function readSample(context: ILoadOptionsFunctions, resource: ResourceDefinition): Promise<Sample> {
	if (!resource.paths.list) return { fields: NOTHING_DISCOVERED, answered: true };
	try {
		const page = await apiRequest.call<ILoadOptionsFunctions, [ApiRequest], Promise<unknown>>(context, {
			method: 'GET',
			path: resource.paths.list,
			query: { [QUERY.first]: SAMPLE_SIZE },
			expect: 'list',
		});
		return { fields: observeRecords(isObject(page) ? page.data : undefined), answered: true };
	} catch {
		// No permission, no answer or a broken one: the form still offers the registry's fields,
		// and any other field can be given by name.
		return { fields: NOTHING_DISCOVERED, answered: false };
	}
}

const samples = new Map<string, { at: number; sample: Promise<Sample> }>();

/** One cache entry per credential (its settings hashed: no secret is kept) and resource. */
async function sampleKey(context: ILoadOptionsFunctions, resource: ResourceDefinition): Promise<string> {
	const credentials = await context.getCredentials(CREDENTIAL_TYPE);
	const identity = [baseUrlOf(credentials), credentials.authMode, credentials.jti, credentials.legacyToken].map(String).join('\n');
	return `${createHash('sha256').update(identity).digest('hex')}:${resource.value}`;
}

/**
 * The fields the customer's records show for `resource`. Every field picker of an open form asks,
 * so one sample (one request) serves them all for a minute; pickers that ask at the same moment
 * share the request in flight.
 */
export async function discoverFields(context: ILoadOptionsFunctions, resource: ResourceDefinition): Promise<DiscoveredFields> {
	let key: string;
	try {
		key = await sampleKey(context, resource);
	} catch {
		return NOTHING_DISCOVERED; // no credential chosen yet
	}
	const now = Date.now();
	const cached = samples.get(key);
	if (cached && now - cached.at < SAMPLE_TTL_MS) return (await cached.sample).fields;
	const sample = readSample(context, resource);
	samples.set(key, { at: now, sample });
	if (samples.size > SAMPLE_CACHE_MAX) samples.delete(samples.keys().next().value as string);
	const { fields, answered } = await sample;
	// A failed request is not kept: the next picker (say, after the credential was fixed) tries again.
	if (!answered && samples.get(key)?.sample === sample) samples.delete(key);
	return fields;
}
