/**
 * The latency axis of the benchmark: the same work inside real n8n with latency (and jitter) added
 * to every API request, as a customer 20 or 150 ms away sees it, each Personnel Data variant paired
 * with the HTTP Request node(s) doing the same work in the same repetition.
 *
 * `npm run bench -- --latency` runs it alone and writes bench/results/latency.json and latency.md
 * (BENCH_LATENCIES=0,20,150, BENCH_LATENCY_REPS=5, BENCH_N8N_KEY as for the other real-n8n runs).
 */
import type { N8nUserFolder } from '../scripts/n8n/driver';
import type { SimulatorClient } from '../scripts/simulator/client';
import { median } from './common';
import type { N8nOutcome, N8nRun, VariantName } from './variants';
import { JITTER_SHARE, VARIANTS } from './variants';

export const DEFAULT_LATENCIES = [0, 20, 150];
/** Which HTTP Request variant each Personnel Data variant is compared with. */
export const PAIRS: Array<[VariantName, VariantName]> = [
	['pdOrdered', 'http'],
	['pdSimplifyOn', 'http'],
	['pdOrderedByName', 'http'],
	['pdGetById', 'httpGetById'],
];

export function latenciesFromEnv(): number[] {
	const given = process.env.BENCH_LATENCIES?.split(',').map((value) => Number(value.trim()));
	if (!given || given.length === 0) return DEFAULT_LATENCIES;
	if (given.some((value) => !Number.isFinite(value) || value < 0)) throw new Error('BENCH_LATENCIES: expected comma-separated milliseconds, e.g. 0,20,150');
	return given;
}

type RunVariant = (folder: N8nUserFolder, control: SimulatorClient, variant: VariantName) => Promise<N8nRun>;

/** Every latency, `reps` rotations of the variants each; latency 0 has no jitter. */
export async function runLatencyAxis(
	plan: { latencies: number[]; variants: VariantName[]; reps: number },
	folder: N8nUserFolder,
	control: SimulatorClient,
	log: (message: string) => void,
	runVariant: RunVariant,
): Promise<N8nRun[]> {
	const runs: N8nRun[] = [];
	for (const latencyMs of plan.latencies) {
		log(`latency ${latencyMs} ms (+ up to ${Math.round(latencyMs * JITTER_SHARE)} ms jitter): ${plan.reps} × ${plan.variants.length} executions`);
		await control.setFaults({ latencyMs, jitterMs: latencyMs * JITTER_SHARE, applyToProvisioning: false });
		try {
			for (let rep = 0; rep < plan.reps; rep++) {
				for (const variant of plan.variants.map((_, i) => plan.variants[(i + rep) % plan.variants.length])) {
					const run = { ...(await runVariant(folder, control, variant)), latencyMs };
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

const fixed = (value: number, digits = 2): string => (Number.isFinite(value) ? value.toFixed(digits) : '—');
const table = (headers: string[], rows: string[][]): string =>
	[`| ${headers.join(' | ')} |`, `| ${headers.map(() => '---').join(' | ')} |`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');

export interface LatencyFigure {
	n8nVersion: string;
	latencyMs: number;
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
		for (const latencyMs of [...new Set(outcome.latencyRuns.map((run) => run.latencyMs ?? 0))]) {
			const at = outcome.latencyRuns.filter((run) => (run.latencyMs ?? 0) === latencyMs);
			for (const [variant, reference] of PAIRS) {
				const mine = at.filter((run) => run.variant === variant);
				const theirs = at.filter((run) => run.variant === reference);
				const pairs = Math.min(mine.length, theirs.length);
				if (pairs === 0) continue;
				const ratios = Array.from({ length: pairs }, (_, index) => mine[index].nodeMs / theirs[index].nodeMs);
				figures.push({
					n8nVersion: outcome.n8nVersion,
					latencyMs,
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

export function latencyMarkdown<Import>(figures: readonly LatencyFigure[], imports: readonly Import[], importMarkdown: (outcome: Import) => string): string {
	const rows = figures.map((figure) => [
		figure.n8nVersion,
		figure.latencyMs === 0 ? 'none' : `${figure.latencyMs} ms (+ ≤ ${Math.round(figure.latencyMs * JITTER_SHARE)} ms jitter)`,
		VARIANTS[figure.variant],
		VARIANTS[figure.reference],
		String(figure.requests),
		`${Math.round(figure.nodeMs)} / ${Math.round(figure.referenceMs)}`,
		`${fixed(figure.ratio.median)}× (${fixed(figure.ratio.min)}–${fixed(figure.ratio.max)})`,
		String(figure.reps),
	]);
	return [
		'## Benchmark: latency axis (inside real n8n)',
		'Latency (and jitter) added by the simulator to every API request, token requests excepted. Node times are the measured nodes\' `executionTime`; the ratio is paired: each repetition\'s Personnel Data time ÷ the HTTP Request node\'s in the same repetition, median (range).',
		table(['n8n', 'latency', 'Personnel Data variant', 'compared with', 'requests', 'node ms / reference ms (medians)', 'ratio, paired median (range)', 'repetitions'], rows),
		...imports.map(importMarkdown),
	].join('\n\n');
}
