/**
 * Does n8n's own HTTP helper reuse connections, and does `agentOptions: { keepAlive: true }` make it?
 * Run by bench/n8n.ts with the node binary of an n8n install:
 *   node bench/n8nHelperProbe.cjs <install dir> <simulator base URL> <access token> <repetitions>
 * Loads the helper that `this.helpers.httpRequest` ends in for that version (see loadHelper), walks every page of the employees with
 * it, with and without keep-alive agent options, and prints one JSON line: per mode the
 * milliseconds of each walk and the requests and TCP connections the simulator counted.
 * Plain CommonJS: Node 20 (n8n 2.8) runs it without a TypeScript loader.
 */
'use strict';
const { createRequire } = require('node:module');
const path = require('node:path');

const [installDir, baseUrl, token, repsArg] = process.argv.slice(2);
if (!installDir || !baseUrl || !token) throw new Error('usage: n8nHelperProbe.cjs <install dir> <base URL> <token> [repetitions]');
const reps = Number(repsArg ?? 3);
const fromN8n = createRequire(path.join(installDir, 'node_modules/n8n/package.json'));

/** What `this.helpers.httpRequest` calls: 2.41 `Container.get(OutboundHttp).requests().request`, 2.8 n8n-core's `httpRequest`. */
function loadHelper() {
	const core = fromN8n('n8n-core/dist/execution-engine/node-execution-context/utils/request-helper-functions');
	if (typeof core.httpRequest === 'function') return { module: 'n8n-core httpRequest', httpRequest: core.httpRequest };
	fromN8n('reflect-metadata');
	const { Container } = fromN8n('@n8n/di');
	const { OutboundHttp } = fromN8n('@n8n/backend-network');
	return { module: '@n8n/backend-network OutboundHttp', httpRequest: Container.get(OutboundHttp).requests().request };
}

async function control(method, route) {
	const response = await fetch(`${baseUrl}/__sim${route}`, { method });
	if (!response.ok) throw new Error(`control ${method} ${route}: ${response.status}`);
	return method === 'GET' ? await response.json() : undefined;
}

async function walk(httpRequest, agentOptions) {
	let after = null;
	let records = 0;
	for (;;) {
		const query = new URLSearchParams({ 'pagination[first]': '100' });
		if (after !== null) query.set('pagination[after]', after);
		const options = { method: 'GET', url: `${baseUrl}/v1/org/employees?${query}`, json: true, headers: { authorization: `Bearer ${token}` } };
		if (agentOptions) options.agentOptions = agentOptions;
		const page = await httpRequest(options);
		records += page.data.length;
		if (!page.pagination.has_next_page) return records;
		after = page.pagination.end_cursor;
	}
}

async function main() {
	const { module, httpRequest } = loadHelper();
	const modes = { default: undefined, keepAlive: { keepAlive: true } };
	const results = Object.fromEntries(Object.keys(modes).map((mode) => [mode, { ms: [], requests: 0, connections: 0, records: 0 }]));
	for (const mode of Object.keys(modes)) await walk(httpRequest, modes[mode]);
	for (let rep = 0; rep < reps; rep++) {
		const order = rep % 2 === 0 ? Object.keys(modes) : Object.keys(modes).reverse();
		for (const mode of order) {
			await control('DELETE', '/stats');
			const started = performance.now();
			const records = await walk(httpRequest, modes[mode]);
			const ms = performance.now() - started;
			const stats = await control('GET', '/stats');
			Object.assign(results[mode], { requests: stats.requests, connections: stats.connections, records });
			results[mode].ms.push(ms);
		}
	}
	process.stdout.write(`${JSON.stringify({ module, node: process.version, results })}\n`);
}

main().then(
	() => process.exit(0),
	(error) => {
		console.error(error instanceof Error ? (error.stack ?? error.message) : error);
		process.exit(1);
	},
);
