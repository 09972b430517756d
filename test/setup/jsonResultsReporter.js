// Writes Jest's results as `jest --json --outputFile` would, to the file named by JEST_JSON_RESULTS.
// .ci/run sets it so that `npm test` runs exactly as the README writes it and CI still counts its
// tests (jest.config.js adds this reporter only when the variable is set).
const { mkdirSync, writeFileSync } = require('node:fs');
const { dirname } = require('node:path');
const { formatTestResults } = require('@jest/test-result');

class JsonResultsReporter {
	constructor(_globalConfig, options) {
		this.file = options.file;
	}

	onRunComplete(_contexts, results) {
		mkdirSync(dirname(this.file), { recursive: true });
		const formatted = formatTestResults(results);
		// Jest settles `success` after the reporters; the same rule, from the counts.
		formatted.success = results.numFailedTests === 0 && results.numFailedTestSuites === 0 && results.numRuntimeErrorTestSuites === 0;
		writeFileSync(this.file, JSON.stringify(formatted));
	}
}

module.exports = JsonResultsReporter;
