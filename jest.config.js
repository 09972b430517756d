/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	testPathIgnorePatterns: ['/test/e2e/', '/test/editor/'],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }] },
	testTimeout: 60000,
	setupFiles: ['<rootDir>/test/setup/rangeTiming.ts'],
	// Four workers on 2 cores: many suites wait (backoff, time budgets, slow servers), so two left
	// the cores half idle; measured on the CI machine: 292 s wall at 184 % CPU (two workers: 430 s).
	maxWorkers: 4,
	// A worker whose heap has grown past this after a test file is replaced: a heap of many hundred
	// MB took longer to tear down than Jest's grace period on a loaded machine (force exit warning).
	workerIdleMemoryLimit: '400MB',
	// CI (.ci/run) runs the README's `npm test` as written and reads the results from this file.
	...(process.env.JEST_JSON_RESULTS
		? { reporters: ['default', ['<rootDir>/test/setup/jsonResultsReporter.js', { file: process.env.JEST_JSON_RESULTS }]] }
		: {}),
};
