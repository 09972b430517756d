/**
 * What an end-to-end suite needs on the machine, checked before it starts anything: each suite's
 * jest global setup (globalSetup.ts) calls `requirePrerequisites`, so a missing piece ends the run
 * at once with one line naming it and its install command, before any server, database or child
 * process exists. Another suite reuses it the same way:
 *
 *   requirePrerequisites(['package', 'n8n', 'chromium'], { n8nKeys: ['n8n-2.41'] });
 */
import { existsSync, readdirSync } from 'node:fs';
import * as path from 'node:path';

import { assertPackageBuilt, n8nInstance, versionKeys } from '../../scripts/n8n/driver';

/** `package`: this project built (dist/), as the suites install `npm pack` of it. */
export type Prerequisite = 'package' | 'n8n' | 'redis' | 'postgres' | 'chromium';

export interface PrerequisiteOptions {
	/** The n8n installs the suite runs on; by default N8N_E2E_KEYS or every key of versions.json. */
	n8nKeys?: string[];
}

/** The first of `names` found in a folder of PATH, as a full path. */
function onPath(names: string[]): string | undefined {
	const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
	for (const name of names) {
		for (const dir of dirs) {
			if (existsSync(path.join(dir, name))) return path.join(dir, name);
		}
	}
	return undefined;
}

/** redis-server from PATH. */
export function redisBinary(): string {
	const found = onPath(['redis-server']);
	if (!found) throw new Error('redis-server not found: apt-get install -y redis-server');
	return found;
}

/** The folder with initdb and postgres: PD_E2E_PG_BIN, the newest Debian install, or PATH. */
export function postgresBinDir(): string {
	const fromEnv = process.env.PD_E2E_PG_BIN;
	if (fromEnv) return fromEnv;
	const debian = '/usr/lib/postgresql';
	if (existsSync(debian)) {
		const versions = readdirSync(debian)
			.filter((v) => existsSync(path.join(debian, v, 'bin', 'initdb')))
			.sort((a, b) => Number(b) - Number(a));
		if (versions.length) return path.join(debian, versions[0], 'bin');
	}
	for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
		if (dir && existsSync(path.join(dir, 'initdb')) && existsSync(path.join(dir, 'postgres'))) return dir;
	}
	throw new Error('PostgreSQL (initdb) not found: apt-get install -y postgresql (or set PD_E2E_PG_BIN to the folder of initdb)');
}

/** Debian's chromium (or chromium-browser) from PATH. */
export function chromiumBinary(): string {
	const found = onPath(['chromium', 'chromium-browser']);
	if (!found) throw new Error('chromium not found: apt-get install -y chromium');
	return found;
}

const CHECKS: Record<Prerequisite, (options: PrerequisiteOptions) => void> = {
	package: () => assertPackageBuilt(),
	n8n: (options) => {
		for (const key of options.n8nKeys ?? versionKeys()) n8nInstance(key);
	},
	redis: () => redisBinary(),
	postgres: () => postgresBinDir(),
	chromium: () => chromiumBinary(),
};

/** One line per missing prerequisite, naming it and its install command; empty when all are there. */
export function missingPrerequisites(names: Prerequisite[], options: PrerequisiteOptions = {}): string[] {
	const missing: string[] = [];
	for (const name of names) {
		try {
			CHECKS[name](options);
		} catch (error) {
			missing.push(error instanceof Error ? error.message : String(error));
		}
	}
	return missing;
}

/** Throws one error whose message has a line per missing prerequisite. */
export function requirePrerequisites(names: Prerequisite[], options: PrerequisiteOptions = {}): void {
	const missing = missingPrerequisites(names, options);
	if (missing.length > 0) throw new PrerequisiteMissing(missing);
}

export class PrerequisiteMissing extends Error {
	constructor(readonly lines: string[]) {
		super(lines.join('\n'));
		this.name = 'PrerequisiteMissing';
	}
}

/**
 * For a jest `globalSetup`: prints the missing prerequisites, one line each, and ends the run
 * with exit code 1 before jest starts a worker or a test (nothing to stop: nothing was started).
 */
export function exitUnlessPrerequisites(suite: string, names: Prerequisite[], options: PrerequisiteOptions = {}): void {
	const missing = missingPrerequisites(names, options);
	if (missing.length === 0) return;
	for (const line of missing) process.stderr.write(`${suite}: ${line}\n`);
	process.exit(1);
}
