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
import { firstImportRatios, IMPORT_VARIANTS, importMarkdown, importTargets, runImportSection, type ImportOutcome, type ImportVariant } from './import';
import { largeFromEnv, latenciesFromEnv, latencyFigures, latencyMarkdown, latencyTargets } from './latency';
import { n8nSectionKeys, runN8nSection, type N8nPlan } from './n8n';
import { batchedTargets, memoryFigures, perItemOverheadMs, wall, type MemoryFigures } from './figures';
import { fixed, int, mark, table } from './markdown';
import { n8nReport } from './n8nReport';
import {
	ALL_VARIANTS,
	CONCURRENCIES,
	LATENCY_MS,
	PASS_RATE,
	TARGET_MEMORY_RATIO,
	TARGET_PER_ITEM_OVERHEAD_MS,
	TARGET_WALL_RATIO,
	TOKEN_STEP_SECONDS,
	TOKEN_TTL_SECONDS,
	planFrom,
	type Plan,
} from './plan';
import type { N8nOutcome, VariantName } from './variants';


/**
 * `--latency`: Return All (10,000; at the defaults, ordered by Inserted At, ordered by Last Name), Get by ID (1,000) and the HR import inside real n8n at each
 * latency of BENCH_LATENCIES, then Return All of 100,000 at 150 ms (bench/latency.ts), paired with the HTTP Request nodes; results in bench/results/latency.*.
 */
async function runLatencyOnly(plan: Plan): Promise<void> {
	const started = performance.now();
	const sim = await startSimulatorProcess(['--employees', '1000']);
	const control = new SimulatorClient(sim.baseUrl);
	const source = { baseUrl: sim.baseUrl, jti: sim.credentials.admin.jti, refreshToken: sim.credentials.admin.refreshToken };
	const latencies = latenciesFromEnv();
	const reps = Number(process.env.BENCH_LATENCY_REPS ?? (plan.quick ? 1 : 5));
	const variants = (process.env.BENCH_N8N_VARIANTS ? ALL_VARIANTS : ['pdSimplifyOn', 'pdOrdered', 'pdOrderedByName', 'http', 'pdGetById', 'httpGetById']) as VariantName[];
	const n8nPlan: N8nPlan = { n: 10_000, reps: 0, variants: [], latency: { latencies, variants, reps, n: 10_000, large: largeFromEnv() } };
	const outcomes: N8nOutcome[] = [];
	const imports: ImportOutcome[] = [];
	try {
		const keys = n8nSectionKeys();
		for (const key of keys.length > 0 ? keys : [undefined]) {
			outcomes.push(await runN8nSection(n8nPlan, source, control, log, key, false));
			if (process.env.BENCH_LATENCY_IMPORT !== '0') imports.push(await runImportSection({ reps: latencies.includes(0) ? reps : 0, latencyMs: 0, latencies, latencyReps: reps, key }, source, control, log));
		}
	} finally {
		await sim.stop();
	}
	const figures = latencyFigures(outcomes);
	const firstImports = imports.flatMap((outcome) => (outcome.kind === 'skipped' ? [] : firstImportRatios(outcome).map((each) => ({ ...each, n8nVersion: outcome.n8nVersion }))));
	const markdown = `${latencyMarkdown(figures, imports, importMarkdown, latencyTargets(figures, firstImports))}\n\n${fixed((performance.now() - started) / 1000, 0)} s in all (\`npm run bench -- --latency\`, ${reps} repetition(s), latencies ${latencies.join(', ')} ms).\n`;
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

/**
 * `--import-only`: the HR import section alone (1 repetition with --quick, else 3), printed; the
 * variants BENCH_IMPORT_VARIANTS names (comma-separated: node, http, preview), default all.
 */
async function runImportOnly(plan: Plan): Promise<void> {
	const every = Object.keys(IMPORT_VARIANTS) as ImportVariant[];
	const wanted = process.env.BENCH_IMPORT_VARIANTS?.split(',').map((name) => name.trim()).filter(Boolean) ?? every;
	const unknown = wanted.filter((name) => !every.includes(name as ImportVariant));
	if (unknown.length > 0) throw new Error(`BENCH_IMPORT_VARIANTS: unknown ${unknown.join(', ')}; expected some of ${every.join(', ')}`);
	const sim = await startSimulatorProcess(['--employees', '1000']);
	const control = new SimulatorClient(sim.baseUrl);
	const source = { baseUrl: sim.baseUrl, jti: sim.credentials.admin.jti, refreshToken: sim.credentials.admin.refreshToken };
	let outcome: ImportOutcome;
	try {
		outcome = await runImportSection({ reps: plan.quick ? 1 : 3, latencyMs: 0, variants: wanted as ImportVariant[] }, source, control, log);
	} finally {
		await sim.stop();
	}
	process.stdout.write(`${importMarkdown(outcome)}\n\n${table(['target', 'met'], importTargets(outcome))}\n`);
}

// ---------------------------------------------------------------- formatting


function log(message: string): void {
	process.stderr.write(`${message}\n`);
}

// ---------------------------------------------------------------- the run

async function main(): Promise<void> {
	const plan = planFrom(process.argv.slice(2));
	if (plan.latencyOnly) return await runLatencyOnly(plan);
	if (plan.n8nOnly) return await runN8nOnly(plan);
	if (plan.importOnly) return await runImportOnly(plan);
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
