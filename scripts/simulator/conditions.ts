import { hashString } from './rng';
import { isJsonObject, type Json, type JsonObject, type SimRecord } from './types';

/**
 * The simulator's condition language (`data_engine` of a condition). A rule is one of:
 * - `{"field": "<path>", "op": <op>, "value": <json>}`; ops: eq, ne, in, ends_with, starts_with,
 *   contains, gt, gte, lt, lte, is_null. A path `properties.<name>` of a dated property reads the
 *   value in force today (on the simulator clock).
 * - `{"hash": {"field": "<path>", "mod": <n>, "eq": <r>}}`: FNV-1a hash of the value modulo n.
 * - `{"all": [rules]}`, `{"any": [rules]}`, `{"not": rule}`.
 * Rules are evaluated per record for real, so a client cannot pass by ignoring the condition.
 */
export function evaluateRule(rule: Json | undefined, record: SimRecord, today: string): boolean {
	if (!isJsonObject(rule)) throw new Error('condition rule must be an object');
	if (Array.isArray(rule.all)) return rule.all.every((r) => evaluateRule(r, record, today));
	if (Array.isArray(rule.any)) return rule.any.some((r) => evaluateRule(r, record, today));
	if (rule.not !== undefined) return !evaluateRule(rule.not, record, today);
	if (isJsonObject(rule.hash)) return evaluateHash(rule.hash, record, today);
	if (typeof rule.field === 'string' && typeof rule.op === 'string') {
		return evaluateComparison(rule.op, resolvePath(record, rule.field, today), rule.value ?? null);
	}
	throw new Error(`unsupported condition rule ${JSON.stringify(rule)}`);
}

function evaluateHash(spec: JsonObject, record: SimRecord, today: string): boolean {
	const value = typeof spec.field === 'string' ? resolvePath(record, spec.field, today) : null;
	const mod = typeof spec.mod === 'number' ? spec.mod : 1;
	const eq = typeof spec.eq === 'number' ? spec.eq : 0;
	return hashString(JSON.stringify(value)) % mod === eq;
}

function evaluateComparison(op: string, actual: Json, expected: Json): boolean {
	switch (op) {
		case 'eq':
			return actual === expected;
		case 'ne':
			return actual !== expected;
		case 'is_null':
			return (actual === null) === (expected !== false);
		case 'in':
			return Array.isArray(expected) && expected.includes(actual);
		case 'ends_with':
			return typeof actual === 'string' && typeof expected === 'string' && actual.toLowerCase().endsWith(expected.toLowerCase());
		case 'starts_with':
			return typeof actual === 'string' && typeof expected === 'string' && actual.toLowerCase().startsWith(expected.toLowerCase());
		case 'contains':
			return typeof actual === 'string' && typeof expected === 'string' && actual.toLowerCase().includes(expected.toLowerCase());
		default:
			return compareOrdered(op, actual, expected);
	}
}

function compareOrdered(op: string, actual: Json, expected: Json): boolean {
	const comparable =
		(typeof actual === 'number' && typeof expected === 'number') ||
		(typeof actual === 'string' && typeof expected === 'string');
	if (!comparable) return false;
	const a = actual as number | string;
	const e = expected as number | string;
	switch (op) {
		case 'gt':
			return a > e;
		case 'gte':
			return a >= e;
		case 'lt':
			return a < e;
		case 'lte':
			return a <= e;
		default:
			throw new Error(`unsupported condition operator ${op}`);
	}
}

/** Reads `a.b.c`; a dated array met on the way is replaced by its value in force at `today`. */
export function resolvePath(record: SimRecord, path: string, today: string): Json {
	let current: Json = record;
	for (const segment of path.split('.')) {
		if (!isJsonObject(current)) return null;
		current = current[segment] ?? null;
		if (isDatedArray(current)) current = valueInForce(current, today);
	}
	return current;
}

function isDatedArray(value: Json): value is JsonObject[] {
	return Array.isArray(value) && value.length > 0 && value.every((e) => isJsonObject(e) && 'valid_from' in e);
}

/** The entry with the latest `valid_from` not after today; a null `valid_from` is "since always". */
export function valueInForce(entries: readonly JsonObject[], today: string): Json {
	let best: JsonObject | null = null;
	let bestFrom = '';
	for (const entry of entries) {
		const from = entry.valid_from;
		const key = typeof from === 'string' ? from : '';
		if (key > today) continue;
		if (best === null || key > bestFrom) {
			best = entry;
			bestFrom = key;
		}
	}
	return best?.value ?? null;
}
