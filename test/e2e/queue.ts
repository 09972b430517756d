/**
 * n8n's distributed engine, headless: a throwaway PostgreSQL cluster, a Redis server, one n8n main
 * and n8n workers in queue mode, all on 127.0.0.1 and free ports (see test/e2e/README.md).
 *
 *   const cluster = await startQueueCluster('n8n-2.41', { workers: 2 });
 *   await importCredentials(cluster.main.folder, [...]);   // the driver of n8n.ts works on the main
 *   cluster.main.rest(...) / cluster.workers[0].kill() / await cluster.restartMain();
 *   await cluster.stop();                                   // n8n processes, Redis, PostgreSQL
 *
 * Each n8n process has its own user folder with the packed package (as each machine of a real
 * deployment has its own), the same encryption key, database and Redis.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import {
	freePort,
	prepareUserFolder,
	startServer,
	type N8nServer,
	type N8nUserFolder,
} from '../../scripts/n8n/driver';
import { postgresBinDir, redisBinary } from './prerequisites';

export { postgresBinDir } from './prerequisites';

// ---------------------------------------------------------------------------------------------
// Child processes

interface Outcome {
	rc: number;
	stdout: string;
	stderr: string;
}

function run(cmd: string, args: string[], timeoutMs = 60_000): Promise<Outcome> {
	return new Promise((resolve) => {
		execFile(cmd, args, { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, killSignal: 'SIGKILL' }, (error, stdout, stderr) => {
			const rc = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
			resolve({ rc, stdout: String(stdout), stderr: String(stderr) });
		});
	});
}

async function runOk(what: string, cmd: string, args: string[], timeoutMs?: number): Promise<string> {
	const res = await run(cmd, args, timeoutMs);
	if (res.rc !== 0) throw new Error(`${what} failed (rc ${res.rc}): ${res.stderr || res.stdout}`);
	return res.stdout;
}

const sleepMs = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it is true; throws `describe()` after `timeoutMs`. */
async function waitFor(check: () => Promise<boolean>, timeoutMs: number, describe: () => string): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		if (await check()) return;
		if (Date.now() > deadline) throw new Error(describe());
		await sleepMs(250);
	}
}

function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

/** Children to kill if the test process ends without stopping them (a crashed or timed-out run). */
const leftovers = new Set<() => void>();
const killLeftovers = () => {
	for (const kill of leftovers) kill();
};
process.once('exit', killLeftovers);
// Ctrl-C or a kill of the test run: clean up, then end as the signal would have.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
	process.once(signal, () => {
		killLeftovers();
		process.kill(process.pid, signal);
	});
}

/** Waits for a child to exit, escalating to SIGKILL (of its whole group when `group`) after `graceMs`. */
async function endChild(child: ChildProcess, signal: NodeJS.Signals, graceMs: number, group = false): Promise<void> {
	if (child.exitCode !== null || child.signalCode !== null) return;
	const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
	const send = (sig: NodeJS.Signals) => {
		try {
			if (group && child.pid) process.kill(-child.pid, sig);
			else child.kill(sig);
		} catch {
			// already gone
		}
	};
	send(signal);
	const timer = setTimeout(() => send('SIGKILL'), graceMs);
	await exited;
	clearTimeout(timer);
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL: a throwaway cluster in a temporary folder

/** PostgreSQL refuses to run as root: the cluster belongs to this ordinary user then. */
export const POSTGRES_OS_USER = 'pd-e2e-postgres';
const POSTGRES_ROLE = 'n8n';
const POSTGRES_PASSWORD = 'n8n-e2e';

function asRoot(): boolean {
	return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** Creates the ordinary user that owns the cluster, once (root only). */
async function ensureOsUser(): Promise<void> {
	if ((await run('id', ['-u', POSTGRES_OS_USER])).rc === 0) return;
	const res = await run('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', POSTGRES_OS_USER]);
	// 9: created meanwhile by a parallel run.
	if (res.rc !== 0 && res.rc !== 9) throw new Error(`useradd ${POSTGRES_OS_USER} failed (rc ${res.rc}): ${res.stderr}`);
}

/** `cmd args` as the cluster's user when we are root, else as ourselves. */
function asPostgresUser(cmd: string, args: string[]): [string, string[]] {
	return asRoot() ? ['runuser', ['-u', POSTGRES_OS_USER, '--', cmd, ...args]] : [cmd, args];
}

export interface Postgres {
	host: string;
	port: number;
	/** Superuser role (trust authentication on 127.0.0.1). */
	user: string;
	password: string;
	dir: string;
	/** Creates an empty database; returns its name. */
	createDatabase(name: string): Promise<string>;
	/** Runs SQL with psql; returns the rows of the last statement (psql's JSON via json_agg). */
	query<T = Record<string, unknown>>(database: string, sql: string): Promise<T[]>;
	/** n8n's DB_* variables for a database. */
	env(database: string): Record<string, string>;
	logs(): string;
	stop(): Promise<void>;
}

export async function startPostgres(): Promise<Postgres> {
	const bin = postgresBinDir();
	if (asRoot()) await ensureOsUser();
	const dir = mkdtempSync(path.join(os.tmpdir(), 'pd-e2e-pg-'));
	const dataDir = path.join(dir, 'data');
	if (asRoot()) {
		const uid = Number((await runOk('id', 'id', ['-u', POSTGRES_OS_USER])).trim());
		const gid = Number((await runOk('id', 'id', ['-g', POSTGRES_OS_USER])).trim());
		chownSync(dir, uid, gid);
	}
	const [initCmd, initArgs] = asPostgresUser(path.join(bin, 'initdb'), [
		'-D', dataDir, '-U', POSTGRES_ROLE, '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync',
	]);
	await runOk('initdb', initCmd, initArgs, 120_000);

	const port = await freePort();
	const logFile = path.join(dir, 'postgres.log');
	const fd = openSync(logFile, 'a');
	// Throwaway data: durability off, so that n8n's many small writes do not wait for the disk.
	const [cmd, args] = asPostgresUser(path.join(bin, 'postgres'), [
		'-D', dataDir, '-p', String(port), '-h', '127.0.0.1', '-k', dir,
		'-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=200',
	]);
	const child = spawn(cmd, args, { stdio: ['ignore', fd, fd] });
	closeSync(fd);
	const logs = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');
	const postmasterPid = (): number | undefined => {
		const pidFile = path.join(dataDir, 'postmaster.pid');
		if (!existsSync(pidFile)) return undefined;
		const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
		return Number.isInteger(pid) && pid > 0 ? pid : undefined;
	};
	const killAll = () => {
		const pid = postmasterPid();
		if (pid) {
			try {
				process.kill(pid, 'SIGQUIT');
			} catch {
				// gone
			}
		}
		child.kill('SIGKILL');
	};
	leftovers.add(killAll);

	const psql = path.join(bin, 'psql');
	const psqlArgs = (database: string, sql: string) => [
		'-h', '127.0.0.1', '-p', String(port), '-U', POSTGRES_ROLE, '-d', database, '-X', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-c', sql,
	];
	await waitFor(
		async () => {
			if (child.exitCode !== null) throw new Error(`postgres exited with ${child.exitCode}:\n${logs()}`);
			return (await run(psql, psqlArgs('postgres', 'SELECT 1'))).rc === 0;
		},
		60_000,
		() => `PostgreSQL did not accept connections:\n${logs()}`,
	);

	const postgres: Postgres = {
		host: '127.0.0.1',
		port,
		user: POSTGRES_ROLE,
		password: POSTGRES_PASSWORD,
		dir,
		async createDatabase(name) {
			if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new Error(`database name ${name}: lower-case letters, digits, _`);
			await runOk('CREATE DATABASE', psql, psqlArgs('postgres', `CREATE DATABASE ${name}`));
			return name;
		},
		async query<T>(database: string, sql: string): Promise<T[]> {
			const out = await runOk('psql', psql, psqlArgs(database, `SELECT coalesce(json_agg(q), '[]'::json) FROM (${sql}) q`));
			return JSON.parse(out.trim() || '[]') as T[];
		},
		env(database) {
			return {
				DB_TYPE: 'postgresdb',
				DB_POSTGRESDB_HOST: '127.0.0.1',
				DB_POSTGRESDB_PORT: String(port),
				DB_POSTGRESDB_DATABASE: database,
				DB_POSTGRESDB_USER: POSTGRES_ROLE,
				DB_POSTGRESDB_PASSWORD: POSTGRES_PASSWORD,
			};
		},
		logs,
		async stop() {
			leftovers.delete(killAll);
			const pid = postmasterPid();
			if (pid) {
				try {
					process.kill(pid, 'SIGINT'); // "fast" shutdown: ends sessions, no checkpoint wait
				} catch {
					// gone
				}
				await waitFor(async () => !isAlive(pid), 30_000, () => 'postgres did not stop').catch(() => process.kill(pid, 'SIGKILL'));
			}
			await endChild(child, 'SIGTERM', 5_000);
			if (process.env.N8N_E2E_KEEP !== '1') rmSync(dir, { recursive: true, force: true });
		},
	};
	return postgres;
}

// ---------------------------------------------------------------------------------------------
// Redis

export interface Redis {
	host: string;
	port: number;
	logs(): string;
	stop(): Promise<void>;
}

export async function startRedis(): Promise<Redis> {
	const port = await freePort();
	const child = spawn(redisBinary(), ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'], {
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	let output = '';
	child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
	child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
	const kill = () => child.kill('SIGKILL');
	leftovers.add(kill);
	await waitFor(
		async () => {
			if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}:\n${output}`);
			return /Ready to accept connections/.test(output);
		},
		30_000,
		() => `redis-server did not start:\n${output}`,
	);
	return {
		host: '127.0.0.1',
		port,
		logs: () => output,
		async stop() {
			leftovers.delete(kill);
			await endChild(child, 'SIGTERM', 5_000);
		},
	};
}

// ---------------------------------------------------------------------------------------------
// n8n in queue mode

/** Worker concurrency (n8n's default of `n8n worker`). */
export const WORKER_CONCURRENCY = 10;
/** Variable every process gets with its own name; expressions read it as `$env.PD_E2E_PROCESS`. */
export const PROCESS_NAME_VARIABLE = 'PD_E2E_PROCESS';

export interface N8nWorker {
	name: string;
	folder: N8nUserFolder;
	healthPort: number;
	process: ChildProcess;
	logs(): string;
	/** Execution ids this worker logged as started ("Worker started execution <id>"). */
	startedExecutions(): string[];
	/** SIGTERM: n8n lets running executions finish (up to its graceful-shutdown timeout). */
	stop(): Promise<void>;
	/** SIGKILL of the worker and its task runner: a crashed machine. */
	kill(): Promise<void>;
	isRunning(): boolean;
}

export interface QueueCluster {
	key: string;
	postgres: Postgres;
	database: string;
	redis: Redis;
	main: N8nServer;
	workers: N8nWorker[];
	/** Environment shared by every n8n process of the cluster (queue mode, database, Redis). */
	env: Record<string, string>;
	/** URL of a production webhook on the main. */
	webhookUrl(webhookPath: string): string;
	/** Rows of n8n's database. */
	query<T = Record<string, unknown>>(sql: string): Promise<T[]>;
	/** Stops the main, runs `whileDown` (if given), starts it again on the same database (a new port). */
	restartMain(whileDown?: () => Promise<void>): Promise<N8nServer>;
	/** Starts one more worker (e.g. after one was killed). */
	addWorker(): Promise<N8nWorker>;
	/** Every n8n process, then Redis and PostgreSQL (unless they were passed in). */
	stop(): Promise<void>;
}

export interface QueueClusterOptions {
	/** Number of `n8n worker` processes (default 2). */
	workers?: number;
	/** Extra environment for every n8n process. */
	env?: Record<string, string>;
	/** Reuse a running PostgreSQL (a fresh database is created in it) and Redis (a fresh key prefix). */
	postgres?: Postgres;
	redis?: Redis;
}

async function startWorker(key: string, name: string, env: Record<string, string>): Promise<N8nWorker> {
	const folder = await prepareUserFolder(key, { env: { ...env, [PROCESS_NAME_VARIABLE]: name } });
	const healthPort = await freePort();
	const logFile = path.join(folder.userFolder, `${name}.log`);
	const fd = openSync(logFile, 'a');
	// Its own process group: a kill takes its task runner along, as a machine going down would.
	const child = spawn(folder.install.nodeBin, [folder.install.n8nBin, 'worker', `--concurrency=${WORKER_CONCURRENCY}`], {
		cwd: folder.userFolder,
		env: {
			...folder.env,
			QUEUE_HEALTH_CHECK_ACTIVE: 'true',
			QUEUE_HEALTH_CHECK_PORT: String(healthPort),
			N8N_PORT: String(await freePort()),
			N8N_RUNNERS_BROKER_PORT: String(await freePort()),
		},
		stdio: ['ignore', fd, fd],
		detached: true,
	});
	closeSync(fd);
	const killGroup = () => {
		try {
			if (child.pid) process.kill(-child.pid, 'SIGKILL');
		} catch {
			// gone
		}
	};
	leftovers.add(killGroup);
	const logs = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');
	const running = () => child.exitCode === null && child.signalCode === null;

	await waitFor(
		async () => {
			if (!running()) throw new Error(`n8n worker ${name} exited (${child.exitCode ?? child.signalCode}):\n${logs()}`);
			try {
				const res = await fetch(`http://127.0.0.1:${healthPort}/healthz/readiness`);
				return res.ok;
			} catch {
				return false;
			}
		},
		180_000,
		() => `n8n worker ${name} not ready:\n${logs()}`,
	);

	return {
		name,
		folder,
		healthPort,
		process: child,
		logs,
		startedExecutions: () => [...logs().matchAll(/Worker started execution (\d+)/g)].map((m) => m[1]),
		async stop() {
			await endChild(child, 'SIGTERM', 30_000);
			killGroup(); // its task runner, if it outlived the worker
			leftovers.delete(killGroup);
		},
		async kill() {
			await endChild(child, 'SIGKILL', 5_000, true);
			killGroup();
			leftovers.delete(killGroup);
		},
		isRunning: running,
	};
}

/** PostgreSQL, Redis, an n8n main (owner set up, REST API ready) and `workers` n8n workers. */
export async function startQueueCluster(key: string, opts: QueueClusterOptions = {}): Promise<QueueCluster> {
	const ownPostgres = !opts.postgres;
	const ownRedis = !opts.redis;
	const postgres = opts.postgres ?? (await startPostgres());
	// Whatever fails from here on stops what this call started: a left-over server would keep jest waiting.
	const redis = await (opts.redis ? Promise.resolve(opts.redis) : startRedis()).catch(async (error: unknown) => {
		if (ownPostgres) await postgres.stop().catch(() => undefined);
		throw error;
	});
	const tag = randomBytes(4).toString('hex');
	const database = await postgres.createDatabase(`n8n_${tag}`).catch(async (error: unknown) => {
		if (ownRedis) await redis.stop().catch(() => undefined);
		if (ownPostgres) await postgres.stop().catch(() => undefined);
		throw error;
	});
	const env: Record<string, string> = {
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_REDIS_HOST: redis.host,
		QUEUE_BULL_REDIS_PORT: String(redis.port),
		QUEUE_BULL_PREFIX: `bull_${tag}`,
		...postgres.env(database),
		// Expressions may read $env (the process name records which worker ran an execution).
		N8N_BLOCK_ENV_ACCESS_IN_NODE: 'false',
		N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '20',
		...(opts.env ?? {}),
	};

	const workers: N8nWorker[] = [];
	let mainFolder: N8nUserFolder | undefined;
	let main: N8nServer | undefined;
	const killMain = () => main?.process.kill('SIGKILL');
	leftovers.add(killMain);
	const stopAll = async () => {
		await Promise.all([...workers.map((w) => w.stop()), main?.stop()]);
		leftovers.delete(killMain);
		for (const w of workers) w.folder.cleanup();
		mainFolder?.cleanup();
		if (ownRedis) await redis.stop();
		if (ownPostgres) await postgres.stop();
	};

	try {
		// The main first: it runs the database migrations the workers expect.
		mainFolder = await prepareUserFolder(key, { env: { ...env, [PROCESS_NAME_VARIABLE]: 'main' } });
		main = await startServer(mainFolder, { timeoutMs: 240_000 });
		const count = opts.workers ?? 2;
		for (let i = 1; i <= count; i++) workers.push(await startWorker(key, `worker-${i}`, env));
	} catch (error) {
		await stopAll().catch(() => undefined);
		throw error;
	}

	const cluster: QueueCluster = {
		key,
		postgres,
		database,
		redis,
		main,
		workers,
		env,
		webhookUrl: (webhookPath) => `${cluster.main.baseUrl}/webhook/${webhookPath}`,
		query: (sql) => postgres.query(database, sql),
		async restartMain(whileDown) {
			await cluster.main.stop();
			await whileDown?.();
			cluster.main = await startServer(mainFolder as N8nUserFolder, { timeoutMs: 240_000 });
			main = cluster.main;
			return cluster.main;
		},
		async addWorker() {
			const worker = await startWorker(key, `worker-${workers.length + 1}`, env);
			workers.push(worker);
			return worker;
		},
		async stop() {
			main = cluster.main;
			await stopAll();
		},
	};
	return cluster;
}
