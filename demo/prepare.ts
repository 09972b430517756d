/** Build the package when dist/ is missing or older than its sources; install n8n when not cached. */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';

import { n8nInstance, ROOT, type N8nInstall } from '../scripts/n8n/driver';
import { elapsed, say } from './log';

const SOURCE_DIRS = ['credentials', 'nodes'];
const SOURCE_FILES = ['package.json', 'tsconfig.json', 'gulpfile.js'];

function newestMtime(dir: string): number {
	let newest = 0;
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		const full = path.join(dir, entry.name);
		newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
	}
	return newest;
}

/** Why dist/ needs a build, or undefined when it is up to date. */
export function buildReason(): string | undefined {
	const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
		n8n: { nodes: string[]; credentials: string[] };
	};
	const outputs = [...pkg.n8n.nodes, ...pkg.n8n.credentials].map((f) => path.join(ROOT, f));
	const missing = outputs.find((f) => !existsSync(f));
	if (missing) return `${path.relative(ROOT, missing)} is missing`;
	const built = Math.min(...outputs.map((f) => statSync(f).mtimeMs));
	const sources = Math.max(
		...SOURCE_DIRS.map((d) => newestMtime(path.join(ROOT, d))),
		...SOURCE_FILES.map((f) => statSync(path.join(ROOT, f)).mtimeMs),
	);
	return sources > built ? 'sources changed since the last build' : undefined;
}

function runInherited(cmd: string, args: string[]): Promise<void> {
	return new Promise((resolve, reject) => {
		const child = spawn(cmd, args, { cwd: ROOT, stdio: 'inherit' });
		child.on('error', reject);
		child.on('exit', (code, signal) =>
			code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(' ')} failed (${signal ?? code})`)),
		);
	});
}

export async function ensureBuilt(): Promise<void> {
	const reason = buildReason();
	if (!reason) {
		say('package build is up to date (dist/)');
		return;
	}
	const started = Date.now();
	say(`building the package: ${reason} (npm run build)`);
	await runInherited('npm', ['run', 'build', '--silent']);
	say(`built in ${elapsed(started)}`);
}

function installed(key: string): N8nInstall | undefined {
	try {
		return n8nInstance(key);
	} catch {
		return undefined;
	}
}

export async function ensureN8n(key: string): Promise<N8nInstall> {
	const ready = installed(key);
	if (ready) {
		say(`n8n ${ready.n8nVersion} (${key}) is installed in ${path.relative(ROOT, ready.dir)}`);
		return ready;
	}
	const started = Date.now();
	const cache = process.env.N8N_CACHE_DIR ?? '.n8n-cache';
	say(`installing n8n (${key}) into ${cache}/: the first time this takes about 5–7 minutes, later runs reuse it`);
	await runInherited('bash', [path.join(ROOT, 'scripts/n8n/install.sh'), key]);
	say(`n8n installed in ${elapsed(started)}`);
	return n8nInstance(key);
}
