/**
 * The latency axis of the benchmark: the same work inside real n8n with latency (and jitter) added
 * to every API request, as a customer 20 or 150 ms away sees it, each Personnel Data variant paired
 * with the HTTP Request node(s) doing the same work in the same repetition.
 *
 * `npm run bench -- --latency` runs it alone and writes bench/results/latency.json and latency.md
 * (BENCH_LATENCIES=0,20,150, BENCH_LATENCY_REPS=5, BENCH_N8N_KEY as for the other real-n8n runs).
 * Then Return All of a large list (BENCH_LATENCY_LARGE=100000 records, 0 to skip) at
 * BENCH_LATENCY_LARGE_AT=150 ms, with and without an order, the same repetitions.
 */
import type { N8nUserFolder } from '../scripts/n8n/driver';
import type { SimulatorClient } from '../scripts/simulator/client';
import { PAGE_SIZE_MAX } from '../nodes/shared/apiChoices';
import { LIST_REQUESTS_IN_FLIGHT, VALUES_PER_REQUEST } from '../nodes/PersonnelData/actions/read/recordsWhere';
import { MAX_IN_FLIGHT_DEFAULT } from '../nodes/shared/rangeWorth';
import { median } from './common';
import type { N8nOutcome, N8nRun, VariantName } from './variants';
import { GET_BY_ID_ITEMS, JITTER_SHARE, VARIANTS } from './variants';

export const DEFAULT_LATENCIES = [0, 20, 150];
/** Which HTTP Request variant each Personnel Data variant is compared with. */
export const PAIRS: Array<[VariantName, VariantName]> = [
	['pdOrdered', 'http'],
	['pdSimplifyOn', 'http'],
	['pdOrderedByName', 'http'],
	['pdGetById', 'httpGetById'],
];

/** The large list: Return All only (Get by ID reads the first 1,000 ids of the small list). */
export const LARGE_DEFAULT = { n: 100_000, latencies: [150], variants: ['pdSimplifyOn', 'pdOrdered', 'http'] as VariantName[] };

function millisecondsFromEnv(name: string, fallback: number[]): number[] {
	const given = process.env[name]?.split(',').map((value) => Number(value.trim()));
	if (!given || given.length === 0) return fallback;
	if (given.some((value) => !Number.isFinite(value) || value < 0)) throw new Error(`${name}: expected comma-separated milliseconds, e.g. 0,20,150`);
	return given;
}

export function latenciesFromEnv(): number[] {
	return millisecondsFromEnv('BENCH_LATENCIES', DEFAULT_LATENCIES);
}

/** The large list's plan from BENCH_LATENCY_LARGE (records; 0 skips it) and BENCH_LATENCY_LARGE_AT (ms). */
export function largeFromEnv(): LatencyPlan['large'] {
	const n = Number(process.env.BENCH_LATENCY_LARGE ?? LARGE_DEFAULT.n);
	if (!Number.isInteger(n) || n < 0) throw new Error('BENCH_LATENCY_LARGE: expected a number of records, e.g. 100000 (0 skips the large list)');
	if (n === 0) return undefined;
	return { ...LARGE_DEFAULT, n, latencies: millisecondsFromEnv('BENCH_LATENCY_LARGE_AT', LARGE_DEFAULT.latencies) };
}

export interface LatencyPlan {
	latencies: number[];
	variants: VariantName[];
	reps: number;
	/** Records in the list the variants read (Get by ID reads the first 1,000 ids of it). */
	n: number;
	/** Then these variants over a larger list, at these latencies, `reps` rotations each. */
	large?: { n: number; latencies: number[]; variants: VariantName[] };
}

type RunVariant = (folder: N8nUserFolder, control: SimulatorClient, variant: VariantName) => Promise<N8nRun>;

/** Every latency, `reps` rotations of the variants each (latency 0 has no jitter); then the large list. */
export async function runLatencyAxis(plan: LatencyPlan, folder: N8nUserFolder, control: SimulatorClient, log: (message: string) => void, runVariant: RunVariant): Promise<N8nRun[]> {
	// Untimed, on loopback, before each list's first repetition: the simulator serializes each record
	// once, on its first read; without this the first variant of the first repetition alone would pay.
	const warmUp = async () => {
		await runVariant(folder, control, 'pdSimplifyOn');
		log('  warm-up: one Return All on loopback, not counted');
	};
	await warmUp();
	const runs = await rotations({ ...plan, employees: plan.n }, folder, control, log, runVariant);
	if (plan.large) {
		log(`Return All of ${plan.large.n.toLocaleString('en-US')} employees: ${plan.large.variants.join(', ')}`);
		await control.reset({ sizes: { employees: plan.large.n } });
		await warmUp();
		runs.push(...(await rotations({ ...plan.large, reps: plan.reps, employees: plan.large.n }, folder, control, log, runVariant)));
	}
	return runs;
}

async function rotations(
	plan: { latencies: number[]; variants: VariantName[]; reps: number; employees: number },
	folder: N8nUserFolder,
	control: SimulatorClient,
	log: (message: string) => void,
	runVariant: RunVariant,
): Promise<N8nRun[]> {
	const runs: N8nRun[] = [];
	for (const latencyMs of plan.latencies) {
		log(`latency ${latencyMs} ms (+ up to ${Math.round(latencyMs * JITTER_SHARE)} ms jitter), ${plan.employees.toLocaleString('en-US')} employees: ${plan.reps} × ${plan.variants.length} executions`);
		await control.setFaults({ latencyMs, jitterMs: latencyMs * JITTER_SHARE, applyToProvisioning: false });
		try {
			for (let rep = 0; rep < plan.reps; rep++) {
				for (const variant of plan.variants.map((_, i) => plan.variants[(i + rep) % plan.variants.length])) {
					const run = { ...(await runVariant(folder, control, variant)), latencyMs, employees: plan.employees };
					log(`  ${latencyMs} ms, rep ${rep + 1}: ${variant} ${Math.round(run.executionMs)} ms, ${run.items} items, ${run.requests} requests`);
					runs.push(run);
				}
			}
		} finally {
			await control.clearFaults();
		}
	}
	return runs;
}

/**
 * The round trips the floor needs for a case at the defaults: the pages (or list requests) it
 * takes, as many at once as the node may send, plus one to learn where the listing ends (Return
 * All in ranges). One cursor (an order of the user's) can do no better than one round trip a page.
 */
export function floorRoundTrips(variant: VariantName, employees: number): number | undefined {
	const pages = Math.ceil(employees / PAGE_SIZE_MAX);
	if (variant === 'pdSimplifyOn' || variant === 'pdOrdered') return 1 + Math.ceil(pages / MAX_IN_FLIGHT_DEFAULT);
	if (variant === 'pdOrderedByName') return pages;
	if (variant === 'pdGetById') return Math.ceil(Math.ceil(GET_BY_ID_ITEMS / VALUES_PER_REQUEST) / LIST_REQUESTS_IN_FLIGHT);
	return undefined;
}

/** The floor's column: its round trips and what they cost at this latency (the node's own work not counted). */
function floorCell(figure: LatencyFigure): string {
	const trips = floorRoundTrips(figure.variant, figure.variant === 'pdGetById' ? GET_BY_ID_ITEMS : (figure.employees ?? 0));
	if (trips === undefined) return '—';
	return figure.latencyMs === 0 ? `${trips}` : `${trips} (${trips * figure.latencyMs} ms)`;
}

const fixed = (value: number, digits = 2): string => (Number.isFinite(value) ? value.toFixed(digits) : '—');
const table = (headers: string[], rows: string[][]): string =>
	[`| ${headers.join(' | ')} |`, `| ${headers.map(() => '---').join(' | ')} |`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');

export interface LatencyFigure {
	n8nVersion: string;
	latencyMs: number;
	/** Records in the list (absent in results from before the large list). */
	employees?: number;
	variant: VariantName;
	reference: VariantName;
	/** Paired: each repetition's node time ÷ the reference's node time in the same repetition. */
	ratio: { median: number; min: number; max: number };
	nodeMs: number;
	referenceMs: number;
	requests: number;
	reps: number;
}

/** Paired medians per version, latency and pair (the runs of one repetition sit in order). */
export function latencyFigures(outcomes: readonly N8nOutcome[]): LatencyFigure[] {
	const figures: LatencyFigure[] = [];
	for (const outcome of outcomes) {
		if (outcome.kind !== 'n8n' || !outcome.latencyRuns) continue;
		// One group per list size and latency, in the order they ran.
		const groups = new Map<string, N8nRun[]>();
		for (const run of outcome.latencyRuns) {
			const group = `${run.employees ?? 0}/${run.latencyMs ?? 0}`;
			groups.set(group, [...(groups.get(group) ?? []), run]);
		}
		for (const at of groups.values()) {
			const { employees, latencyMs = 0 } = at[0];
			for (const [variant, reference] of PAIRS) {
				const mine = at.filter((run) => run.variant === variant);
				const theirs = at.filter((run) => run.variant === reference);
				const pairs = Math.min(mine.length, theirs.length);
				if (pairs === 0) continue;
				const ratios = Array.from({ length: pairs }, (_, index) => mine[index].nodeMs / theirs[index].nodeMs);
				figures.push({
					n8nVersion: outcome.n8nVersion,
					latencyMs,
					employees,
					variant,
					reference,
					ratio: { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) },
					nodeMs: median(mine.map((run) => run.nodeMs)),
					referenceMs: median(theirs.map((run) => run.nodeMs)),
					requests: mine[mine.length - 1].requests,
					reps: pairs,
				});
			}
		}
	}
	return figures;
}

/** Issue 38's targets at 150 ms: ratios against the HTTP Request node(s) in the same n8n and run. */
export const LATENCY_TARGETS = { atMs: 150, getById: 0.3, firstImport: 1.2 };
/**
 * Issue 44's targets for Return All of 10,000 at the defaults (no order), per latency: 0.5× at
 * 20 ms, 0.15× at 150 ms, and on loopback no worse than before it (0.73× on n8n 2.8.4).
 */
export const RETURN_ALL_TARGETS: Record<number, number> = { 0: 0.73, 20: 0.5, 150: 0.15 };
/** Issue 44's target for Return All of the large list (100,000) at the defaults, 150 ms away. */
export const LARGE_RETURN_ALL_TARGET = { atMs: 150, most: 0.1 };
/** The first import closer to the server: no worse than before issue 38 (0 and 20 ms). */
export const FIRST_IMPORT_BEFORE: Record<number, number> = { 0: 0.36, 20: 0.38 };

/** The targets table's rows: each measured figure the targets name, met or not. */
export function latencyTargets(figures: readonly LatencyFigure[], firstImports: ReadonlyArray<{ n8nVersion: string; latencyMs: number; ratio: number; rows: number }>): string[][] {
	const { atMs } = LATENCY_TARGETS;
	const mark = (ratio: number, most: number) => `${ratio <= most ? 'yes' : '**no**'} (${fixed(ratio)}×)`;
	const at = figures.filter((figure) => figure.latencyMs === atMs);
	return [
		...figures
			.filter((figure) => figure.variant === 'pdSimplifyOn' && figure.employees === 10_000 && RETURN_ALL_TARGETS[figure.latencyMs] !== undefined)
			.map((figure) => [`n8n ${figure.n8nVersion}: Return All of 10,000, no order, ${figure.latencyMs === 0 ? 'no latency' : `${figure.latencyMs} ms`}: ≤ ${RETURN_ALL_TARGETS[figure.latencyMs]}×`, mark(figure.ratio.median, RETURN_ALL_TARGETS[figure.latencyMs])]),
		...figures
			.filter((figure) => figure.variant === 'pdSimplifyOn' && figure.employees === LARGE_DEFAULT.n && figure.latencyMs === LARGE_RETURN_ALL_TARGET.atMs)
			.map((figure) => [`n8n ${figure.n8nVersion}: Return All of ${LARGE_DEFAULT.n.toLocaleString('en-US')}, no order, ${figure.latencyMs} ms: ≤ ${LARGE_RETURN_ALL_TARGET.most}×`, mark(figure.ratio.median, LARGE_RETURN_ALL_TARGET.most)]),
		...at.filter((figure) => figure.variant === 'pdGetById').map((figure) => [`n8n ${figure.n8nVersion}: Get by ID of ${GET_BY_ID_ITEMS.toLocaleString('en-US')}, ${atMs} ms: ≤ ${LATENCY_TARGETS.getById}×`, mark(figure.ratio.median, LATENCY_TARGETS.getById)]),
		...firstImports.filter((each) => each.latencyMs === atMs).map((each) => [`n8n ${each.n8nVersion}: first import of ${each.rows.toLocaleString('en-US')} rows, ${atMs} ms: ≤ ${LATENCY_TARGETS.firstImport}×`, mark(each.ratio, LATENCY_TARGETS.firstImport)]),
		...firstImports
			.filter((each) => FIRST_IMPORT_BEFORE[each.latencyMs] !== undefined)
			.map((each) => [`n8n ${each.n8nVersion}: first import of ${each.rows.toLocaleString('en-US')} rows, ${each.latencyMs} ms: no worse than before (≤ ${FIRST_IMPORT_BEFORE[each.latencyMs]}×)`, mark(each.ratio, FIRST_IMPORT_BEFORE[each.latencyMs])]),
	];
}

export function latencyMarkdown<Import>(figures: readonly LatencyFigure[], imports: readonly Import[], importMarkdown: (outcome: Import) => string, targets: string[][] = []): string {
	const rows = figures.map((figure) => [
		figure.n8nVersion,
		figure.latencyMs === 0 ? 'none' : `${figure.latencyMs} ms (+ ≤ ${Math.round(figure.latencyMs * JITTER_SHARE)} ms jitter)`,
		figure.variant === 'pdGetById' ? `${GET_BY_ID_ITEMS.toLocaleString('en-US')} items` : figure.employees === undefined ? '—' : figure.employees.toLocaleString('en-US'),
		VARIANTS[figure.variant],
		VARIANTS[figure.reference],
		String(figure.requests),
		floorCell(figure),
		`${Math.round(figure.nodeMs)} / ${Math.round(figure.referenceMs)}`,
		`${fixed(figure.ratio.median)}× (${fixed(figure.ratio.min)}–${fixed(figure.ratio.max)})`,
		String(figure.reps),
	]);
	return [
		'## Benchmark: latency axis (inside real n8n)',
		...(targets.length > 0 ? ['### Targets', table(['target (against the HTTP Request node(s): Return All and Get by ID as paired medians, the import as its table\'s medians)', 'met'], targets)] : []),
		'Latency (and jitter) added by the simulator to every API request, token requests excepted. Node times are the measured nodes\' `executionTime`; the ratio is paired: each repetition\'s Personnel Data time ÷ the HTTP Request node\'s in the same repetition, median (range). The floor: the round trips the case needs at the least, with the node\'s defaults (Return All: the pages, ' + `${MAX_IN_FLIGHT_DEFAULT}` + ' at once, plus one to learn where the listing ends; ordered by Last Name: one a page; Get by ID: its list requests, ' + `${LIST_REQUESTS_IN_FLIGHT}` + ' at once), and their time at the latency without jitter; the node\'s time beside it shows the gap.',
		table(['n8n', 'latency', 'employees read', 'Personnel Data variant', 'compared with', 'requests', 'floor: round trips (their latency)', 'node ms / reference ms (medians)', 'ratio, paired median (range)', 'repetitions'], rows),
		...imports.map(importMarkdown),
	].join('\n\n');
}
