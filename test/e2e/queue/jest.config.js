// Queue-mode end-to-end tests (n8n's distributed engine: PostgreSQL, Redis, a main and workers;
// test/e2e/queue.ts) on the newest n8n of scripts/n8n/versions.json, or N8N_QUEUE_KEY. One file
// at a time: each file runs a whole cluster (three n8n processes) on a small machine.
const path = require('node:path');
const root = path.resolve(__dirname, '..', '..', '..');
const versions = require(path.join(root, 'scripts/n8n/versions.json'));
const newest = Object.keys(versions).sort((a, b) =>
	versions[a].n8n.localeCompare(versions[b].n8n, undefined, { numeric: true }),
).at(-1);
const key = process.env.N8N_QUEUE_KEY || newest;

/** @type {import('jest').Config} */
module.exports = {
	rootDir: root,
	displayName: `queue ${key}`,
	testEnvironment: 'node',
	roots: ['<rootDir>/test/e2e/queue'],
	testMatch: ['**/*.queue.test.ts'],
	globals: { N8N_KEY: key },
	// Ends the run with one line when the build, Redis, PostgreSQL or the n8n install is missing (prerequisites.ts).
	globalSetup: '<rootDir>/test/e2e/queue/globalSetup.ts',
	testTimeout: 300000,
	maxWorkers: 1,
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/test/e2e/tsconfig.json' }],
	},
};
