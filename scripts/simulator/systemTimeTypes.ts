import { badRequest, notFound } from './errors';
import { isUuid } from './filters';
import type { GenContext, Times } from './generators';
import type { Collection } from './store';
import { isJsonObject, type Json, type JsonObject, type SimRecord } from './types';

const WRITABLE = ['traits', 'external_type_id', 'type_code', 'type_name', 'wider_unit_type_id'];
const READ_ONLY = ['id', 'org_id', 'system_integration_id', 'source_system', 'inserted_at', 'updated_at'];
const TRAITS = ['comment_as_child_name', 'enabled', 'must_be_full_day'];

/** traits.unit is response-only and the spec names no values: full-day types count days. */
function unitOf(mustBeFullDay: boolean): string {
	return mustBeFullDay ? 'days' : 'hours';
}

export function systemTimeType(ctx: GenContext, id: string, index: number, times: Times): SimRecord {
	const { rng } = ctx;
	const integration = ctx.refs.integrations[index % Math.max(1, ctx.refs.integrations.length)];
	const fullDay = rng.chance(0.5);
	const code = ['VAC', 'SICK', 'VAB', 'OT', 'PARL', 'WORK'][index % 6];
	return {
		id,
		org_id: ctx.orgId,
		system_integration_id: integration?.id ?? null,
		source_system: integration ? String(integration.source_system) : null,
		external_type_id: `X-${code}-${index}`,
		type_code: `${code}${index}`,
		type_name: `${code} type ${index}`,
		wider_unit_type_id: rng.uuid(),
		traits: { comment_as_child_name: code === 'VAB', enabled: true, must_be_full_day: fullDay, unit: unitOf(fullDay) },
		inserted_at: times.inserted_at,
		updated_at: times.updated_at,
	};
}

function fieldError(path: string, reason: string, message: string): Error {
	return badRequest('body', reason, `${path}: ${message}`);
}

function validateNullableString(path: string, value: Json | undefined): void {
	if (value !== undefined && value !== null && typeof value !== 'string') {
		throw fieldError(path, 'invalid_type', 'expected a string or null');
	}
}

/** Validates the body `{data: {...}}` of a create-or-update and returns `data`. */
export function validateSystemTimeType(body: Json | undefined): JsonObject {
	if (!isJsonObject(body) || !isJsonObject(body.data)) {
		throw fieldError('data', 'missing_field', 'the body must be {"data": {...}}');
	}
	const data = body.data;
	for (const key of Object.keys(data)) {
		if (READ_ONLY.includes(key)) {
			const why = key === 'source_system' ? 'is derived from the system integration in the path and' : 'is response-only and';
			throw fieldError(`data.${key}`, 'read_only_field', `${why} cannot be supplied`);
		}
		if (!WRITABLE.includes(key)) throw fieldError(`data.${key}`, 'unknown_field', 'unknown field');
	}
	if (typeof data.type_name !== 'string' || data.type_name.trim() === '') {
		throw fieldError('data.type_name', 'missing_field', 'is required and must be a non-empty string');
	}
	validateNullableString('data.type_code', data.type_code);
	validateNullableString('data.external_type_id', data.external_type_id);
	const wider = data.wider_unit_type_id;
	if (wider !== undefined && wider !== null && (typeof wider !== 'string' || !isUuid(wider))) {
		throw fieldError('data.wider_unit_type_id', 'invalid_value', 'expected a uuid');
	}
	validateTraits(data.traits);
	return data;
}

function validateTraits(traits: Json | undefined): void {
	if (traits === undefined) return;
	if (!isJsonObject(traits)) throw fieldError('data.traits', 'invalid_type', 'expected an object');
	for (const [key, value] of Object.entries(traits)) {
		if (key === 'unit') throw fieldError('data.traits.unit', 'read_only_field', 'is response-only and cannot be supplied');
		if (!TRAITS.includes(key)) throw fieldError(`data.traits.${key}`, 'unknown_field', 'unknown trait');
		if (typeof value !== 'boolean') throw fieldError(`data.traits.${key}`, 'invalid_type', 'expected a boolean');
	}
}

export interface UpsertContext {
	types: Collection;
	integrations: Collection;
	orgId: string;
	now: string;
	newId: () => string;
}

/**
 * Creates a type, or updates the one of the same integration with the same `type_code` or
 * `external_type_id` (the spec: "the same request shape serves creating and updating").
 */
export function upsertSystemTimeType(
	ctx: UpsertContext,
	integrationId: string,
	data: JsonObject,
): { created: boolean; record: SimRecord } {
	const integration = isUuid(integrationId) ? ctx.integrations.get(integrationId.toLowerCase()) : undefined;
	if (!integration) throw notFound('system_integration_id', `system_integration_id: integration ${integrationId} does not exist`);
	const existing = findExisting(ctx.types, integration.id, data);
	const traitsIn = isJsonObject(data.traits) ? data.traits : {};
	const oldTraits = existing && isJsonObject(existing.traits) ? existing.traits : {};
	const traits = {
		comment_as_child_name: boolOr(traitsIn.comment_as_child_name, oldTraits.comment_as_child_name, false),
		enabled: boolOr(traitsIn.enabled, oldTraits.enabled, true),
		must_be_full_day: boolOr(traitsIn.must_be_full_day, oldTraits.must_be_full_day, false),
	};
	const record: SimRecord = {
		id: existing?.id ?? ctx.newId(),
		org_id: ctx.orgId,
		system_integration_id: integration.id,
		source_system: integration.source_system ?? null,
		external_type_id: pick(data, existing, 'external_type_id'),
		type_code: pick(data, existing, 'type_code'),
		type_name: data.type_name ?? null,
		wider_unit_type_id: pick(data, existing, 'wider_unit_type_id'),
		traits: { ...traits, unit: unitOf(traits.must_be_full_day) },
		inserted_at: existing?.inserted_at ?? ctx.now,
		updated_at: ctx.now,
	};
	if (existing) ctx.types.replace(record);
	else ctx.types.insert(record, false);
	return { created: !existing, record };
}

function findExisting(types: Collection, integrationId: string, data: JsonObject): SimRecord | undefined {
	const code = data.type_code;
	const external = data.external_type_id;
	return types.all().find(
		(t) =>
			t.system_integration_id === integrationId &&
			((typeof code === 'string' && t.type_code === code) ||
				(typeof external === 'string' && t.external_type_id === external)),
	);
}

function pick(data: JsonObject, existing: SimRecord | undefined, key: string): Json {
	return data[key] !== undefined ? data[key] : (existing?.[key] ?? null);
}

function boolOr(given: Json | undefined, old: Json | undefined, fallback: boolean): boolean {
	if (typeof given === 'boolean') return given;
	return typeof old === 'boolean' ? old : fallback;
}
