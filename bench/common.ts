/**
 * Types and process plumbing shared by the bench orchestrator (run.ts) and its workers (worker.ts).
 * Every measurement runs in a fresh worker process; the simulator runs in its own process too,
 * so that neither its CPU nor its heap shows up in the client's figures.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

import type { SimulatorCredentials } from '../scripts/simulator/auth';

export const REPO_ROOT = join(__dirname, '..');
export const RESULT_MARKER = 'BENCH_RESULT ';

/** How a worker reaches the API: an external simulator, or one it starts in its own process. */
export type SimulatorSource =
	| { kind: 'external'; baseUrl: string; jti: string; refreshToken: string }
	| { kind: 'inProcess'; employees: number };

export interface ReturnAllTask {
	kind: 'returnAll';
	simulator: SimulatorSource;
	n: number;
	conditionId?: string;
	/** Timed repetitions of each loop (raw and node alternate). */
	reps: number;
	simplify: boolean;
}

export interface MemoryTask {
	kind: 'memory';
	simulator: Extract<SimulatorSource, { kind: 'external' }>;
	n: number;
	mode: 'node' | 'raw';
}

export interface TriggerTask {
	kind: 'trigger';
	simulator: Extract<SimulatorSource, { kind: 'external' }>;
	changes: number;
	reps: number;
}

export interface TokensTask {
	kind: 'tokens';
	simulator: Extract<SimulatorSource, { kind: 'external' }>;
	requests: number;
	ttlSeconds: number;
	/** Simulator seconds advanced before each request. */
	stepSeconds: number;
	/** Whether the client's Date.now moves with the simulator clock (time passing for both). */
	clientClock: boolean;
}

export interface PerItemTask {
	kind: 'perItem';
	simulator: Extract<SimulatorSource, { kind: 'external' }>;
	items: number;
	latencyMs: number;
	concurrencies: number[];
}

/** The same pages through each HTTP client: what a new connection per request costs. */
export interface HttpClientsTask {
	kind: 'httpClients';
	simulator: Extract<SimulatorSource, { kind: 'external' }>;
	n: number;
	reps: number;
}

export type Task = ReturnAllTask | MemoryTask | TriggerTask | TokensTask | PerItemTask | HttpClientsTask;

export interface ReturnAllResult {
	kind: 'returnAll';
	n: number;
	records: number;
	/** Everything the node sent in its first run, tokens included. */
	requests: number;
	listRequests: number;
	provisioningRequests: number;
	rawRequests: number;
	nodeMs: number[];
	rawMs: number[];
}

export interface MemoryResult {
	kind: 'memory';
	n: number;
	mode: 'node' | 'raw';
	records: number;
	rssBefore: number;
	rssPeak: number;
	heapBefore: number;
	/** Heap in use after a full GC, while the result is still held. */
	heapRetained: number;
	jsonBytesPerRecord: number;
}

export interface TriggerResult {
	kind: 'trigger';
	activationRequests: number;
	idleRequests: number;
	idleAfterChangesRequests: number;
	changes: number;
	/** Records already emitted at the watermark: the inclusive (gte) filter reads them again. */
	idsAtWatermark: number;
	emitted: number;
	changeRequests: number;
	changeListRequests: number;
	nodeMs: number[];
	rawMs: number[];
	rawRequests: number;
	/** Records the poll's query matches (read by the replaying raw loop): changes plus re-read ones. */
	rawRecords: number;
}

export interface TokensResult {
	kind: 'tokens';
	requests: number;
	ttlSeconds: number;
	stepSeconds: number;
	clientClock: boolean;
	simulatedSeconds: number;
	total: number;
	provisioningBegin: number;
	provisioningRefresh: number;
	unauthorized: number;
	failed: number;
}

export interface PerItemRun {
	concurrency: number;
	/** Options → Read in Batches: list requests of up to 100 ids instead of one request per item. */
	batched: boolean;
	ms: number;
	requests: number;
	/** Of `requests`: list requests (the batches) and single Gets (per item, or the misses of a batch). */
	listRequests: number;
	getRequests: number;
	errors: number;
}

export interface PerItemResult {
	kind: 'perItem';
	items: number;
	latencyMs: number;
	runs: PerItemRun[];
}

export const HTTP_CLIENTS = {
	fetch: 'fetch (undici, keep-alive)',
	axiosSharedAgent: 'axios, one keep-alive http.Agent for all requests',
	axiosAgentPerRequest: 'axios, a new http.Agent per request (what n8n-core does)',
	n8nHttpRequest: "n8n-core's httpRequest helper",
} as const;
export type HttpClientName = keyof typeof HTTP_CLIENTS;

export interface HttpClientRuns {
	client: HttpClientName;
	ms: number[];
	/** Requests and TCP connections the simulator saw in the client's last repetition. */
	requests: number;
	connections: number;
	records: number;
}

export interface HttpClientsResult {
	kind: 'httpClients';
	n: number;
	clients: HttpClientRuns[];
}

export type TaskResult = ReturnAllResult | MemoryResult | TriggerResult | TokensResult | PerItemResult | HttpClientsResult;

/** Node flags of every worker: tsx for TypeScript, gc() for honest memory baselines. */
const WORKER_ARGS = ['--expose-gc', '--import', 'tsx', join(__dirname, 'worker.ts')];

/** Runs one task in a fresh process and returns what it printed after RESULT_MARKER. */
export async function runWorker<R extends TaskResult>(task: Task): Promise<R> {
	const child = spawn(process.execPath, WORKER_ARGS, {
		cwd: REPO_ROOT,
		stdio: ['ignore', 'pipe', 'inherit'],
		env: { ...process.env, BENCH_TASK: JSON.stringify(task) },
	});
	let result: R | undefined;
	const lines = createInterface({ input: child.stdout });
	lines.on('line', (line) => {
		if (line.startsWith(RESULT_MARKER)) result = JSON.parse(line.slice(RESULT_MARKER.length)) as R;
		else if (line.trim() !== '') process.stderr.write(`  [worker] ${line}\n`);
	});
	const code = await new Promise<number | null>((resolve, reject) => {
		child.once('error', reject);
		child.once('exit', (exitCode) => resolve(exitCode));
	});
	if (code !== 0 || !result) throw new Error(`bench worker for ${task.kind} failed (exit ${code})`);
	return result;
}

export interface SimulatorProcess {
	baseUrl: string;
	credentials: SimulatorCredentials;
	child: ChildProcess;
	stop(): Promise<void>;
}

/** `tsx scripts/simulator/cli.ts --json`: waits for its one JSON line. */
export async function startSimulatorProcess(args: string[]): Promise<SimulatorProcess> {
	const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'scripts/simulator/cli.ts'), '--json', ...args], {
		cwd: REPO_ROOT,
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	const first = await new Promise<string>((resolve, reject) => {
		const lines = createInterface({ input: child.stdout as NonNullable<typeof child.stdout> });
		lines.once('line', resolve);
		child.once('error', reject);
		child.once('exit', (code) => reject(new Error(`simulator exited (${code}) before it was ready`)));
	});
	const ready = JSON.parse(first) as { baseUrl: string; credentials: SimulatorCredentials };
	const stop = async (): Promise<void> => {
		if (child.exitCode !== null) return;
		const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
		child.kill('SIGTERM');
		await exited;
	};
	return { baseUrl: ready.baseUrl, credentials: ready.credentials, child, stop };
}

export function median(values: readonly number[]): number {
	if (values.length === 0) return Number.NaN;
	const sorted = [...values].sort((a, b) => a - b);
	const mid = sorted.length >> 1;
	return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
