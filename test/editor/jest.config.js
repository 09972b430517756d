// The editor suite: n8n's editor in Debian's Chromium (test/editor/README.md). One n8n server, one
// browser and one page for the whole suite, so one file and one worker.
const path = require('node:path');
const root = path.resolve(__dirname, '..', '..');

/** @type {import('jest').Config} */
module.exports = {
	rootDir: root,
	testEnvironment: 'node',
	roots: ['<rootDir>/test/editor'],
	testMatch: ['**/*.editor.test.ts'],
	testTimeout: 240000,
	maxWorkers: 1,
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/test/editor/tsconfig.json' }],
	},
};
