/**
 * The real-n8n section of `npm run bench`: the packed package installed into one real n8n (the
 * newest pinned version of scripts/n8n/versions.json that is installed, or BENCH_N8N_KEY), the
 * simulator in its own process, and every variant run as its own `n8n execute` process, the
 * variants' order rotating from one repetition to the next.
 *
 * Per run it reads the execution n8n prints (status, startedAt/stoppedAt, each node's
 * executionTime and output), the simulator's counters for that run (requests, list requests, TCP
 * connections) and the n8n process's memory: /proc/<pid>/status is sampled every few ms while it
 * runs, VmHWM being the peak RSS so far.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, rmSync, statSync } from 'node:fs';
import * as path from 'node:path';

import {
	crashedAtExit,
	freePort,
	importCredentials,
	importWorkflow,
	n8nInstance,
	parseExecutionOutput,
	prepareUserFolder,
	versionKeysNewestFirst,
	versionPins,
	type N8nInstall,
	type N8nUserFolder,
	type NodeRun,
} from '../scripts/n8n/driver';
import type { SimulatorClient } from '../scripts/simulator/client';
import { REPO_ROOT } from './common';
import { runLatencyAxis, type LatencyPlan } from './latency';
import { GET_BY_ID_ITEMS, HEADER_CREDENTIAL, MEASURED_NODES, PD_CREDENTIAL, VARIANTS, WORKFLOW_IDS, workflows } from './variants';
import type { HelperProbe, N8nOutcome, N8nRun, N8nSection, VariantName } from './variants';

const SAMPLE_EVERY_MS = 10;
const EXECUTE_TIMEOUT_MS = 10 * 60_000;

// ---------------------------------------------------------------- choosing the install


/** `key`, else BENCH_N8N_KEY, else the newest pinned version that is installed; a reason when there is none. */
export function chooseInstall(key?: string): N8nInstall | string {
	const wanted = key ?? process.env.BENCH_N8N_KEY;
	const keys = wanted ? [wanted] : versionKeysNewestFirst();
	const problems: string[] = [];
	for (const each of keys) {
		try {
			return n8nInstance(each);
		} catch (error) {
			problems.push((error as Error).message);
		}
	}
	const cache = process.env.N8N_CACHE_DIR ?? path.join(REPO_ROOT, '.n8n-cache');
	return `no usable n8n install in ${cache} (${problems.join('; ')}); set N8N_CACHE_DIR or run scripts/n8n/install.sh <key>`;
}

/**
 * The versions the section runs on, newest first: BENCH_N8N_KEY (one key or a comma-separated
 * list), else every pinned version that is installed. Empty when none is: the section is skipped.
 */
export function n8nSectionKeys(): string[] {
	const wanted = process.env.BENCH_N8N_KEY?.split(',').map((key) => key.trim()).filter(Boolean);
	if (wanted && wanted.length > 0) return wanted;
	return versionKeysNewestFirst().filter((key) => typeof chooseInstall(key) !== 'string');
}

// ---------------------------------------------------------------- one `n8n execute`

interface MemorySample {
	at: number;
	rss: number;
	hwm: number;
}

function readMemory(pid: number): { rss: number; hwm: number } | undefined {
	let status: string;
	try {
		status = readFileSync(`/proc/${pid}/status`, 'utf8');
	} catch {
		return undefined;
	}
	const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024;
	const rss = kb('VmRSS');
	const hwm = kb('VmHWM');
	return Number.isFinite(rss) && Number.isFinite(hwm) ? { rss, hwm } : undefined;
}

interface ProcessOutcome {
	rc: number;
	signal?: string;
	stdoutFile: string;
	stderr: string;
	samples: MemorySample[];
	processMs: number;
}

/** `n8n execute --id=<id> --rawOutput`, stdout into a file (it holds the whole execution), memory sampled. */
async function executeSampled(folder: N8nUserFolder, workflowId: string): Promise<ProcessOutcome> {
	const stdoutFile = path.join(folder.userFolder, `execute-${workflowId}-${Date.now()}.json`);
	const fd = openSync(stdoutFile, 'w');
	const env = { ...folder.env, N8N_PORT: String(await freePort()), N8N_RUNNERS_BROKER_PORT: String(await freePort()) };
	const started = performance.now();
	// BENCH_CPU_PROF=<folder>: each execution writes a V8 CPU profile there (open it in Chrome's DevTools).
	const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF)}`, `--cpu-prof-name=${workflowId}-${Date.now()}.cpuprofile`] : [];
	const child = spawn(folder.install.nodeBin, [...profile, folder.install.n8nBin, 'execute', `--id=${workflowId}`, '--rawOutput'], {
		cwd: folder.userFolder,
		env,
		stdio: ['ignore', fd, 'pipe'],
	});
	closeSync(fd);
	let stderr = '';
	child.stderr?.on('data', (chunk: Buffer) => {
		stderr = (stderr + chunk.toString()).slice(-20_000);
	});
	const samples: MemorySample[] = [];
	const pid = child.pid;
	const sample = (): void => {
		if (pid === undefined) return;
		const memory = readMemory(pid);
		if (memory) samples.push({ at: Date.now(), ...memory });
	};
	const sampler = setInterval(sample, SAMPLE_EVERY_MS);
	const killer = setTimeout(() => child.kill('SIGKILL'), EXECUTE_TIMEOUT_MS);
	const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
		child.once('error', reject);
		child.once('exit', (exitCode, exitSignal) => resolve({ code: exitCode, signal: exitSignal }));
	});
	clearInterval(sampler);
	clearTimeout(killer);
	return { rc: code ?? (signal ? 1 : 0), signal: signal ?? undefined, stdoutFile, stderr, samples, processMs: performance.now() - started };
}

/** The last sample at or before `at` (the first one when none is). */
function sampleAt(samples: readonly MemorySample[], at: number): MemorySample | undefined {
	let found: MemorySample | undefined = samples[0];
	for (const s of samples) {
		if (s.at > at) break;
		found = s;
	}
	return found;
}

interface Counters {
	requests: number;
	listRequests: number;
	connections: number;
}

/**
 * A control call, tried twice: on this busy machine a kept-alive socket to the simulator is now and
 * then closed under the client just as it is reused ("other side closed").
 */
async function twice<T>(call: () => Promise<T>): Promise<T> {
	try {
		return await call();
	} catch {
		return await call();
	}
}

async function runVariant(folder: N8nUserFolder, control: SimulatorClient, variant: VariantName, workflowId = WORKFLOW_IDS[variant]): Promise<N8nRun> {
	await twice(() => control.resetStats());
	const outcome = await executeSampled(folder, workflowId);
	const stats = await twice(() => control.stats());
	const counters: Counters = {
		requests: stats.requests,
		listRequests: Object.entries(stats.byRouteKind)
			.filter(([kind]) => kind.endsWith('.list'))
			.reduce((sum, [, count]) => sum + count, 0),
		connections: stats.connections,
	};
	try {
		return readRun(variant, outcome, counters);
	} finally {
		rmSync(outcome.stdoutFile, { force: true });
	}
}

function readRun(variant: VariantName, outcome: ProcessOutcome, counters: Counters): N8nRun {
	const size = statSync(outcome.stdoutFile).size;
	const execution = parseExecutionOutput(readFileSync(outcome.stdoutFile, 'utf8'));
	const failure = (why: string): Error =>
		new Error(`n8n execute of "${VARIANTS[variant]}" ${why} (rc ${outcome.rc}${outcome.signal ? `, ${outcome.signal}` : ''}, ${size} bytes of output)\nstderr:\n${outcome.stderr.slice(-4000)}`);
	if (!execution) throw failure('printed no execution');
	const crashed = crashedAtExit({ rc: outcome.rc, signal: outcome.signal, stdout: '', stderr: '' });
	if (outcome.rc !== 0 && !(crashed && execution.finished === true)) throw failure('failed');
	const resultData = execution.data?.resultData;
	if (resultData?.error || execution.status !== 'success') throw failure(`ended ${String(execution.status)}: ${resultData?.error?.message ?? ''}`);
	const runData = resultData?.runData ?? {};
	const nodes = MEASURED_NODES[variant];
	const runs: NodeRun[] = nodes.map((name) => {
		const run = runData[name]?.[0];
		if (!run) throw failure(`did not run node "${name}"`);
		return run;
	});
	const startedAt = Date.parse(String(execution.startedAt));
	const stoppedAt = Date.parse(String(execution.stoppedAt));
	if (!Number.isFinite(startedAt) || !Number.isFinite(stoppedAt)) throw failure('printed no startedAt/stoppedAt');
	const atStop = sampleAt(outcome.samples, stoppedAt);
	const atStart = sampleAt(outcome.samples, startedAt);
	const last = outcome.samples[outcome.samples.length - 1];
	if (!atStop || !atStart || !last) throw failure('could not be sampled (/proc/<pid>/status unreadable)');
	return {
		variant,
		executionMs: stoppedAt - startedAt,
		nodeMs: runs.reduce((sum, run) => sum + Number(run.executionTime ?? Number.NaN), 0),
		items: runs[runs.length - 1].data?.main?.[0]?.length ?? 0,
		...counters,
		peakRssBytes: atStop.hwm,
		rssAtStartBytes: atStart.rss,
		processPeakRssBytes: last.hwm,
		processMs: outcome.processMs,
		crashedAtExit: crashed,
	};
}

// ---------------------------------------------------------------- the section

export interface N8nPlan {
	n: number;
	reps: number;
	variants: VariantName[];
	/** Return All of this many employees once (omit to skip). */
	largeN?: number;
	/** The latency axis (bench/latency.ts): these variants at each latency, jitter added, `reps` rotations each. */
	latency?: LatencyPlan;
}

/** `npm run build`: the package n8n loads is packed from dist/, which must match the sources. */
async function buildPackage(): Promise<void> {
	const child = spawn('npm', ['run', 'build'], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
	let stderr = '';
	child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
	const code = await new Promise<number | null>((resolve, reject) => {
		child.once('error', reject);
		child.once('exit', resolve);
	});
	if (code !== 0) throw new Error(`npm run build failed (${code}):\n${stderr}`);
}

/** Every pinned version that is installed. */
function installedVersions(): N8nInstall[] {
	return Object.keys(versionPins()).flatMap((key) => {
		try {
			return [n8nInstance(key)];
		} catch {
			return [];
		}
	});
}

async function probeHelper(install: N8nInstall, baseUrl: string, token: string, reps: number): Promise<HelperProbe> {
	const child = spawn(install.nodeBin, [path.join(__dirname, 'n8nHelperProbe.cjs'), install.dir, baseUrl, token, String(reps)], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
	let stdout = '';
	let stderr = '';
	child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
	child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
	const code = await new Promise<number | null>((resolve, reject) => {
		child.once('error', reject);
		child.once('exit', resolve);
	});
	if (code !== 0) throw new Error(`n8nHelperProbe.cjs with n8n ${install.n8nVersion} failed (${code}):\n${stderr}`);
	const printed = JSON.parse(stdout.trim().split('\n').pop() ?? '') as Omit<HelperProbe, 'key' | 'n8nVersion'>;
	return { key: install.key, n8nVersion: install.n8nVersion, ...printed };
}

export async function runN8nSection(
	plan: N8nPlan,
	simulator: { baseUrl: string; jti: string; refreshToken: string },
	control: SimulatorClient,
	log: (message: string) => void,
	key?: string,
	/** Probe every installed version's HTTP helper (once per bench is enough). */
	probeHelpers = true,
): Promise<N8nOutcome> {
	const install = chooseInstall(key);
	if (typeof install === 'string') return { kind: 'skipped', reason: install };
	const started = performance.now();
	log(`n8n ${install.n8nVersion} (Node ${install.nodeVersion === 'system' ? process.version : install.nodeVersion}): build, pack and install the package; import credentials and workflows`);
	await buildPackage();
	const folder = await prepareUserFolder(install.key);
	try {
		await control.reset({ sizes: { employees: plan.latency?.n ?? plan.n } });
		// A token for the HTTP Request workflows, issued as the API would issue one to this user.
		const token = await control.issueToken('admin');
		await importCredentials(folder, [
			{ ...PD_CREDENTIAL, type: 'personnelDataApi', data: { baseUrl: simulator.baseUrl, authMode: 'refreshToken', jti: simulator.jti, refreshToken: simulator.refreshToken } },
			{ ...HEADER_CREDENTIAL, type: 'httpHeaderAuth', data: { name: 'Authorization', value: `Bearer ${token}` } },
		]);
		const ids = (await control.getRecords('employees')).slice(0, GET_BY_ID_ITEMS).map((record) => String(record.id));
		const all = workflows(simulator.baseUrl, token, ids);
		await importWorkflow(folder, Object.values(all));

		log(`n8n: warm-up (the node provisions its token; a Get by ID), then ${plan.reps} × ${plan.variants.length} executions, order rotating`);
		const warmUp = await runVariant(folder, control, plan.variants.length > 0 ? 'pdSimplifyOff' : 'pdGetById');
		// The simulator's `filters[id][op]=in` path is not run by any other variant: its first runs
		// (JIT) would land in the first repetition's Get by ID alone.
		if (plan.variants.includes('pdGetById')) await runVariant(folder, control, 'pdGetById');
		const runs: N8nRun[] = [];
		const orders: VariantName[][] = [];
		for (let rep = 0; rep < plan.reps; rep++) {
			const order = plan.variants.map((_, i) => plan.variants[(i + rep) % plan.variants.length]);
			orders.push(order);
			for (const variant of order) {
				const run = await runVariant(folder, control, variant);
				log(`  rep ${rep + 1}: ${variant} ${Math.round(run.executionMs)} ms, ${run.items} items, ${run.requests} requests, ${run.connections} connections, peak RSS ${Math.round(run.peakRssBytes / 2 ** 20)} MiB, process ${Math.round(run.processMs)} ms`);
				runs.push(run);
			}
		}
		if (probeHelpers) log(`n8n: HTTP helper of every installed version, with and without agentOptions { keepAlive: true }`);
		const helperProbes: HelperProbe[] = [];
		for (const each of probeHelpers ? installedVersions() : []) {
			// A probe that fails is reported, not fatal: the workflow runs above are the section's point.
			try {
				helperProbes.push(await probeHelper(each, simulator.baseUrl, token, 3));
			} catch (error) {
				log(`  probe of n8n ${each.n8nVersion} failed: ${(error as Error).message}`);
			}
		}
		const latencyRuns = plan.latency ? await runLatencyAxis(plan.latency, folder, control, log, runVariant) : undefined;
		let large: N8nSection['large'];
		if (plan.largeN !== undefined) {
			log(`n8n: Return All of ${plan.largeN.toLocaleString('en-US')} employees (Simplify on)`);
			await control.reset({ sizes: { employees: plan.largeN } });
			large = { n: plan.largeN, run: await runVariant(folder, control, 'pdSimplifyOn') };
			log(`  ${Math.round(large.run.executionMs)} ms, ${large.run.items} items, peak RSS ${Math.round(large.run.peakRssBytes / 2 ** 20)} MiB`);
		}
		return {
			kind: 'n8n',
			key: install.key,
			n8nVersion: install.n8nVersion,
			nodeVersion: install.nodeVersion === 'system' ? process.version : install.nodeVersion,
			n: plan.n,
			reps: plan.reps,
			orders,
			warmUp,
			runs,
			large,
			helperProbes,
			latencyRuns,
			seconds: (performance.now() - started) / 1000,
		};
	} finally {
		folder.cleanup();
	}
}
