/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	testPathIgnorePatterns: ['/test/e2e/', '/test/editor/'],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }] },
	testTimeout: 60000,
	setupFiles: ['<rootDir>/test/setup/rangeTiming.ts'],
	// Two workers on 2 cores. Four were tried (292 s against 430 s on a quiet machine), but on a loaded
	// CI machine they took 746 s and timing-bound suites failed (a stop before any write, budgets
	// overrun): oversubscribed cores make every timer late, which is what many suites here measure.
	maxWorkers: 2,
	// A worker whose heap has grown past this after a test file is replaced: a heap of many hundred
	// MB took longer to tear down than Jest's grace period on a loaded machine (force exit warning).
	workerIdleMemoryLimit: '400MB',
	// CI (.ci/run) runs the README's `npm test` as written and reads the results from this file.
	...(process.env.JEST_JSON_RESULTS
		? { reporters: ['default', ['<rootDir>/test/setup/jsonResultsReporter.js', { file: process.env.JEST_JSON_RESULTS }]] }
		: {}),
};
