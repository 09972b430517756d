/** What `npm run bench` measures (its arguments, sizes and repetitions) and the targets it checks. */
import { join } from 'node:path';

import { REPO_ROOT } from './common';
import type { N8nPlan } from './n8n';
import { VARIANTS, type VariantName } from './variants';

export interface Plan {
	quick: boolean;
	sizes: number[];
	/** Timed repetitions per size. */
	reps: Record<number, number>;
	conditionReps: Record<number, number>;
	/** Sizes whose peak RSS is measured; at 1,000 records RSS moves in heap-growth steps larger than the data. */
	memorySizes: number[];
	/** Requests of the second token run, where only the server clock moves. */
	tokenRequestsServerOnly: number;
	triggerEmployees: number;
	triggerChanges: number;
	triggerReps: number;
	tokenRequests: number;
	perItemItems: number;
	httpClientReps: number;
	/** The real-n8n section; undefined with --no-n8n. */
	n8n?: N8nPlan;
	/** `--n8n-only`: only the real-n8n section (a quicker way to compare n8n versions). */
	n8nOnly: boolean;
	/** `--latency`: only the latency axis inside real n8n (bench/latency.ts). */
	latencyOnly: boolean;
	/** `--import-only`: only the HR import section (bench/import.ts), printed, no file or page written. */
	importOnly: boolean;
	out: string;
}

export const LATENCY_MS = 20;
export const TOKEN_TTL_SECONDS = 60;
export const TOKEN_STEP_SECONDS = 1;
export const CONCURRENCIES = [1, 5, 10];
export const PASS_RATE = 10;
export const TARGET_WALL_RATIO = 1.2;
export const TARGET_MEMORY_RATIO = 2;
export const TARGET_PER_ITEM_OVERHEAD_MS = 2;
/** Batched Get against one request per item (issue 22): wall-time speed-ups at least these. */
export const TARGET_BATCHED_VS_CONCURRENCY_1 = 20;
export const TARGET_BATCHED_VS_CONCURRENCY_10 = 3;
export const TARGET_N8N_RATIO_SIMPLIFY_OFF = 1.0;
export const TARGET_N8N_RATIO_SIMPLIFY_ON = 1.1;
export const TARGET_N8N_GET_BY_ID_SPEED_UP = 10;
/** Every variant, or those BENCH_N8N_VARIANTS names (comma-separated keys of VARIANTS). */
export const ALL_VARIANTS = ((): VariantName[] => {
	const every = Object.keys(VARIANTS) as VariantName[];
	const wanted = process.env.BENCH_N8N_VARIANTS?.split(',').map((name) => name.trim()).filter(Boolean);
	if (!wanted || wanted.length === 0) return every;
	const unknown = wanted.filter((name) => !every.includes(name as VariantName));
	if (unknown.length > 0) throw new Error(`BENCH_N8N_VARIANTS: unknown ${unknown.join(', ')}; expected some of ${every.join(', ')}`);
	return wanted as VariantName[];
})();
export const ARGUMENTS = ['--quick', '--out', '--no-n8n', '--n8n-only', '--latency', '--import-only'];

export function planFrom(argv: readonly string[]): Plan {
	const quick = argv.includes('--quick');
	const outAt = argv.indexOf('--out');
	const out = outAt >= 0 ? argv[outAt + 1] : join(REPO_ROOT, 'bench/results', quick ? 'quick.tmp.json' : 'latest.json');
	for (const arg of argv) {
		if (arg.startsWith('--') && !ARGUMENTS.includes(arg)) throw new Error(`unknown argument ${arg}; expected --quick, --no-n8n, --n8n-only, --latency, --import-only or --out <file>`);
	}
	const withN8n = !argv.includes('--no-n8n');
	const n8nOnly = argv.includes('--n8n-only');
	if (n8nOnly && !withN8n) throw new Error('--n8n-only and --no-n8n exclude each other');
	const plan: Omit<Plan, 'n8nOnly' | 'latencyOnly' | 'importOnly'> = quick
		? { quick, sizes: [1_000, 10_000], reps: { 1_000: 5, 10_000: 3 }, conditionReps: { 1_000: 3, 10_000: 2 }, memorySizes: [10_000], triggerEmployees: 10_000, triggerChanges: 5_000, triggerReps: 2, tokenRequests: 300, tokenRequestsServerOnly: 300, perItemItems: 1_000, httpClientReps: 2, n8n: withN8n ? { n: 10_000, reps: 1, variants: ALL_VARIANTS } : undefined, out }
		: { quick, sizes: [1_000, 10_000, 100_000], reps: { 1_000: 5, 10_000: 4, 100_000: 2 }, conditionReps: { 1_000: 3, 10_000: 3, 100_000: 2 }, memorySizes: [10_000, 100_000], triggerEmployees: 10_000, triggerChanges: 5_000, triggerReps: 3, tokenRequests: 1_000, tokenRequestsServerOnly: 300, perItemItems: 1_000, httpClientReps: 5, n8n: withN8n ? { n: 10_000, reps: 5, variants: ALL_VARIANTS, largeN: 100_000 } : undefined, out };
	return { ...plan, n8nOnly, latencyOnly: argv.includes('--latency'), importOnly: argv.includes('--import-only') };
}
