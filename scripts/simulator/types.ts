/** Shared types of the Personnel Data API simulator. */

export type Json = string | number | boolean | null | Json[] | JsonObject;
export interface JsonObject {
	[key: string]: Json;
}

/** Every stored record is a JSON object with a uuid `id`. */
export type SimRecord = JsonObject & { id: string };

export type Role = 'admin' | 'limited';

/** Kinds of bearer token, as recorded in the request log. */
export type TokenKind = 'access' | 'legacy' | 'none' | 'invalid';

// The spec's Domain enumeration, shared with the package's registry (one list of the spec's values).
export { DOMAINS, type Domain } from '../../nodes/shared/registry/types';

/** Names of the simulator's collections, used by the control API. */
export const RESOURCE_NAMES = [
	'employees',
	'employeeMappings',
	'timeReports',
	'orgUnits',
	'competences',
	'employeeCompetences',
	'conditions',
	'fileTransfers',
	'jobs',
	'systemIntegrations',
	'systemTimeTypes',
] as const;
export type ResourceName = (typeof RESOURCE_NAMES)[number];

export type SeedSizes = Partial<Record<ResourceName, number>>;

export function isResourceName(value: string): value is ResourceName {
	return (RESOURCE_NAMES as readonly string[]).includes(value);
}

export function isJsonObject(value: unknown): value is JsonObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}
