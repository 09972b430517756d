// End-to-end tests against real n8n installs (scripts/n8n/install.sh). One jest "project" per
// n8n version key of scripts/n8n/versions.json, so every test file runs once per version; the
// key is the global `N8N_KEY` in the tests. Pick versions with N8N_E2E_KEYS=key1,key2 or
// `--selectProjects key`. A version pinned with `"e2e": "compat"` runs only the files that prove
// a version (COMPAT_FILES: the package loads, the credential test, the trigger across a restart
// and its exactly-once lane on the default scheduler);
// `"e2e": "full"` (the default) runs them all.
const path = require('node:path');
const root = path.resolve(__dirname, '..', '..');
const versions = require(path.join(root, 'scripts/n8n/versions.json'));
const keys = process.env.N8N_E2E_KEYS
	? process.env.N8N_E2E_KEYS.split(',').map((k) => k.trim()).filter(Boolean)
	: Object.keys(versions);

/** The lanes every pinned n8n runs (docs/compatibility.md lists them with the demo's examples). */
const COMPAT_FILES = ['package', 'credential', 'trigger', 'durableScheduler'];
const testMatch = (key) =>
	(versions[key]?.e2e ?? 'full') === 'compat'
		? COMPAT_FILES.map((name) => `**/test/e2e/${name}.e2e.test.ts`)
		: ['**/*.e2e.test.ts'];

/** @type {import('jest').Config} */
module.exports = {
	rootDir: root,
	testTimeout: 300000,
	maxWorkers: process.env.N8N_E2E_WORKERS ? Number(process.env.N8N_E2E_WORKERS) : 2,
	projects: keys.map((key) => ({
		displayName: key,
		rootDir: root,
		testEnvironment: 'node',
		roots: ['<rootDir>/test/e2e'],
		testMatch: testMatch(key),
		globals: { N8N_KEY: key },
		// Ends the run with one line when the build or this key's n8n install is missing (prerequisites.ts).
		globalSetup: '<rootDir>/test/e2e/globalSetup.ts',
		transform: {
			'^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/test/e2e/tsconfig.json' }],
		},
	})),
};
