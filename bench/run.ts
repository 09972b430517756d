/**
 * `npm run bench [-- --quick] [-- --out <file>]`
 *
 * Starts the simulator in its own process (scripts/simulator/cli.ts) and runs every measurement in a
 * fresh worker process (bench/worker.ts), then prints Markdown tables and writes the same figures
 * as JSON: bench/results/latest.json (full run) or bench/results/quick.tmp.json (--quick).
 * Times are compared only as ratios taken in the same worker, raw loop and node alternating.
 */
import { cpus, loadavg } from 'node:os';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

import { PAGE_SIZE_MAX } from '../nodes/shared/apiChoices';
import { listRequestsInFlight } from '../nodes/PersonnelData/actions/read/recordsWhere';
import { SimulatorClient } from '../scripts/simulator/client';
import {
	HTTP_CLIENTS,
	REPO_ROOT,
	median,
	runWorker,
	startSimulatorProcess,
	type HttpClientsResult,
	type MemoryResult,
	type PerItemResult,
	type ReturnAllResult,
	type SimulatorSource,
	type TokensResult,
	type TriggerResult,
} from './common';
import { writeBlock } from '../scripts/docs/generatedBlock';
import { BENCHMARK_BLOCK, BENCHMARK_PAGE } from './page';
import { importMarkdown, importTargets, runImportSection, type ImportOutcome } from './import';
import { latenciesFromEnv, latencyFigures, latencyMarkdown } from './latency';
import { GET_BY_ID_ITEMS, VARIANTS, isGetById, n8nFigures, n8nSectionKeys, runN8nSection, type N8nFigures, type N8nOutcome, type N8nPlan, type Spread, type VariantName } from './n8n';


interface Plan {
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
	out: string;
}

const LATENCY_MS = 20;
const TOKEN_TTL_SECONDS = 60;
const TOKEN_STEP_SECONDS = 1;
const CONCURRENCIES = [1, 5, 10];
const PASS_RATE = 10;
const TARGET_WALL_RATIO = 1.2;
const TARGET_MEMORY_RATIO = 2;
const TARGET_PER_ITEM_OVERHEAD_MS = 2;
/** Batched Get against one request per item (issue 22): wall-time speed-ups at least these. */
const TARGET_BATCHED_VS_CONCURRENCY_1 = 20;
const TARGET_BATCHED_VS_CONCURRENCY_10 = 3;
const TARGET_N8N_RATIO_SIMPLIFY_OFF = 1.0;
const TARGET_N8N_RATIO_SIMPLIFY_ON = 1.1;
const TARGET_N8N_GET_BY_ID_SPEED_UP = 10;
/** Every variant, or those BENCH_N8N_VARIANTS names (comma-separated keys of VARIANTS). */
const ALL_VARIANTS = ((): VariantName[] => {
	const every = Object.keys(VARIANTS) as VariantName[];
	const wanted = process.env.BENCH_N8N_VARIANTS?.split(',').map((name) => name.trim()).filter(Boolean);
	if (!wanted || wanted.length === 0) return every;
	const unknown = wanted.filter((name) => !every.includes(name as VariantName));
	if (unknown.length > 0) throw new Error(`BENCH_N8N_VARIANTS: unknown ${unknown.join(', ')}; expected some of ${every.join(', ')}`);
	return wanted as VariantName[];
})();
const ARGUMENTS = ['--quick', '--out', '--no-n8n', '--n8n-only', '--latency'];

function planFrom(argv: readonly string[]): Plan {
	const quick = argv.includes('--quick');
	const outAt = argv.indexOf('--out');
	const out = outAt >= 0 ? argv[outAt + 1] : join(REPO_ROOT, 'bench/results', quick ? 'quick.tmp.json' : 'latest.json');
	for (const arg of argv) {
		if (arg.startsWith('--') && !ARGUMENTS.includes(arg)) throw new Error(`unknown argument ${arg}; expected --quick, --no-n8n, --n8n-only, --latency or --out <file>`);
	}
	const withN8n = !argv.includes('--no-n8n');
	const n8nOnly = argv.includes('--n8n-only');
	if (n8nOnly && !withN8n) throw new Error('--n8n-only and --no-n8n exclude each other');
	const plan: Omit<Plan, 'n8nOnly' | 'latencyOnly'> = quick
		? { quick, sizes: [1_000, 10_000], reps: { 1_000: 5, 10_000: 3 }, conditionReps: { 1_000: 3, 10_000: 2 }, memorySizes: [10_000], triggerEmployees: 10_000, triggerChanges: 5_000, triggerReps: 2, tokenRequests: 300, tokenRequestsServerOnly: 300, perItemItems: 1_000, httpClientReps: 2, n8n: withN8n ? { n: 10_000, reps: 1, variants: ALL_VARIANTS } : undefined, out }
		: { quick, sizes: [1_000, 10_000, 100_000], reps: { 1_000: 5, 10_000: 4, 100_000: 2 }, conditionReps: { 1_000: 3, 10_000: 3, 100_000: 2 }, memorySizes: [10_000, 100_000], triggerEmployees: 10_000, triggerChanges: 5_000, triggerReps: 3, tokenRequests: 1_000, tokenRequestsServerOnly: 300, perItemItems: 1_000, httpClientReps: 5, n8n: withN8n ? { n: 10_000, reps: 5, variants: ALL_VARIANTS, largeN: 100_000 } : undefined, out };
	return { ...plan, n8nOnly, latencyOnly: argv.includes('--latency') };
}

/**
 * `--latency`: Return All (10,000), Get by ID (1,000) and the HR import inside real n8n at each
 * latency of BENCH_LATENCIES, paired with the HTTP Request nodes; results in bench/results/latency.*.
 */
async function runLatencyOnly(plan: Plan): Promise<void> {
	const started = performance.now();
	const sim = await startSimulatorProcess(['--employees', '1000']);
	const control = new SimulatorClient(sim.baseUrl);
	const source = { baseUrl: sim.baseUrl, jti: sim.credentials.admin.jti, refreshToken: sim.credentials.admin.refreshToken };
	const latencies = latenciesFromEnv();
	const reps = Number(process.env.BENCH_LATENCY_REPS ?? (plan.quick ? 1 : 5));
	const variants = (process.env.BENCH_N8N_VARIANTS ? ALL_VARIANTS : ['pdOrdered', 'http', 'pdGetById', 'httpGetById']) as VariantName[];
	const n8nPlan: N8nPlan = { n: 10_000, reps: 0, variants: [], latency: { latencies, variants, reps, n: 10_000 } };
	const outcomes: N8nOutcome[] = [];
	const imports: ImportOutcome[] = [];
	try {
		const keys = n8nSectionKeys();
		for (const key of keys.length > 0 ? keys : [undefined]) {
			outcomes.push(await runN8nSection(n8nPlan, source, control, log, key, false));
			if (process.env.BENCH_LATENCY_IMPORT !== '0') imports.push(await runImportSection({ reps: 0, latencyMs: 0, latencies, latencyReps: reps, key }, source, control, log));
		}
	} finally {
		await sim.stop();
	}
	const figures = latencyFigures(outcomes);
	const markdown = `${latencyMarkdown(figures, imports, importMarkdown)}\n\n${fixed((performance.now() - started) / 1000, 0)} s in all (\`npm run bench -- --latency\`, ${reps} repetition(s), latencies ${latencies.join(', ')} ms).\n`;
	process.stdout.write(markdown);
	const folder = join(REPO_ROOT, 'bench/results');
	mkdirSync(folder, { recursive: true });
	writeFileSync(join(folder, 'latency.md'), markdown);
	writeFileSync(join(folder, 'latency.json'), `${JSON.stringify({ figures, n8n: outcomes, imports }, null, 2)}\n`);
	log('bench: wrote bench/results/latency.md and bench/results/latency.json');
}

/** The real-n8n section on every version it runs on (n8nSectionKeys), or once, skipped, saying why. */
async function runN8nSections(plan: N8nPlan, source: { baseUrl: string; jti: string; refreshToken: string }, control: SimulatorClient): Promise<N8nOutcome[]> {
	const keys = n8nSectionKeys();
	if (keys.length === 0) return [await runN8nSection(plan, source, control, log)];
	const outcomes: N8nOutcome[] = [];
	for (const [index, key] of keys.entries()) {
		const outcome = await runN8nSection(plan, source, control, log, key, index === 0);
		if (outcome.kind === 'skipped') log(`real n8n (${key}): SKIPPED: ${outcome.reason}`);
		outcomes.push(outcome);
	}
	return outcomes;
}

/** Tables and targets of every real-n8n section. */
function n8nReport(outcomes: readonly N8nOutcome[]): { markdown: string[]; targets: string[][]; json: unknown[] } {
	const markdown: string[] = [];
	const targets: string[][] = [];
	const json: unknown[] = [];
	for (const outcome of outcomes) {
		const figures = outcome.kind === 'n8n' ? n8nFigures(outcome) : undefined;
		markdown.push(outcome.kind === 'n8n' && figures ? n8nMarkdown(outcome, figures) : `### Inside real n8n\n\nSkipped: ${outcome.kind === 'skipped' ? outcome.reason : ''}.`);
		targets.push(...n8nTargets(outcome, figures));
		json.push(outcome.kind === 'n8n' ? { ...outcome, figures } : outcome);
	}
	return { markdown, targets, json };
}

/** `--n8n-only`: the real-n8n section alone, its tables and targets. */
async function runN8nOnly(plan: Plan): Promise<void> {
	const started = performance.now();
	const sim = await startSimulatorProcess(['--employees', '1000']);
	const control = new SimulatorClient(sim.baseUrl);
	const source = { baseUrl: sim.baseUrl, jti: sim.credentials.admin.jti, refreshToken: sim.credentials.admin.refreshToken };
	let outcomes: N8nOutcome[];
	try {
		outcomes = await runN8nSections(plan.n8n as N8nPlan, source, control);
	} finally {
		await sim.stop();
	}
	const report = n8nReport(outcomes);
	const seconds = (performance.now() - started) / 1000;
	process.stdout.write(`## Benchmark, real n8n only (${plan.quick ? 'quick' : 'full'} run, ${new Date().toISOString().slice(0, 10)}, ${fixed(seconds, 0)} s)\n\n### Targets\n\n${table(['target', 'met'], report.targets)}\n\n${report.markdown.join('\n\n')}\n`);
	mkdirSync(dirname(plan.out), { recursive: true });
	writeFileSync(plan.out, `${JSON.stringify({ n8n: report.json, targets: Object.fromEntries(report.targets) }, null, 2)}\n`);
	log(`bench: wrote ${relative(REPO_ROOT, plan.out)}`);
}

// ---------------------------------------------------------------- formatting

const int = (value: number): string => Math.round(value).toLocaleString('en-US');
const fixed = (value: number, digits = 2): string => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const mark = (ok: boolean): string => (ok ? 'yes' : '**no**');

function table(headers: string[], rows: string[][]): string {
	return [`| ${headers.join(' | ')} |`, `| ${headers.map(() => '---').join(' | ')} |`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');
}

function log(message: string): void {
	process.stderr.write(`${message}\n`);
}

// ---------------------------------------------------------------- derived figures

interface WallFigures {
	nodeMedianMs: number;
	rawMedianMs: number;
	/** median(node) / median(raw). */
	ratio: number;
	/** min(node) / min(raw): least disturbed by other load on the machine. */
	bestRatio: number;
}

function wall(nodeMs: readonly number[], rawMs: readonly number[]): WallFigures {
	const nodeMedianMs = median(nodeMs);
	const rawMedianMs = median(rawMs);
	return { nodeMedianMs, rawMedianMs, ratio: nodeMedianMs / rawMedianMs, bestRatio: Math.min(...nodeMs) / Math.min(...rawMs) };
}

interface MemoryFigures {
	n: number;
	jsonBytesPerRecord: number;
	nodeBytesPerRecord: number;
	rawBytesPerRecord: number;
	nodeRatio: number;
	rawRatio: number;
	nodeHeapPerRecord: number;
	rawHeapPerRecord: number;
}

function memoryFigures(node: MemoryResult, raw: MemoryResult): MemoryFigures {
	const perRecord = (m: MemoryResult) => (m.rssPeak - m.rssBefore) / Math.max(1, m.records);
	const json = node.jsonBytesPerRecord;
	return {
		n: node.n,
		jsonBytesPerRecord: json,
		nodeBytesPerRecord: perRecord(node),
		rawBytesPerRecord: perRecord(raw),
		nodeRatio: perRecord(node) / json,
		rawRatio: perRecord(raw) / json,
		nodeHeapPerRecord: (node.heapRetained - node.heapBefore) / Math.max(1, node.records),
		rawHeapPerRecord: (raw.heapRetained - raw.heapBefore) / Math.max(1, raw.records),
	};
}

/** Issue 22: the batched Get's requests and its wall time against one request per item. */
function batchedTargets(perItem: PerItemResult): string[][] {
	const batched = perItem.runs.find((r) => r.batched);
	const onePerItem = (concurrency: number) => perItem.runs.find((r) => !r.batched && r.concurrency === concurrency);
	if (!batched) return [['Per-item Get in batches', 'not measured']];
	const floor = Math.ceil(perItem.items / PAGE_SIZE_MAX);
	const speedUp = (concurrency: number) => (onePerItem(concurrency)?.ms ?? Number.NaN) / batched.ms;
	return [
		[
			// Every request is a list request or a miss's own Get (the token was provisioned in the warm-up).
			`Per-item Get in batches (${int(perItem.items)} items): list requests ≤ ${floor}, plus one single Get per miss`,
			`${mark(batched.listRequests <= floor && batched.listRequests + batched.getRequests === batched.requests && batched.errors === 0)} (${int(batched.listRequests)} list requests, ${int(batched.getRequests)} misses)`,
		],
		[`Per-item Get in batches: wall time ≥ ${TARGET_BATCHED_VS_CONCURRENCY_1}× better than one per item at Concurrency 1`, `${mark(speedUp(1) >= TARGET_BATCHED_VS_CONCURRENCY_1)} (${fixed(speedUp(1), 1)}×)`],
		[`Per-item Get in batches: wall time ≥ ${TARGET_BATCHED_VS_CONCURRENCY_10}× better than one per item at Concurrency 10`, `${mark(speedUp(10) >= TARGET_BATCHED_VS_CONCURRENCY_10)} (${fixed(speedUp(10), 1)}×)`],
	];
}

/** Concurrency 1: (wall time − items × latency) ÷ items. */
function perItemOverheadMs(perItem: PerItemResult): number {
	const sequential = perItem.runs.find((r) => r.concurrency === 1 && !r.batched);
	return sequential ? (sequential.ms - perItem.items * perItem.latencyMs) / perItem.items : Number.NaN;
}

const mib = (bytes: number): string => int(bytes / 2 ** 20);
const ms = (s: Spread): string => `${int(s.median)} (${int(s.min)}–${int(s.max)})`;
const ratio = (s: Spread): string => (Number.isFinite(s.median) ? `${fixed(s.median)}× (${fixed(s.min)}–${fixed(s.max)})` : '—');

function n8nMarkdown(section: Extract<N8nOutcome, { kind: 'n8n' }>, figures: N8nFigures): string {
	const rows = figures.variants.map((v) => [
		v.label,
		int(v.items),
		int(v.requests),
		int(v.connections),
		ms(v.executionMs),
		ms(v.nodeMs),
		v.variant === 'http' ? '1 (reference)' : isGetById(v.variant) ? '— (Get by ID: see below)' : ratio(v.ratioToHttp),
		mib(v.peakRssBytes.median),
		mib(v.rssAtStartBytes.median),
		mib(v.processPeakRssBytes.median),
	]);
	const warm = section.warmUp;
	const large = section.large;
	const credential = figures.credentialMsPerRequest;
	const lines = [
		`### Inside real n8n ${section.n8nVersion} (\`n8n execute\`, ${int(section.n)} employees, ${section.reps} repetitions, variants in rotating order)`,
		'',
		'Execution time is the execution\'s stoppedAt − startedAt (n8n\'s own timestamps); the node time is the sum of the measured nodes\' `executionTime` in the run data. ' +
			'Ratios are paired: each run ÷ the HTTP Request node\'s run of the same repetition. Memory is sampled from /proc/<pid>/status every 10 ms: peak RSS is VmHWM at the execution\'s end (n8n\'s start-up included), ' +
			'the last column also covers saving and printing the execution. Requests and TCP connections are the simulator\'s counts for the run.',
		'',
		table(['variant', 'items out', 'requests', 'TCP connections', 'execution ms, median (range)', 'node ms, median (range)', 'ratio to HTTP Request, median (range)', 'peak RSS MiB', 'RSS before the run MiB', 'process peak RSS MiB'], rows),
		'',
		`First run of the node (fresh credential): ${int(warm.requests)} requests (${int(warm.listRequests)} pages + ${int(warm.requests - warm.listRequests)} token provisioning), ${int(warm.connections)} TCP connections.` +
			(credential ? ` The bearer read from a Header Auth credential instead of a literal header costs ${fixed(credential.median)} ms per request (median; range ${fixed(credential.min)}–${fixed(credential.max)}).` : ''),
	];
	if (figures.getByIdSpeedUp) {
		const speedUp = figures.getByIdSpeedUp;
		lines.push(
			'',
			`Get by ID of ${int(GET_BY_ID_ITEMS)} items (ids from a Set node split into one item each): the HTTP Request node's node time ÷ Personnel Data's, paired per repetition: ${fixed(speedUp.median, 1)}× (range ${fixed(speedUp.min, 1)}–${fixed(speedUp.max, 1)}×).`,
		);
	}
	if (section.helperProbes.length > 0) {
		lines.push(
			'',
			`n8n's own HTTP helper (what \`this.helpers.httpRequest\` calls), outside a workflow, walking the same ${int(section.helperProbes[0].results.default.requests)} pages; \`agentOptions\` exists in IHttpRequestOptions from 2.41 on (2.8 ignores it):`,
			'',
			table(
				['n8n', 'helper', 'agent options', 'requests', 'TCP connections', 'ms (median)'],
				section.helperProbes.flatMap((probe) =>
					(['default', 'keepAlive'] as const).map((mode) => [probe.n8nVersion, probe.module, mode === 'default' ? 'none' : '{ keepAlive: true }', int(probe.results[mode].requests), int(probe.results[mode].connections), int(median(probe.results[mode].ms))]),
				),
			),
		);
	}
	if (large) {
		lines.push(
			'',
			table(
				['Return All (Simplify on)', 'items out', 'requests', 'TCP connections', 'execution ms', 'peak RSS MiB', 'RSS before the run MiB', 'process peak RSS MiB'],
				[[int(large.n), int(large.run.items), int(large.run.requests), int(large.run.connections), int(large.run.executionMs), mib(large.run.peakRssBytes), mib(large.run.rssAtStartBytes), mib(large.run.processPeakRssBytes)]],
			),
		);
	}
	return lines.join('\n');
}

function n8nTargets(n8n: N8nOutcome, figures: N8nFigures | undefined): string[][] {
	if (n8n.kind !== 'n8n' || !figures) return [['Real n8n targets', `not measured (${n8n.kind === 'skipped' ? n8n.reason : 'no figures'})`]];
	const of = (variant: VariantName) => figures.variants.find((v) => v.variant === variant);
	const off = of('pdSimplifyOff');
	const on = of('pdSimplifyOn');
	const splitOut = of('httpSplitOut');
	const rows: string[][] = [];
	const label = `Real n8n ${n8n.n8nVersion}`;
	if (off) rows.push([`${label}, Return All ${int(n8n.n)}, Simplify off ÷ HTTP Request with Pagination ≤ ${fixed(TARGET_N8N_RATIO_SIMPLIFY_OFF, 1)}× (paired median)`, `${mark(off.ratioToHttp.median <= TARGET_N8N_RATIO_SIMPLIFY_OFF)} (${ratio(off.ratioToHttp)})`]);
	if (on) rows.push([`${label}, Return All ${int(n8n.n)}, Simplify on ÷ HTTP Request with Pagination ≤ ${fixed(TARGET_N8N_RATIO_SIMPLIFY_ON, 1)}× (paired median)`, `${mark(on.ratioToHttp.median <= TARGET_N8N_RATIO_SIMPLIFY_ON)} (${ratio(on.ratioToHttp)})`]);
	if (off && on && splitOut) {
		const worst = Math.max(off.peakRssBytes.median, on.peakRssBytes.median);
		rows.push([`${label}, peak RSS of Return All ${int(n8n.n)} ≤ HTTP Request + Split Out (medians)`, `${mark(worst <= splitOut.peakRssBytes.median)} (Simplify off ${mib(off.peakRssBytes.median)} MiB, on ${mib(on.peakRssBytes.median)} MiB; HTTP Request + Split Out ${mib(splitOut.peakRssBytes.median)} MiB)`]);
	}
	if (figures.getByIdSpeedUp) {
		const speedUp = figures.getByIdSpeedUp;
		rows.push([`${label}, Get by ID of ${int(GET_BY_ID_ITEMS)} employees ≥ ${TARGET_N8N_GET_BY_ID_SPEED_UP}× faster than HTTP Request one per item (paired median of node times)`, `${mark(speedUp.median >= TARGET_N8N_GET_BY_ID_SPEED_UP)} (${fixed(speedUp.median, 1)}×, range ${fixed(speedUp.min, 1)}–${fixed(speedUp.max, 1)}×)`]);
	}
	if (n8n.large) {
		const { run } = n8n.large;
		rows.push([`${label}, Return All ${int(n8n.large.n)} completes`, `${mark(run.items === n8n.large.n)} (${int(run.items)} items, ${int(run.executionMs)} ms, peak RSS ${mib(run.peakRssBytes)} MiB)`]);
	}
	return rows;
}

// ---------------------------------------------------------------- the run

async function main(): Promise<void> {
	const plan = planFrom(process.argv.slice(2));
	if (plan.latencyOnly) return await runLatencyOnly(plan);
	if (plan.n8nOnly) return await runN8nOnly(plan);
	const started = performance.now();
	const loadBefore = loadavg();
	log(`bench: ${plan.quick ? 'quick' : 'full'} run; simulator and every measurement in separate processes`);
	const sim = await startSimulatorProcess(['--employees', String(plan.sizes[0])]);
	const control = new SimulatorClient(sim.baseUrl);
	const source: Extract<SimulatorSource, { kind: 'external' }> = {
		kind: 'external',
		baseUrl: sim.baseUrl,
		jti: sim.credentials.admin.jti,
		refreshToken: sim.credentials.admin.refreshToken,
	};
	const { scanLimit } = await control.getConfig();

	const returnAll: ReturnAllResult[] = [];
	const withCondition: Array<ReturnAllResult & { conditionId: string }> = [];
	const memory: MemoryFigures[] = [];
	const memoryRaw: MemoryResult[] = [];
	const variants: Array<{ label: string; result: ReturnAllResult }> = [];
	let trigger: TriggerResult;
	const tokens: TokensResult[] = [];
	let perItem: PerItemResult;
	let httpClients: HttpClientsResult;
	let n8nSections: N8nOutcome[] = [{ kind: 'skipped', reason: '--no-n8n' }];
	let imports: ImportOutcome = { kind: 'skipped', reason: '--no-n8n' };

	try {
		for (const n of plan.sizes) {
			await control.reset({ sizes: { employees: n } });
			// A hash rule on the id passes about one employee in ten (the seeded ones pass 1 % or 1/mod for mod 2–9).
			const [condition] = await control.createRecords('conditions', 1, {
				overrides: { name: `Bench: ${PASS_RATE} % of employees`, domain: 'employee', summary: null, data_engine: { hash: { field: 'id', mod: 100 / PASS_RATE, eq: 0 } } },
			});
			log(`N = ${int(n)}: Return All`);
			returnAll.push(await runWorker<ReturnAllResult>({ kind: 'returnAll', simulator: source, n, reps: plan.reps[n], simplify: false }));
			log(`N = ${int(n)}: Return All with a ${PASS_RATE} % condition`);
			const conditioned = await runWorker<ReturnAllResult>({ kind: 'returnAll', simulator: source, n, conditionId: condition.id, reps: plan.conditionReps[n], simplify: false });
			withCondition.push({ ...conditioned, conditionId: condition.id });
			if (plan.memorySizes.includes(n)) {
				log(`N = ${int(n)}: memory (node, then raw loop; one fresh process each)`);
				const nodeMemory = await runWorker<MemoryResult>({ kind: 'memory', simulator: source, n, mode: 'node' });
				const rawMemory = await runWorker<MemoryResult>({ kind: 'memory', simulator: source, n, mode: 'raw' });
				memoryRaw.push(nodeMemory, rawMemory);
				memory.push(memoryFigures(nodeMemory, rawMemory));
			}
			if (n === 10_000) {
				log('N = 10,000: Return All with Simplify on (the node\'s default)');
				variants.push({ label: 'Simplify on (default), simulator in its own process', result: await runWorker<ReturnAllResult>({ kind: 'returnAll', simulator: source, n, reps: 2, simplify: true }) });
				log('N = 10,000: Return All with the simulator in the worker\'s process');
				variants.push({ label: 'Simplify off, simulator in the same process', result: await runWorker<ReturnAllResult>({ kind: 'returnAll', simulator: { kind: 'inProcess', employees: n }, n, reps: 2, simplify: false }) });
			}
		}

		await control.reset({ sizes: { employees: plan.triggerEmployees } });
		log(`trigger: idle polls and a poll of ${int(plan.triggerChanges)} changes`);
		trigger = await runWorker<TriggerResult>({ kind: 'trigger', simulator: source, changes: plan.triggerChanges, reps: plan.triggerReps });
		log(`tokens: ${int(plan.tokenRequests)} requests, ${TOKEN_TTL_SECONDS} s token lifetime, simulator clock +${TOKEN_STEP_SECONDS} s per request`);
		for (const clientClock of [true, false]) {
			const requests = clientClock ? plan.tokenRequests : plan.tokenRequestsServerOnly;
			tokens.push(await runWorker<TokensResult>({ kind: 'tokens', simulator: source, requests, ttlSeconds: TOKEN_TTL_SECONDS, stepSeconds: TOKEN_STEP_SECONDS, clientClock }));
		}
		log(`per item: ${int(plan.perItemItems)} Get items, ${LATENCY_MS} ms latency, concurrency ${CONCURRENCIES.join(', ')}`);
		perItem = await runWorker<PerItemResult>({ kind: 'perItem', simulator: source, items: plan.perItemItems, latencyMs: LATENCY_MS, concurrencies: CONCURRENCIES });
		await control.reset({ sizes: { employees: 10_000 } });
		log(`HTTP clients: the same 100 pages through ${Object.keys(HTTP_CLIENTS).length} clients, ${plan.httpClientReps} repetitions`);
		httpClients = await runWorker<HttpClientsResult>({ kind: 'httpClients', simulator: source, n: 10_000, reps: plan.httpClientReps });
		if (plan.n8n) {
			n8nSections = await runN8nSections(plan.n8n, source, control);
			for (const outcome of n8nSections) if (outcome.kind === 'skipped') log(`real n8n: SKIPPED: ${outcome.reason}`);
			imports = await runImportSection({ reps: plan.quick ? 1 : 3, latencyMs: LATENCY_MS }, source, control, log);
			if (imports.kind === 'skipped') log(`HR import: SKIPPED: ${imports.reason}`);
		}
	} finally {
		await sim.stop();
	}

	// ------------------------------------------------------------ tables
	const listFloor = (n: number) => Math.ceil(n / PAGE_SIZE_MAX);
	const sections: string[] = [];

	sections.push(
		'### Return All (Employee → Get Many → Return All, Simplify off)\n\n' +
			table(
				['N', 'records', 'requests sent', 'floor (pages + token)', 'at floor', 'raw loop requests', 'node ms (median)', 'raw fetch ms (median)', 'wall ratio (median)', 'wall ratio (best)'],
				returnAll.map((r) => {
					const w = wall(r.nodeMs, r.rawMs);
					const floor = listFloor(r.n) + 2;
					return [int(r.n), int(r.records), `${int(r.listRequests)} + ${r.provisioningRequests}`, `${int(listFloor(r.n))} + 2`, mark(r.requests === floor), int(r.rawRequests), int(w.nodeMedianMs), int(w.rawMedianMs), `${fixed(w.ratio)}×`, `${fixed(w.bestRatio)}×`];
				}),
			),
	);
	if (variants.length > 0) {
		sections.push(
			'#### N = 10,000 variants\n\n' +
				table(
					['variant', 'requests', 'node ms (median)', 'raw fetch ms (median)', 'wall ratio (median)', 'wall ratio (best)'],
					variants.map(({ label, result }) => {
						const w = wall(result.nodeMs, result.rawMs);
						return [label, `${int(result.listRequests)} + ${result.provisioningRequests}`, int(w.nodeMedianMs), int(w.rawMedianMs), `${fixed(w.ratio)}×`, `${fixed(w.bestRatio)}×`];
					}),
				),
		);
	}
	sections.push(
		'### Memory of Return All (fresh process each; peak RSS growth per record, and heap still held after a full GC)\n\n' +
			table(
				['N', 'JSON bytes / record', 'node: RSS growth / record', 'node ÷ JSON', 'raw loop: RSS growth / record', 'raw ÷ JSON', 'node: heap after GC / record', 'raw: heap after GC / record'],
				memory.map((m) => [
					int(m.n),
					int(m.jsonBytesPerRecord),
					int(m.nodeBytesPerRecord),
					`${fixed(m.nodeRatio)}×`,
					int(m.rawBytesPerRecord),
					`${fixed(m.rawRatio)}×`,
					int(m.nodeHeapPerRecord),
					int(m.rawHeapPerRecord),
				]),
			),
	);
	sections.push(
		`### Return All with a condition (~${PASS_RATE} % pass; server reads at most ${scanLimit} records per request)\n\n` +
			table(
				['N', 'records (pass rate)', 'list requests', `floor ceil(N/${scanLimit})`, 'at floor', 'raw loop requests', 'wall ratio (median)', 'wall ratio (best)'],
				withCondition.map((r) => {
					const w = wall(r.nodeMs, r.rawMs);
					const floor = Math.ceil(r.n / scanLimit);
					return [int(r.n), `${int(r.records)} (${fixed((100 * r.records) / r.n, 1)} %)`, `${int(r.listRequests)} + ${r.provisioningRequests}`, int(floor), mark(r.listRequests === floor), int(r.rawRequests), `${fixed(w.ratio)}×`, `${fixed(w.bestRatio)}×`];
				}),
			),
	);
	const triggerWall = wall(trigger.nodeMs, trigger.rawMs);
	sections.push(
		`### Trigger (Employee, Created or Updated; ${int(plan.triggerEmployees)} employees)\n\n` +
			table(
				['poll', 'requests', 'floor', 'at floor', 'records emitted', 'node ms (median)', 'raw fetch ms (median)', 'wall ratio (median)'],
				[
					['activation (first poll, fresh credential)', int(trigger.activationRequests), '—', '—', '0', '', '', ''],
					['idle', int(trigger.idleRequests), '1', mark(trigger.idleRequests === 1), '0', '', '', ''],
					[
						`${int(trigger.changes)} changes`,
						int(trigger.changeRequests),
						`${int(listFloor(trigger.rawRecords))} (${int(trigger.rawRecords)} records match: the changes + ${int(trigger.rawRecords - trigger.changes)} re-read at the watermark)`,
						mark(trigger.changeListRequests === listFloor(trigger.rawRecords)),
						int(trigger.emitted),
						int(triggerWall.nodeMedianMs),
						int(triggerWall.rawMedianMs),
						`${fixed(triggerWall.ratio)}×`,
					],
					['idle, after the changes', int(trigger.idleAfterChangesRequests), '1', mark(trigger.idleAfterChangesRequests === 1), '0', '', '', ''],
				],
			),
	);
	const tokenFloor = (t: TokensResult) => 2 * Math.ceil(t.simulatedSeconds / t.ttlSeconds);
	const provisioning = (t: TokensResult) => t.provisioningBegin + t.provisioningRefresh;
	sections.push(
		`### Token provisioning (Get requests, token lifetime ${TOKEN_TTL_SECONDS} s, clock +${TOKEN_STEP_SECONDS} s before each)\n\n` +
			table(
				['clocks moved', 'Get requests', 'simulated time', 'provisioning calls (begin + refresh)', 'floor 2 × ceil(time / lifetime)', '401 answers', 'requests in all', 'extra requests', 'failed items'],
				tokens.map((t) => [
					t.clientClock ? 'server and client (time passes)' : 'server only (client clock behind: token refused early)',
					int(t.requests),
					`${int(t.simulatedSeconds)} s`,
					`${int(provisioning(t))} (${t.provisioningBegin} + ${t.provisioningRefresh})`,
					int(tokenFloor(t)),
					int(t.unauthorized),
					int(t.total),
					`${fixed((100 * (t.total - t.requests)) / t.requests, 1)} %`,
					int(t.failed),
				]),
			),
	);
	const sequential = perItem.runs.find((r) => r.concurrency === 1 && !r.batched)?.ms ?? Number.NaN;
	sections.push(
		`### Per-item Get (${int(perItem.items)} items, ${perItem.latencyMs} ms added per request)\n\n` +
			'One request per item (Options → Read in Batches off) at each Concurrency, then the same items read in batches (the default: list requests of up to 100 ids, a record the list leaves out asked for on its own).\n\n' +
			table(
				['mode', 'Concurrency', 'requests', 'list requests', 'single Gets', 'wall ms', 'speed-up vs one per item, Concurrency 1', 'ideal ms (requests × latency ÷ requests in flight)', 'wall ÷ ideal', 'errors'],
				perItem.runs.map((r) => {
					// A batched read keeps listRequestsInFlight(Concurrency) list requests in flight.
					const inFlight = r.batched ? listRequestsInFlight(r.concurrency) : r.concurrency;
					const ideal = ((r.listRequests + r.getRequests) * perItem.latencyMs) / inFlight;
					return [r.batched ? 'batched' : 'one per item', String(r.concurrency), int(r.requests), int(r.listRequests), int(r.getRequests), int(r.ms), `${fixed(sequential / r.ms)}×`, int(ideal), `${fixed(r.ms / ideal)}×`, int(r.errors)];
				}),
			),
	);

	const fetchMs = median(httpClients.clients.find((c) => c.client === 'fetch')?.ms ?? []);
	sections.push(
		`### HTTP clients outside n8n (the same ${int(httpClients.clients[0]?.requests ?? 0)} pages, ${int(httpClients.n)} employees, no node code)\n\n` +
			table(
				['client', 'requests', 'TCP connections opened (after a warm-up walk)', 'records', 'ms (median)', 'ms (range)', '÷ fetch (median)'],
				httpClients.clients.map((c) => [HTTP_CLIENTS[c.client], int(c.requests), int(c.connections), int(c.records), int(median(c.ms)), `${int(Math.min(...c.ms))}–${int(Math.max(...c.ms))}`, `${fixed(median(c.ms) / fetchMs)}×`]),
			),
	);
	const n8nReported = n8nReport(n8nSections);
	sections.push(...n8nReported.markdown);
	sections.push(importMarkdown(imports));

	const at10k = returnAll.find((r) => r.n === 10_000);
	const targets = [
		['Return All sends exactly the floor number of requests', mark(returnAll.every((r) => r.requests === listFloor(r.n) + 2))],
		[`Wall time within ${TARGET_WALL_RATIO}× of the raw loop at N = 10,000 (median ratio)`, at10k ? `${mark(wall(at10k.nodeMs, at10k.rawMs).ratio <= TARGET_WALL_RATIO)} (${fixed(wall(at10k.nodeMs, at10k.rawMs).ratio)}×)` : 'not measured'],
		[`Memory per record within ${TARGET_MEMORY_RATIO}× of its JSON size (largest N)`, `${mark(memory[memory.length - 1].nodeRatio <= TARGET_MEMORY_RATIO)} (${fixed(memory[memory.length - 1].nodeRatio)}×; raw loop ${fixed(memory[memory.length - 1].rawRatio)}×)`],
		['Idle poll = 1 request', mark(trigger.idleRequests === 1 && trigger.idleAfterChangesRequests === 1)],
		[`Per-item Get, Concurrency 1, ${perItem.latencyMs} ms latency: overhead per item ≤ ${TARGET_PER_ITEM_OVERHEAD_MS} ms`, `${mark(perItemOverheadMs(perItem) <= TARGET_PER_ITEM_OVERHEAD_MS)} (${fixed(perItemOverheadMs(perItem))} ms)`],
		...batchedTargets(perItem),
		...n8nReported.targets,
		...importTargets(imports),
	];
	sections.unshift('### Targets\n\n' + table(['target', 'met'], targets));

	const seconds = (performance.now() - started) / 1000;
	const loadAfter = loadavg();
	const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, load average ${fixed(loadBefore[0])} → ${fixed(loadAfter[0])}`;
	const markdown = `## Benchmark (${plan.quick ? 'quick' : 'full'} run, ${new Date().toISOString().slice(0, 10)})\n\n${machine}; ${fixed(seconds, 0)} s in all. Ratios are taken within one worker process, raw loop and node alternating; absolute times vary with the machine.\n\n${sections.join('\n\n')}\n`;
	process.stdout.write(`${markdown}\n`);

	// The page's generated block, kept in the results too: a test checks the page shows this run.
	const page = sections.join('\n\n').replace(/^#(#+) /gm, '$1 ');
	mkdirSync(dirname(plan.out), { recursive: true });
	writeFileSync(
		plan.out,
		`${JSON.stringify(
			{
				generatedAt: new Date().toISOString(),
				quick: plan.quick,
				machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version, loadBefore, loadAfter },
				seconds,
				scanLimit,
				returnAll: returnAll.map((r) => ({ ...r, wall: wall(r.nodeMs, r.rawMs), floor: listFloor(r.n) + 2 })),
				variants: variants.map(({ label, result }) => ({ label, ...result, wall: wall(result.nodeMs, result.rawMs) })),
				memory,
				memoryRaw,
				withCondition: withCondition.map((r) => ({ ...r, wall: wall(r.nodeMs, r.rawMs), floor: Math.ceil(r.n / scanLimit), passRate: r.records / r.n })),
				trigger: { ...trigger, wall: triggerWall, floor: listFloor(trigger.rawRecords) },
				tokens: tokens.map((t) => ({ ...t, provisioning: provisioning(t), floor: tokenFloor(t) })),
				perItem: { ...perItem, overheadPerItemMs: perItemOverheadMs(perItem) },
				httpClients,
				n8n: n8nReported.json,
				imports,
				targets: Object.fromEntries(targets),
				page,
			},
			null,
			2,
		)}\n`,
	);
	log(`bench: wrote ${relative(REPO_ROOT, plan.out)}`);
	// The page keeps the figures of the last full run only; a quick run or a custom --out leaves it.
	if (!plan.quick && plan.out === join(REPO_ROOT, 'bench/results/latest.json')) {
		writeBlock(join(REPO_ROOT, BENCHMARK_PAGE), BENCHMARK_BLOCK, page);
		log(`bench: wrote ${BENCHMARK_PAGE}`);
	}
}

main().catch((error: unknown) => {
	console.error(error instanceof Error ? (error.stack ?? error.message) : error);
	process.exit(1);
});
