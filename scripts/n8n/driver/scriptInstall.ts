/**
 * Installs the packed package by running the install commands a user is given (the README's
 * shell block, or a Dockerfile's steps) in a fresh user folder, with HOME set to it so that
 * `~/.n8n/nodes` is that folder's nodes folder. Downloads are served from the packed tarball by a
 * `curl` first on PATH that answers only the expected URL: no network, and a wrong URL fails.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

import { runProcess, type CliResult } from './processes';

export interface ScriptInstall {
	/** Run by bash (-e -u -o pipefail) in the user folder, with HOME = the user folder. */
	script: string;
	/** The one URL the script may download (with `curl -O`): it gets the packed tarball. */
	tarballUrl?: string;
	/** Where the packed tarball is placed before the script runs (a Dockerfile's COPY), relative to the user folder. */
	tarballAt?: string;
}

export interface ScriptInstallRun extends CliResult {
	script: string;
}

/** A `curl` that writes the tarball under the URL's file name for the one URL, and fails for any other. */
function curlShim(binDir: string, tarballFile: string, url: string): void {
	const shim = [
		'#!/usr/bin/env bash',
		'for arg in "$@"; do case "$arg" in http://*|https://*) asked="$arg";; esac; done',
		`if [[ "\${asked:-}" != ${JSON.stringify(url)} ]]; then echo "curl (test shim): no such release asset: \${asked:-none}" >&2; exit 22; fi`,
		`cp ${JSON.stringify(tarballFile)} "./\${asked##*/}"`,
	].join('\n');
	writeFileSync(path.join(binDir, 'curl'), `${shim}\n`);
	chmodSync(path.join(binDir, 'curl'), 0o755);
}

export async function runInstallScript(
	install: ScriptInstall,
	userFolder: string,
	tarball: Buffer,
	env: NodeJS.ProcessEnv,
): Promise<{ run: ScriptInstallRun; packageDir: string }> {
	const support = path.join(userFolder, '.install-support');
	const binDir = path.join(support, 'bin');
	mkdirSync(binDir, { recursive: true });
	const tarballFile = path.join(support, 'packed.tgz');
	writeFileSync(tarballFile, tarball);
	if (install.tarballUrl) curlShim(binDir, tarballFile, install.tarballUrl);
	if (install.tarballAt) {
		const target = path.join(userFolder, install.tarballAt);
		mkdirSync(path.dirname(target), { recursive: true });
		writeFileSync(target, tarball);
	}
	const res = await runProcess('bash', ['-euo', 'pipefail', '-c', install.script], {
		cwd: userFolder,
		env: { ...env, HOME: userFolder, PATH: `${binDir}${path.delimiter}${env.PATH ?? ''}` },
		timeoutMs: 300_000,
	});
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	const fail = (why: string) => new Error(`install script in ${userFolder}: ${why}\n${install.script}\nstdout:\n${res.stdout.slice(-4000)}\nstderr:\n${res.stderr.slice(-4000)}`);
	if (res.rc !== 0) throw fail(`rc ${res.rc}`);
	const manifest = path.join(nodesDir, 'package.json');
	const deps = existsSync(manifest)
		? Object.keys((JSON.parse(readFileSync(manifest, 'utf8')) as { dependencies?: Record<string, string> }).dependencies ?? {})
		: [];
	const packageDir = deps.length === 1 ? path.join(nodesDir, 'node_modules', deps[0]) : undefined;
	if (!packageDir || !existsSync(path.join(packageDir, 'package.json'))) {
		throw fail(`the package is not in ${nodesDir}/node_modules (dependencies recorded there: ${JSON.stringify(deps)})`);
	}
	return { run: { ...res, script: install.script }, packageDir };
}

