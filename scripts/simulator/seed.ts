import { formatMicros } from './clock';
import { condition, FIXED_CONDITIONS } from './conditionSeeds';
import * as G from './generators';
import type { GenContext, Refs, Times } from './generators';
import { hashString, Rng } from './rng';
import { Collection } from './store';
import { systemTimeType } from './systemTimeTypes';
import { RESOURCE_NAMES, type ResourceName, type SeedSizes, type SimRecord } from './types';

export type Generator = (ctx: GenContext, id: string, index: number, times: Times) => SimRecord;

export const GENERATORS: Record<ResourceName, Generator> = {
	employees: G.employee,
	employeeMappings: G.employeeMapping,
	timeReports: G.timeReport,
	orgUnits: G.orgUnit,
	competences: G.competence,
	employeeCompetences: G.employeeCompetence,
	conditions: condition,
	fileTransfers: G.fileTransfer,
	jobs: G.job,
	systemIntegrations: G.systemIntegration,
	systemTimeTypes: systemTimeType,
};

export const DEFAULT_SIZES: Readonly<Record<ResourceName, number>> = {
	systemIntegrations: G.INTEGRATIONS.length,
	orgUnits: 30,
	employees: 250,
	employeeMappings: 150,
	timeReports: 400,
	competences: 25,
	employeeCompetences: 300,
	conditions: FIXED_CONDITIONS.length,
	fileTransfers: 6,
	jobs: 10,
	systemTimeTypes: 6,
};

/** Seeding order: referenced collections first. */
const SEED_ORDER: readonly ResourceName[] = [
	'systemIntegrations', 'orgUnits', 'employees', 'employeeMappings', 'timeReports', 'competences',
	'employeeCompetences', 'conditions', 'fileTransfers', 'jobs', 'systemTimeTypes',
];

export type Collections = Record<ResourceName, Collection>;

export function createCollections(): Collections {
	const entries = RESOURCE_NAMES.map((name) => [name, new Collection(name)] as const);
	return Object.fromEntries(entries) as Collections;
}

export function refsOf(collections: Collections): Refs {
	return {
		employees: collections.employees.all().map((r) => r.id),
		orgUnits: collections.orgUnits.all().map((r) => r.id),
		competences: collections.competences.all().map((r) => r.id),
		integrations: collections.systemIntegrations.all(),
	};
}

/**
 * Past timestamps for seeded records: inserted within two years, updated between then and now.
 * About 3 % share one "import burst" timestamp, so ties on updated_at exist in the data.
 */
function pastTimes(rng: Rng, nowMicros: number, burstMicros: number): Times {
	const inserted = nowMicros - rng.int(3600, 730 * 86400) * 1_000_000 - rng.int(0, 999_999);
	const updated = rng.chance(0.03) && burstMicros > inserted ? burstMicros : inserted + Math.floor(rng.next() * (nowMicros - inserted - 1_000_000));
	return { inserted_at: formatMicros(inserted), updated_at: formatMicros(updated) };
}

export interface SeedOptions {
	seed: number;
	sizes: SeedSizes;
	nowMicros: number;
	orgId: string;
	/** The generator of each collection (GENERATORS, with the employee schema's employees). */
	generators: Readonly<Record<ResourceName, Generator>>;
}

/** Fills all collections deterministically from the seed; each collection has its own stream. */
export function seedAll(collections: Collections, options: SeedOptions): void {
	const sizes = { ...DEFAULT_SIZES, ...options.sizes };
	const today = formatMicros(options.nowMicros).slice(0, 10);
	const burst = options.nowMicros - 3 * 86400 * 1_000_000 - 123_457;
	for (const name of RESOURCE_NAMES) collections[name].clear();
	for (const name of SEED_ORDER) {
		const rng = new Rng(options.seed ^ hashString(name));
		const ids = Array.from({ length: sizes[name] }, () => rng.uuid());
		const refs = refsOf(collections);
		// Employees reference other employees (managers), so their own ids are known up front.
		const ctx: GenContext = { rng, orgId: options.orgId, today, refs: name === 'employees' ? { ...refs, employees: ids } : { ...refs, orgUnits: name === 'orgUnits' ? ids : refs.orgUnits } };
		const records = ids.map((id, index) => options.generators[name](ctx, id, index, pastTimes(rng, options.nowMicros, burst)));
		collections[name].load(records);
	}
}
