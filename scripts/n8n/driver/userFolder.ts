/** A fresh n8n user folder with the packed package installed, as a user's n8n would have it. */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import { ENCRYPTION_KEY, PACKAGE_SOURCE, TMP_DIR, n8nInstance, type N8nInstall } from './installs';
import { freePort, runProcess, type CliResult } from './processes';
import { runInstallScript, type ScriptInstall, type ScriptInstallRun } from './scriptInstall';

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
		const res = await runProcess('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dest], {
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
	const res = await runProcess('npm', args, { cwd: nodesDir, env: baseEnv(install, userFolder), timeoutMs: 300_000 });
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
	/** The install script's run, when the package was installed by one (README, Dockerfile). */
	scriptInstall?: ScriptInstallRun;
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
 * - { script }: the commands a user is given, run by bash with HOME = the user folder (scriptInstall.ts).
 */
export type PackageInstall = 'extract' | { npmInstallArgs: string[] } | { script: ScriptInstall };

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
		// What this version needs to run here (scripts/n8n/versions.json), e.g. its expression engine.
		...install.env,
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
	let scriptInstall: N8nUserFolder['scriptInstall'];
	if (opts.withPackage ?? true) {
		try {
			const tarball = await packProject(opts.packageFrom ?? PACKAGE_SOURCE);
			if (mode === 'extract') {
				packageDir = await extractIntoNodesFolder(tarball, nodesDir);
			} else if ('script' in mode) {
				({ run: scriptInstall, packageDir } = await runInstallScript(mode.script, userFolder, tarball, baseEnv(install, userFolder)));
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
		scriptInstall,
		env,
		async cli(args, cliOpts = {}) {
			const brokerPort = await freePort();
			const mainPort = await freePort();
			return runProcess(install.nodeBin, [install.n8nBin, ...args], {
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


/**
 * The end-to-end suites test the built package: without dist/ they must fail loudly, not skip
 * (run `npm run build` first; `.ci/run` does, through `npm test`).
 */
export function assertPackageBuilt(projectDir: string = PACKAGE_SOURCE): void {
	for (const file of ['dist/nodes/PersonnelData/PersonnelData.node.js', 'dist/nodes/PersonnelDataTrigger/PersonnelDataTrigger.node.js']) {
		if (!existsSync(path.join(projectDir, file))) throw new Error(`${file} is missing: run npm run build before the end-to-end tests`);
	}
}
