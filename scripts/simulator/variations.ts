/**
 * The server-variation matrix: every choice the spec leaves to a server (the README's "Choices
 * made where the spec is silent", and the other freedoms the package's code touches), as one
 * named switch each, with every legal value. The simulator reads its `ServerVariation` at each
 * answer; the first value of each switch is the simulator's historical behaviour.
 *
 * docs/server-matrix.md describes each switch and what the package does under each value.
 */
import { Rng } from './rng';

export const VARIATION_SWITCHES = {
	/** Gap: where records whose order field is empty (null) sort. SQL's NULLS LAST/FIRST, either way. */
	emptyValuesSort: ['lowest', 'highest', 'firstAlways', 'lastAlways'],
	/** Gap: where `total_count` lives, if anywhere (the spec promises none). */
	totalCount: ['inPagination', 'topLevel', 'absent'],
	/** Gap: the precision the server keeps and writes its timestamps with. */
	timestampPrecision: ['microseconds', 'milliseconds', 'seconds'],
	/** Gap: how the server writes UTC. */
	timestampOffset: ['Z', '+00:00'],
	/** Gap: the page size without `pagination[first]`. */
	defaultPageSize: [20, 10, 100],
	/** "Capped at 100 unless otherwise specified": a server may cap lower. */
	maxPageSize: [100, 50],
	/** Gap: the order of records sharing one value of the order field. */
	sameValueOrder: ['byId', 'insertion', 'randomPerWalk'],
	/** The spec says "uuid", not which letter case. */
	uuidCase: ['lower', 'upper'],
	/** A newer server version may add fields the package does not know. */
	unknownFields: ['none', 'present'],
	/** Optional fields without a value: `null`, or left out. */
	emptyOptionalFields: ['null', 'absent'],
	/** Gap: which filters and orders each list accepts (a 400 otherwise). */
	listParameters: ['asRegistry', 'idAndTimestampsOnly'],
	/** Gap: whether `filters[<field>][op]=in` is accepted (a 400 otherwise). */
	inOperator: ['accepted', 'refused'],
	/** Single-record answers `{data}`, or with siblings the spec does not forbid. */
	singleRecordEnvelope: ['data', 'dataWithMeta'],
	/** The spec gives time reports no `updated_at`; a server may send one. */
	timeReportUpdatedAt: ['absent', 'present'],
	/** The spec gives employees no `deleted_at`; a server may mark deletions with it. */
	employeeDeletedAt: ['absent', 'present'],
	/** Gap: whether PATCH merges the keys of `custom_properties` into the stored object, or replaces the object whole. */
	customPropertiesPatch: ['merge', 'replace'],
	/** Gap: what PUT does with a dated property it is given: replaces its history, or adds the entries by date and keeps the others. */
	putDatedProperties: ['replace', 'mergeByDate'],
	/** The Date header (RFC 9110 asks for one): the clock the server writes timestamps with, another machine's an hour ahead, or none. */
	dateHeader: ['clock', 'aheadOneHour', 'absent'],
} as const;

export type SwitchName = keyof typeof VARIATION_SWITCHES;
export type ServerVariation = { -readonly [K in SwitchName]: (typeof VARIATION_SWITCHES)[K][number] };

export const SWITCH_NAMES = Object.keys(VARIATION_SWITCHES) as SwitchName[];

/** The simulator's behaviour before the matrix: the first value of every switch. */
export const DEFAULT_VARIATION: ServerVariation = Object.fromEntries(
	SWITCH_NAMES.map((name) => [name, VARIATION_SWITCHES[name][0]]),
) as ServerVariation;

export function variationOf(patch: Partial<ServerVariation> = {}): ServerVariation {
	for (const [name, value] of Object.entries(patch)) {
		const legal = VARIATION_SWITCHES[name as SwitchName] as readonly unknown[] | undefined;
		if (!legal) throw new Error(`unknown server variation switch "${name}"; known: ${SWITCH_NAMES.join(', ')}`);
		if (!legal.includes(value)) throw new Error(`${name}: ${JSON.stringify(value)} is not one of ${legal.join(', ')}`);
	}
	return { ...DEFAULT_VARIATION, ...patch };
}

/** `name=value,name=value` (only the switches off their default): how a profile is printed and replayed. */
export function describeVariation(variation: ServerVariation): string {
	const changed = SWITCH_NAMES.filter((name) => variation[name] !== DEFAULT_VARIATION[name]);
	return changed.length === 0 ? 'default' : changed.map((name) => `${name}=${variation[name]}`).join(',');
}

export function parseVariation(text: string): ServerVariation {
	if (text.trim() === '' || text.trim() === 'default') return variationOf();
	const patch: Record<string, string | number> = {};
	for (const pair of text.split(',')) {
		const [name, value] = pair.split('=').map((part) => part.trim());
		patch[name] = /^\d+$/.test(value) ? Number(value) : value;
	}
	return variationOf(patch as Partial<ServerVariation>);
}

/**
 * A sample of the product of the switches that can affect the suites in `relevant`: every value
 * of every switch appears at least once (a covering walk), then random profiles up to `count`.
 * Seeded, so the printed seed replays the sample.
 */
export function sampleVariations(seed: number, count: number, relevant: readonly SwitchName[] = SWITCH_NAMES): ServerVariation[] {
	const rng = new Rng(seed);
	const widest = Math.max(...relevant.map((name) => VARIATION_SWITCHES[name].length));
	const profiles: ServerVariation[] = [];
	for (let i = 0; i < Math.max(count, widest); i++) {
		const patch: Record<string, unknown> = {};
		for (const name of relevant) {
			const values = VARIATION_SWITCHES[name] as readonly unknown[];
			// The first `widest` profiles take each value in turn (shuffled by the seed), so none is missed.
			patch[name] = i < widest ? values[(i + rng.int(0, values.length - 1)) % values.length] : rng.pick(values);
		}
		profiles.push(variationOf(patch as Partial<ServerVariation>));
	}
	return ensureEveryValue(profiles, relevant);
}

/** Puts a value no profile took yet into a profile, so every value of every switch is run. */
function ensureEveryValue(profiles: ServerVariation[], relevant: readonly SwitchName[]): ServerVariation[] {
	relevant.forEach((name, offset) => {
		(VARIATION_SWITCHES[name] as readonly unknown[]).forEach((value, index) => {
			if (profiles.some((profile) => profile[name] === value)) return;
			const target = profiles[(index + offset) % profiles.length];
			(target as Record<string, unknown>)[name] = value;
		});
	});
	return profiles;
}

/** The seed of a sampled run: `SERVER_MATRIX_SEED` replays one, otherwise a new one each run. */
export function matrixSeed(): number {
	const given = process.env.SERVER_MATRIX_SEED;
	return given !== undefined && given !== '' ? Number(given) : Math.floor(Math.random() * 2 ** 31);
}

/** `SERVER_MATRIX_PROFILE=<name=value,...>` runs one profile only (what a failure printed). */
export function matrixProfiles(seed: number, count: number, relevant: readonly SwitchName[]): ServerVariation[] {
	const one = process.env.SERVER_MATRIX_PROFILE;
	if (one !== undefined && one !== '') return [parseVariation(one)];
	const size = Number(process.env.SERVER_MATRIX_SIZE ?? count);
	return sampleVariations(seed, size, relevant);
}
