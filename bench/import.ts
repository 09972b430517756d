/**
 * The HR import section of `npm run bench` (issue 21): a CSV of 1,000 employees (700 the simulator
 * holds, 300 of them with a new title or phone number, 300 new) imported inside one real n8n two
 * ways, each run twice on the same file:
 *
 * - Personnel Data → Employee → Create or Update (Map Automatically, match on employee_number);
 * - what a user builds today: an HTTP Request lookup per row, an IF, and a PATCH (title history
 *   kept) or POST HTTP Request node (scripts/n8n/workflows/employeeImport.ts);
 * - beside them (issue 43), the same node with Options › Write Mode › Preview Only on the same
 *   file, once (it writes nothing, so a second run would be the same): its time, and that it sends
 *   the lookups only (⌈N/100⌉ list requests) and no write.
 *
 * Unlike the Return All section (one `n8n execute` process per run), the runs go through one
 * `n8n start` and its REST API: an import run takes seconds, a process start 10–15 s. Each
 * repetition re-seeds the simulator (the same data) and rewrites the file, then runs both
 * variants in rotating order; times are the execution's stoppedAt − startedAt.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import { ensureBuilt } from '../demo/prepare';
import { importWorkflow, loadProblems, prepareUserFolder, startServer, type ExecutionDetails, type N8nServer } from '../scripts/n8n/driver';
import type { CredentialRef } from '../scripts/n8n/driver/workflowBuilders';
import {
	httpImportWorkflow,
	IMPORT,
	IMPORT_NODE,
	importWorkflow as buildImportWorkflow,
	ISSUE_21_PLAN,
	prepareImport,
	writeImportFile,
	type ImportPlan,
} from '../scripts/n8n/workflows/employeeImport';
import { importCredentials } from '../scripts/n8n/driver';
import type { SimulatorClient } from '../scripts/simulator/client';
import { median } from './common';
import { chooseInstall } from './n8n';
import { JITTER_SHARE } from './variants';

const PD_CREDENTIAL: CredentialRef = { id: 'benchImpPdCred01', name: 'Personnel Data (bench import)' };
const WORKFLOW_IDS = { node: 'benchImportNode1', http: 'benchImportHttp1', preview: 'benchImportPrev1' } as const;
/** Employee numbers one lookup request asks for (the node's batch of ids in a list filter). */
const LOOKUP_BATCH = 100;
const RUN_TIMEOUT_MS = 10 * 60_000;

export const IMPORT_VARIANTS = {
	node: 'Personnel Data Create or Update (Map Automatically, match on employee_number)',
	http: 'HTTP Request: lookup per row + IF + PATCH (history kept) or POST',
	preview: 'Personnel Data Create or Update, Write Mode: Preview Only (nothing written)',
} as const;
export type ImportVariant = keyof typeof IMPORT_VARIANTS;

export interface ImportRun {
	variant: ImportVariant;
	/** 1: the file's first import; 2: the same file again. */
	pass: 1 | 2;
	/** Added by the simulator to every API request. */
	latencyMs: number;
	executionMs: number;
	lookups: number;
	creates: number;
	patches: number;
	/** Every API request of the run, token provisioning included. */
	requests: number;
	/** Token provisioning requests among them (begin + refresh); absent in runs recorded before issue 43. */
	provisioning?: number;
	/** Personnel Data only: the items' created / updated / unchanged counts (and errors); a preview's create / update / unchanged as these. */
	outcomes?: Record<string, number>;
}

export interface ImportSection {
	kind: 'import';
	key: string;
	n8nVersion: string;
	plan: ImportPlan;
	reps: number;
	warmUp: ImportRun[];
	runs: ImportRun[];
	seconds: number;
}

export type ImportOutcome = ImportSection | { kind: 'skipped'; reason: string };

export interface ImportBenchPlan {
	reps: number;
	/** One more repetition with this latency added to every API request, as a real server has (0: none). */
	latencyMs: number;
	/** Default: both. */
	variants?: ImportVariant[];
	/** The latency axis: instead of `latencyMs`, `latencyReps` rotations at each of these (jitter added). */
	latencies?: number[];
	latencyReps?: number;
	/** The n8n install (BENCH_N8N_KEY form); default: the newest. */
	key?: string;
}

const PREVIEWED_AS: Record<string, string> = { create: 'created', update: 'updated', unchanged: 'unchanged', error: 'error' };

function outcomesOf(execution: ExecutionDetails): Record<string, number> {
	const counts: Record<string, number> = {};
	for (const item of execution.data.resultData.runData[IMPORT]?.[0]?.data?.main?.[0] ?? []) {
		const previewed = (item.json.preview as { outcome?: string } | undefined)?.outcome;
		const outcome = previewed !== undefined ? (PREVIEWED_AS[previewed] ?? previewed) : item.json.error === undefined ? String(IMPORT_NODE.outcome(item.json)) : 'error';
		counts[outcome] = (counts[outcome] ?? 0) + 1;
	}
	return counts;
}

/**
 * A call tried again, up to 5 times 2 s apart, when it failed before doing anything: on this busy
 * machine a kept-alive socket (to n8n's REST API or the simulator's control routes) is now and
 * then closed under the client as it is reused ("fetch failed"), and n8n 2.41 answers 503
 * "Database is not ready!" while a ping of its SQLite database times out. `onlyRefused` limits the
 * retries to those 503 answers (for a call that must not run twice, such as starting a run).
 */
async function retried<T>(call: () => Promise<T>, onlyRefused = false): Promise<T> {
	for (let attempt = 1; ; attempt++) {
		try {
			return await call();
		} catch (error) {
			const refused = /→ 503|Database is not ready/.test((error as Error).message);
			if (attempt >= 5 || (onlyRefused && !refused)) throw error;
			await new Promise((resolve) => setTimeout(resolve, 2000));
		}
	}
}

async function runOnce(server: N8nServer, control: SimulatorClient, variant: ImportVariant, pass: 1 | 2, latencyMs: number): Promise<ImportRun> {
	await retried(() => control.resetStats());
	const executionId = await retried(() => server.runFromTrigger(WORKFLOW_IDS[variant], 'Start'), true);
	const execution = await retried(() => server.waitForExecution(executionId, RUN_TIMEOUT_MS));
	const stats = await retried(() => control.stats());
	if (execution.status !== 'success') {
		// What the server refused, from its own log: n8n's message alone ("Bad request") does not say.
		const refused = (await retried(() => control.requests())).filter((r) => r.status >= 400).pop();
		const detail = refused ? `; the simulator answered ${refused.status} to ${refused.method} ${refused.path}?${refused.rawQuery} (body ${JSON.stringify(refused.body ?? null).slice(0, 300)})` : '';
		throw new Error(`"${IMPORT_VARIANTS[variant]}" (run ${pass}) ended "${execution.status}": ${execution.data.resultData.error?.message ?? 'no error message'}${detail}`);
	}
	const kind = (name: string) => stats.byRouteKind[name] ?? 0;
	return {
		variant,
		pass,
		latencyMs,
		executionMs: Date.parse(String(execution.stoppedAt)) - Date.parse(String(execution.startedAt)),
		lookups: kind('employees.list'),
		creates: kind('employees.create'),
		patches: kind('employees.patch'),
		requests: stats.requests,
		provisioning: stats.provisioning.begin + stats.provisioning.refresh,
		outcomes: variant === 'http' ? undefined : outcomesOf(execution),
	};
}

export async function runImportSection(
	plan: ImportBenchPlan,
	simulator: { baseUrl: string; jti: string; refreshToken: string },
	control: SimulatorClient,
	log: (message: string) => void,
): Promise<ImportOutcome> {
	const install = chooseInstall(plan.key);
	if (typeof install === 'string') return { kind: 'skipped', reason: install };
	const started = performance.now();
	await ensureBuilt();
	const filesDir = mkdtempSync(path.join(tmpdir(), 'pd-bench-import-'));
	const file = path.join(filesDir, 'employees.csv');
	const today = new Date().toISOString().slice(0, 10);
	const folder = await prepareUserFolder(install.key, { env: { N8N_RESTRICT_FILE_ACCESS_TO: filesDir, GENERIC_TIMEZONE: 'UTC' } });
	let server: N8nServer | undefined;
	try {
		log(`import: n8n ${install.n8nVersion}, a CSV of ${ISSUE_21_PLAN.existing + ISSUE_21_PLAN.fresh} employees, variants ${(plan.variants ?? Object.keys(IMPORT_VARIANTS)).join(', ')}, ${plan.reps} repetition(s) after a warm-up`);
		const token = await control.issueToken('admin');
		await importCredentials(folder, [
			{ ...PD_CREDENTIAL, type: 'personnelDataApi', data: { baseUrl: simulator.baseUrl, authMode: 'refreshToken', jti: simulator.jti, refreshToken: simulator.refreshToken } },
		]);
		await importWorkflow(folder, [
			buildImportWorkflow(WORKFLOW_IDS.node, `Bench: ${IMPORT_VARIANTS.node}`, PD_CREDENTIAL, file),
			httpImportWorkflow(WORKFLOW_IDS.http, `Bench: ${IMPORT_VARIANTS.http}`, simulator.baseUrl, token, file),
			buildImportWorkflow(WORKFLOW_IDS.preview, `Bench: ${IMPORT_VARIANTS.preview}`, PD_CREDENTIAL, file, 'employee_number', { writeMode: 'preview' }),
		]);
		server = await startServer(folder);
		const problems = loadProblems(server.logs());
		if (problems.length > 0) throw new Error(`n8n could not load the package: ${problems.join('; ')}`);
		await control.clearFaults();

		const variants = plan.variants ?? (Object.keys(IMPORT_VARIANTS) as ImportVariant[]);
		const repetition = async (order: readonly ImportVariant[], latencyMs = 0): Promise<ImportRun[]> => {
			const runs: ImportRun[] = [];
			for (const variant of order) {
				await control.reset({ sizes: { employees: ISSUE_21_PLAN.existing } });
				writeImportFile(await prepareImport(control, ISSUE_21_PLAN, today), file);
				await control.setFaults({ latencyMs, jitterMs: latencyMs * JITTER_SHARE, applyToProvisioning: false });
				try {
					// A preview writes nothing: its second run would repeat the first.
					for (const pass of variant === 'preview' ? ([1] as const) : ([1, 2] as const)) {
						const run = await runOnce(server as N8nServer, control, variant, pass, latencyMs);
						log(`  ${variant} run ${pass}${latencyMs ? ` (${latencyMs} ms latency)` : ''}: ${run.executionMs} ms, ${run.requests} requests (${run.lookups} lookups, ${run.creates} POST, ${run.patches} PATCH)`);
						runs.push(run);
					}
				} finally {
					await control.clearFaults();
				}
			}
			return runs;
		};
		log('import: warm-up (token provisioning, first load of the nodes)');
		const warmUp = await repetition(variants);
		const runs: ImportRun[] = [];
		for (let rep = 0; rep < plan.reps; rep++) {
			runs.push(...(await repetition(variants.map((_, i) => variants[(i + rep) % variants.length]))));
		}
		for (const latencyMs of (plan.latencies ?? [plan.latencyMs]).filter((latency) => latency > 0)) {
			const reps = plan.latencies ? (plan.latencyReps ?? 1) : 1;
			log(`import: ${reps} repetition(s) with ${latencyMs} ms (+ jitter) added to every API request`);
			for (let rep = 0; rep < reps; rep++) runs.push(...(await repetition(variants.map((_, i) => variants[(i + rep) % variants.length]), latencyMs)));
		}
		return { kind: 'import', key: install.key, n8nVersion: install.n8nVersion, plan: ISSUE_21_PLAN, reps: plan.reps, warmUp, runs, seconds: (performance.now() - started) / 1000 };
	} catch (error) {
		return { kind: 'skipped', reason: `failed: ${(error as Error).message}` };
	} finally {
		await server?.stop();
		folder.cleanup();
		rmSync(filesDir, { recursive: true, force: true });
	}
}

// ---------------------------------------------------------------- figures and tables

export interface ImportFigures {
	variant: ImportVariant;
	pass: 1 | 2;
	latencyMs: number;
	/** From the last repetition (every repetition sends the same requests). */
	lookups: number;
	creates: number;
	patches: number;
	requests: number;
	provisioning?: number;
	executionMs: { median: number; min: number; max: number };
	outcomes?: Record<string, number>;
}

export function importFigures(section: ImportSection): ImportFigures[] {
	const figures: ImportFigures[] = [];
	for (const latencyMs of [...new Set(section.runs.map((run) => run.latencyMs))].sort((a, b) => a - b)) {
		for (const pass of [1, 2] as const) {
			for (const variant of Object.keys(IMPORT_VARIANTS) as ImportVariant[]) {
				const runs = section.runs.filter((run) => run.variant === variant && run.pass === pass && run.latencyMs === latencyMs);
				if (runs.length === 0) continue;
				const last = runs[runs.length - 1];
				const times = runs.map((run) => run.executionMs);
				figures.push({ variant, pass, latencyMs, lookups: last.lookups, creates: last.creates, patches: last.patches, requests: last.requests, provisioning: last.provisioning, executionMs: { median: median(times), min: Math.min(...times), max: Math.max(...times) }, outcomes: last.outcomes });
			}
		}
	}
	return figures;
}

const int = (value: number): string => Math.round(value).toLocaleString('en-US');
const table = (headers: string[], rows: string[][]): string =>
	[`| ${headers.join(' | ')} |`, `| ${headers.map(() => '---').join(' | ')} |`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');

export function importMarkdown(outcome: ImportOutcome): string {
	if (outcome.kind === 'skipped') return `### HR import inside real n8n\n\nSkipped: ${outcome.reason}.`;
	const figures = importFigures(outcome);
	const httpMs = (pass: 1 | 2, latencyMs: number) => figures.find((f) => f.variant === 'http' && f.pass === pass && f.latencyMs === latencyMs)?.executionMs.median ?? Number.NaN;
	const { existing, changed, fresh } = outcome.plan;
	return [
		`### HR import inside real n8n ${outcome.n8nVersion} (a CSV of ${int(existing + fresh)} employees: ${int(existing)} exist, ${int(changed)} of them changed, ${int(fresh)} new; ${outcome.reps} repetition(s), variants in rotating order, then one with server latency)`,
		'',
		'Read/Write Files from Disk → Extract From File → the import, through one `n8n start` (REST runs). Run 2 imports the same file again; the preview runs once on the file of run 1. Requests are the simulator\'s counts for the run (token provisioning included); time is the execution\'s stoppedAt − startedAt.',
		'',
		table(
			['variant', 'run', 'server latency', 'lookup requests', 'POST', 'PATCH', 'requests in all', 'execution ms, median (range)', '÷ HTTP Request nodes', 'rows created / updated / unchanged'],
			figures.map((f) => [
				IMPORT_VARIANTS[f.variant],
				f.variant === 'preview' ? "1 (the first import's file)" : f.pass === 1 ? '1 (first import)' : '2 (same file)',
				f.latencyMs === 0 ? 'none' : `${f.latencyMs} ms`,
				int(f.lookups),
				int(f.creates),
				int(f.patches),
				int(f.requests),
				`${int(f.executionMs.median)} (${int(f.executionMs.min)}–${int(f.executionMs.max)})`,
				f.variant === 'http' ? '1 (reference)' : Number.isFinite(httpMs(f.pass, f.latencyMs)) ? `${(f.executionMs.median / httpMs(f.pass, f.latencyMs)).toFixed(2)}×` : '— (not run)',
				f.outcomes ? `${f.outcomes.created ?? 0} / ${f.outcomes.updated ?? 0} / ${f.outcomes.unchanged ?? 0}${f.outcomes.error ? ` (${f.outcomes.error} errors)` : ''}${f.variant === 'preview' ? ' (previewed; none written)' : ''}` : '— (every row written)',
			]),
		),
	].join('\n');
}

/** The node's first import ÷ the HTTP Request nodes', medians, at each latency measured. */
export function firstImportRatios(outcome: ImportOutcome): Array<{ latencyMs: number; ratio: number; rows: number }> {
	if (outcome.kind === 'skipped') return [];
	const rows = outcome.plan.existing + outcome.plan.fresh;
	const figures = importFigures(outcome).filter((figure) => figure.pass === 1);
	return figures
		.filter((figure) => figure.variant === 'node')
		.flatMap((node) => {
			const http = figures.find((figure) => figure.variant === 'http' && figure.latencyMs === node.latencyMs);
			return http ? [{ latencyMs: node.latencyMs, ratio: node.executionMs.median / http.executionMs.median, rows }] : [];
		});
}

/** Rows for the bench's Targets table. */
export function importTargets(outcome: ImportOutcome): string[][] {
	if (outcome.kind === 'skipped') return [['HR import in real n8n', `not measured (${outcome.reason})`]];
	const figures = importFigures(outcome);
	const node = (pass: 1 | 2) => figures.find((f) => f.variant === 'node' && f.pass === pass && f.latencyMs === 0);
	const first = node(1);
	const second = node(2);
	const { changed, fresh } = outcome.plan;
	const mark = (ok: boolean) => (ok ? 'yes' : '**no**');
	const rows: string[][] = [];
	if (first) {
		const exact = first.creates === fresh && first.patches === changed && first.lookups <= 10;
		rows.push([`HR import, first run: ${fresh} POST + ${changed} PATCH, lookups ≤ 10 requests`, `${mark(exact)} (${first.creates} POST, ${first.patches} PATCH, ${first.lookups} lookups)`]);
	}
	if (second) rows.push(['HR import, second run of the same file: 0 writes', `${mark(second.creates + second.patches === 0)} (${second.creates + second.patches} writes)`]);
	const preview = figures.find((f) => f.variant === 'preview' && f.latencyMs === 0);
	if (preview) {
		const rowCount = outcome.plan.existing + outcome.plan.fresh;
		const lookups = Math.ceil(rowCount / LOOKUP_BATCH);
		const others = preview.requests - preview.lookups - (preview.provisioning ?? 0);
		const onlyLookups = preview.lookups === lookups && preview.creates + preview.patches === 0 && preview.provisioning !== undefined && others === 0;
		rows.push([
			`Preview of ${int(rowCount)} rows: only the lookups (⌈${int(rowCount)}/${LOOKUP_BATCH}⌉ = ${lookups} list requests), no write`,
			`${mark(onlyLookups)} (${preview.lookups} lookups, ${preview.creates + preview.patches} writes, ${preview.provisioning === undefined ? 'other requests not counted' : `${others} other requests besides ${preview.provisioning} token provisioning`}; ${int(preview.executionMs.median)} ms)`,
		]);
	}
	return rows;
}
