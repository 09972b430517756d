/**
 * One bench measurement in a fresh process (spawned by run.ts with --expose-gc). Reads the task
 * from BENCH_TASK and prints one `BENCH_RESULT <json>` line. Node code runs through n8n-core's real
 * runtime (scripts/harness); the comparison loop is a minimal hand-written fetch loop with the token
 * the node provisioned.
 */
import { Agent } from 'node:http';

import axios from 'axios';
import { httpRequest } from 'n8n-core/dist/execution-engine/node-execution-context/utils/request-helper-functions';
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { PersonnelDataApi } from '../credentials/PersonnelDataApi.credentials';
import { NodeRuntime } from '../scripts/harness';
import { SimulatorClient } from '../scripts/simulator/client';
import type { SimulatorStats } from '../scripts/simulator/requestLog';
import { startSimulator, type RunningSimulator } from '../scripts/simulator/server';
import {
	HTTP_CLIENTS,
	RESULT_MARKER,
	type HttpClientName,
	type HttpClientRuns,
	type HttpClientsResult,
	type HttpClientsTask,
	type MemoryResult,
	type MemoryTask,
	type PerItemResult,
	type PerItemRun,
	type PerItemTask,
	type ReturnAllResult,
	type ReturnAllTask,
	type SimulatorSource,
	type Task,
	type TaskResult,
	type TokensResult,
	type TokensTask,
	type TriggerResult,
	type TriggerTask,
} from './common';
import { PersonnelData, PersonnelDataTrigger } from './nodes';

const CREDENTIAL = 'personnelDataApi';
const EMPLOYEES_PATH = '/v1/org/employees';
const TRIGGER_NODE_NAME = 'Personnel Data Trigger';
const PAGE_SIZE = 100;

interface Bed {
	baseUrl: string;
	client: SimulatorClient;
	runtime: NodeRuntime;
	inProcess?: RunningSimulator;
}

async function openBed(source: SimulatorSource): Promise<Bed> {
	let baseUrl: string;
	let jti: string;
	let refreshToken: string;
	let inProcess: RunningSimulator | undefined;
	if (source.kind === 'external') {
		({ baseUrl, jti, refreshToken } = source);
	} else {
		inProcess = await startSimulator({ sizes: { employees: source.employees } });
		baseUrl = inProcess.baseUrl;
		({ jti, refreshToken } = inProcess.credentials.admin);
	}
	const runtime = new NodeRuntime({
		nodeTypes: [new PersonnelData(), new PersonnelDataTrigger()],
		credentialTypes: [new PersonnelDataApi()],
	});
	runtime.setCredentials(CREDENTIAL, { baseUrl, authMode: 'refreshToken', jti, refreshToken });
	return { baseUrl, client: new SimulatorClient(baseUrl), runtime, inProcess };
}

function accessToken(bed: Bed): string {
	const token = bed.runtime.storedCredentials(CREDENTIAL)?.accessToken;
	if (typeof token !== 'string' || token === '') throw new Error('the node has not provisioned a token yet');
	return token;
}

/** Total of the stats counters that are list requests of any resource. */
function listRequestsOf(stats: SimulatorStats): number {
	return Object.entries(stats.byRouteKind)
		.filter(([kind]) => kind.endsWith('.list'))
		.reduce((sum, [, count]) => sum + count, 0);
}

function provisioningOf(stats: SimulatorStats): number {
	return stats.provisioning.begin + stats.provisioning.refresh;
}

async function timed<T>(run: () => Promise<T>): Promise<{ ms: number; value: T }> {
	const started = performance.now();
	const value = await run();
	return { ms: performance.now() - started, value };
}

function collectGarbage(): void {
	const gc = (globalThis as { gc?: () => void }).gc;
	if (gc) {
		gc();
		gc();
	}
}

// ---------------------------------------------------------------- node runs

function employeeListParameters(options: { conditionId?: string; simplify: boolean; limit?: number }): INodeParameters {
	const parameters: INodeParameters = {
		resource: 'employee',
		operation: 'getMany',
		returnAll: options.limit === undefined,
		simplify: options.simplify,
	};
	if (options.limit !== undefined) parameters.limit = options.limit;
	if (options.conditionId) parameters.condition = { __rl: true, mode: 'id', value: options.conditionId };
	return parameters;
}

async function executeNode(bed: Bed, parameters: INodeParameters, items?: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const result = await bed.runtime.execute({ nodeType: 'personnelData', parameters, items });
	if (result.error) throw result.error;
	return result.items?.[0] ?? [];
}

// ---------------------------------------------------------------- the hand-written loop

interface CursorPage {
	data: IDataObject[];
	pagination: { end_cursor: string | null; has_next_page: boolean };
}

/** GETs one URL with the bearer token and returns the parsed page (throws on a non-2xx status). */
type PageGetter = (url: string, token: string) => Promise<CursorPage>;

const fetchPage: PageGetter = async (url, token) => {
	const response = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
	if (!response.ok) throw new Error(`raw loop: ${response.status} for ${url}`);
	return (await response.json()) as CursorPage;
};

/** What a careful user would write: same token, same pages, follow end_cursor, keep every record. */
async function rawLoop(
	baseUrl: string,
	token: string,
	path: string,
	query: URLSearchParams,
	getPage: PageGetter = fetchPage,
): Promise<{ records: IDataObject[]; requests: number }> {
	const records: IDataObject[] = [];
	let requests = 0;
	let after: string | null = null;
	for (;;) {
		const params = new URLSearchParams(query);
		params.set('pagination[first]', String(PAGE_SIZE));
		if (after !== null) params.set('pagination[after]', after);
		const page = await getPage(`${baseUrl}${path}?${params.toString()}`, token);
		requests++;
		for (const record of page.data) records.push(record);
		if (!page.pagination.has_next_page) break;
		after = page.pagination.end_cursor;
	}
	return { records, requests };
}

/** An axios instance of its own: n8n-core's interceptor (a new agent per request) sits on the default one. */
const plainAxios = axios.create();
const sharedAgent = new Agent({ keepAlive: true });

const PAGE_GETTERS: Record<HttpClientName, PageGetter> = {
	fetch: fetchPage,
	axiosSharedAgent: async (url, token) =>
		(await plainAxios.get<CursorPage>(url, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' }, httpAgent: sharedAgent })).data,
	axiosAgentPerRequest: async (url, token) =>
		(await plainAxios.get<CursorPage>(url, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' }, httpAgent: new Agent() })).data,
	n8nHttpRequest: async (url, token) =>
		(await httpRequest({ method: 'GET', url, json: true, headers: { authorization: `Bearer ${token}` } })) as unknown as CursorPage,
};

/** Warms up fetch (undici loads lazily) with one request that matches nothing. */
const ONE_PAGE_QUERY = new URLSearchParams({ 'filters[id][op]': 'eq', 'filters[id][value]': '00000000-0000-4000-8000-000000000000' });

function employeeQuery(conditionId: string | undefined): URLSearchParams {
	const query = new URLSearchParams();
	if (conditionId) query.set('condition_id', conditionId);
	return query;
}

// ---------------------------------------------------------------- tasks

async function returnAll(task: ReturnAllTask): Promise<ReturnAllResult> {
	const bed = await openBed(task.simulator);
	try {
		const parameters = employeeListParameters({ conditionId: task.conditionId, simplify: task.simplify });
		await bed.client.resetStats();
		// First run: fresh credential, so it counts the token's two calls; it is also the warm-up.
		const first = await executeNode(bed, parameters);
		const stats = await bed.client.stats();
		const token = accessToken(bed);
		const query = employeeQuery(task.conditionId);
		await rawLoop(bed.baseUrl, token, EMPLOYEES_PATH, ONE_PAGE_QUERY);

		const nodeMs: number[] = [];
		const rawMs: number[] = [];
		let rawRequests = 0;
		for (let rep = 0; rep < task.reps; rep++) {
			collectGarbage();
			const raw = await timed(() => rawLoop(bed.baseUrl, token, EMPLOYEES_PATH, query));
			rawMs.push(raw.ms);
			rawRequests = raw.value.requests;
			collectGarbage();
			nodeMs.push((await timed(() => executeNode(bed, parameters))).ms);
		}
		return {
			kind: 'returnAll',
			n: task.n,
			records: first.length,
			requests: stats.requests,
			listRequests: listRequestsOf(stats),
			provisioningRequests: provisioningOf(stats),
			rawRequests,
			nodeMs,
			rawMs,
		};
	} finally {
		await bed.inProcess?.close();
	}
}

/** RSS sampled every few ms while `run` works; RSS rarely shrinks, so the last value counts too. */
async function peakRssDuring<T>(run: () => Promise<T>): Promise<{ value: T; peak: number }> {
	let peak = process.memoryUsage.rss();
	const timer = setInterval(() => {
		peak = Math.max(peak, process.memoryUsage.rss());
	}, 2);
	try {
		const value = await run();
		return { value, peak: Math.max(peak, process.memoryUsage.rss()) };
	} finally {
		clearInterval(timer);
	}
}

async function memory(task: MemoryTask): Promise<MemoryResult> {
	const bed = await openBed(task.simulator);
	// Warm-up in both modes: the same modules loaded, a token provisioned, both code paths compiled.
	await executeNode(bed, employeeListParameters({ simplify: false, limit: 150 }));
	const token = accessToken(bed);
	await rawLoop(bed.baseUrl, token, EMPLOYEES_PATH, ONE_PAGE_QUERY);
	collectGarbage();
	const rssBefore = process.memoryUsage.rss();
	const heapBefore = process.memoryUsage().heapUsed;

	const { value: records, peak } = await peakRssDuring(async (): Promise<IDataObject[]> => {
		if (task.mode === 'raw') return (await rawLoop(bed.baseUrl, token, EMPLOYEES_PATH, new URLSearchParams())).records;
		const items = await executeNode(bed, employeeListParameters({ simplify: false }));
		return items.map((item) => item.json);
	});
	collectGarbage();
	const heapRetained = process.memoryUsage().heapUsed;
	let jsonBytes = 0;
	for (const record of records) jsonBytes += Buffer.byteLength(JSON.stringify(record));
	return {
		kind: 'memory',
		n: task.n,
		mode: task.mode,
		records: records.length,
		rssBefore,
		rssPeak: peak,
		heapBefore,
		heapRetained,
		jsonBytesPerRecord: records.length === 0 ? 0 : jsonBytes / records.length,
	};
}

async function trigger(task: TriggerTask): Promise<TriggerResult> {
	const bed = await openBed(task.simulator);
	const parameters: INodeParameters = { resource: 'employee', event: 'createdOrUpdated', simplify: false };
	const poll = async (): Promise<INodeExecutionData[]> => {
		const result = await bed.runtime.poll({ nodeType: 'personnelDataTrigger', parameters, mode: 'trigger' });
		if (result.error) throw result.error;
		return result.items?.[0] ?? [];
	};
	const countRequests = async (run: () => Promise<unknown>): Promise<SimulatorStats> => {
		await bed.client.resetStats();
		await run();
		return await bed.client.stats();
	};

	const activation = await countRequests(poll);
	const idle = await countRequests(poll);

	const ids = (await bed.client.getRecords('employees')).map((record) => record.id);
	if (ids.length < task.changes) throw new Error(`only ${ids.length} employees; ${task.changes} changes asked for`);
	await bed.client.touchRecords('employees', ids.slice(0, task.changes));
	const before = bed.runtime.staticData(TRIGGER_NODE_NAME);

	await bed.client.clearRequests();
	let emitted = 0;
	const changed = await countRequests(async () => {
		emitted = (await poll()).length;
	});
	const after = bed.runtime.staticData(TRIGGER_NODE_NAME);
	// The poll's own first list request, replayed by hand with the same filter and order.
	const firstList = (await bed.client.requests()).find((entry) => entry.routeKind.endsWith('.list'));
	if (!firstList) throw new Error('the changes poll sent no list request');
	const query = new URLSearchParams(firstList.rawQuery);
	query.delete('pagination[first]');
	query.delete('pagination[after]');
	const token = accessToken(bed);
	const warm = await rawLoop(bed.baseUrl, token, EMPLOYEES_PATH, query);

	const nodeMs: number[] = [];
	const rawMs: number[] = [];
	for (let rep = 0; rep < task.reps; rep++) {
		collectGarbage();
		rawMs.push((await timed(() => rawLoop(bed.baseUrl, token, EMPLOYEES_PATH, query))).ms);
		bed.runtime.setStaticData(TRIGGER_NODE_NAME, before);
		collectGarbage();
		nodeMs.push((await timed(poll)).ms);
	}
	bed.runtime.setStaticData(TRIGGER_NODE_NAME, after);
	const idleAfter = await countRequests(poll);

	return {
		kind: 'trigger',
		activationRequests: activation.requests,
		idleRequests: idle.requests,
		idleAfterChangesRequests: idleAfter.requests,
		changes: task.changes,
		idsAtWatermark: ((before.changes as { idsAtWatermark?: string[] } | undefined)?.idsAtWatermark ?? []).length,
		emitted,
		changeRequests: changed.requests,
		changeListRequests: listRequestsOf(changed),
		nodeMs,
		rawMs,
		rawRequests: warm.requests,
		rawRecords: warm.records.length,
	};
}

function getItemsParameters(concurrency: number, readInBatches = false): INodeParameters {
	return {
		resource: 'employee',
		operation: 'get',
		id: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
		simplify: false,
		options: { concurrency, readInBatches },
	};
}

async function tokens(task: TokensTask): Promise<TokensResult> {
	const bed = await openBed(task.simulator);
	const ids = (await bed.client.getRecords('employees')).map((record) => record.id);
	const previous = await bed.client.getConfig();
	await bed.client.setTokenTtl(task.ttlSeconds);
	await bed.client.resetStats();
	// Time passing without waiting: the simulator clock moves, and with clientClock the client's
	// Date.now (which the node compares with the token's expiry) moves by the same amount.
	const realNow = Date.now.bind(Date);
	let clientOffsetMs = 0;
	if (task.clientClock) Date.now = () => realNow() + clientOffsetMs;
	let failed = 0;
	try {
		for (let i = 0; i < task.requests; i++) {
			await bed.client.advanceClock(task.stepSeconds);
			clientOffsetMs += task.stepSeconds * 1000;
			const result = await bed.runtime.execute({
				nodeType: 'personnelData',
				parameters: getItemsParameters(1),
				items: [{ json: { id: ids[i % ids.length] } }],
			});
			if (result.error) failed++;
		}
	} finally {
		Date.now = realNow;
		await bed.client.setTokenTtl(previous.tokenTtlSeconds);
	}
	const stats = await bed.client.stats();
	return {
		kind: 'tokens',
		requests: task.requests,
		ttlSeconds: task.ttlSeconds,
		stepSeconds: task.stepSeconds,
		clientClock: task.clientClock,
		simulatedSeconds: task.requests * task.stepSeconds,
		total: stats.requests,
		provisioningBegin: stats.provisioning.begin,
		provisioningRefresh: stats.provisioning.refresh,
		unauthorized: stats.unauthorized,
		failed,
	};
}

async function perItem(task: PerItemTask): Promise<PerItemResult> {
	const bed = await openBed(task.simulator);
	const ids = (await bed.client.getRecords('employees')).slice(0, task.items).map((record) => record.id);
	const items: INodeExecutionData[] = ids.map((id) => ({ json: { id } }));
	// Warm-up without latency: provisions the token and compiles the path.
	await executeNode(bed, getItemsParameters(1), items.slice(0, 20));
	await executeNode(bed, getItemsParameters(1, true), items.slice(0, 20));
	await bed.client.setFaults({ latencyMs: task.latencyMs });
	const runs: PerItemRun[] = [];
	// One request per item at each Concurrency, then the same items read in batches (Concurrency 1).
	const plans = [...task.concurrencies.map((concurrency) => ({ concurrency, batched: false })), { concurrency: 1, batched: true }];
	try {
		for (const { concurrency, batched } of plans) {
			await bed.client.resetStats();
			collectGarbage();
			const { ms, value } = await timed(() => executeNode(bed, getItemsParameters(concurrency, batched), items));
			const stats = await bed.client.stats();
			const listRequests = stats.byRouteKind['employees.list'] ?? 0;
			const getRequests = stats.byRouteKind['employees.get'] ?? 0;
			const errors = value.filter((item) => item.json.error !== undefined).length;
			if (value.length !== items.length) throw new Error(`per item: ${value.length} items out for ${items.length} in (Concurrency ${concurrency}, batched ${batched})`);
			runs.push({ concurrency, batched, ms, requests: stats.requests, listRequests, getRequests, errors });
		}
	} finally {
		await bed.client.setFaults({ latencyMs: 0 });
	}
	return { kind: 'perItem', items: task.items, latencyMs: task.latencyMs, runs };
}

async function httpClients(task: HttpClientsTask): Promise<HttpClientsResult> {
	const client = new SimulatorClient(task.simulator.baseUrl);
	const token = await client.issueToken('admin');
	const names = Object.keys(HTTP_CLIENTS) as HttpClientName[];
	const runs = new Map<HttpClientName, HttpClientRuns>(names.map((name) => [name, { client: name, ms: [], requests: 0, connections: 0, records: 0 }]));
	// Warm-up: every client loaded and compiled.
	for (const name of names) await rawLoop(task.simulator.baseUrl, token, EMPLOYEES_PATH, ONE_PAGE_QUERY, PAGE_GETTERS[name]);
	for (let rep = 0; rep < task.reps; rep++) {
		for (let i = 0; i < names.length; i++) {
			const name = names[(i + rep) % names.length];
			const entry = runs.get(name) as HttpClientRuns;
			await client.resetStats();
			collectGarbage();
			const { ms, value } = await timed(() => rawLoop(task.simulator.baseUrl, token, EMPLOYEES_PATH, new URLSearchParams(), PAGE_GETTERS[name]));
			const stats = await client.stats();
			entry.ms.push(ms);
			entry.requests = stats.requests;
			entry.connections = stats.connections;
			entry.records = value.records.length;
		}
	}
	return { kind: 'httpClients', n: task.n, clients: [...runs.values()] };
}

async function run(task: Task): Promise<TaskResult> {
	switch (task.kind) {
		case 'returnAll':
			return await returnAll(task);
		case 'memory':
			return await memory(task);
		case 'trigger':
			return await trigger(task);
		case 'tokens':
			return await tokens(task);
		case 'perItem':
			return await perItem(task);
		case 'httpClients':
			return await httpClients(task);
	}
}

async function main(): Promise<void> {
	const raw = process.env.BENCH_TASK;
	if (!raw) throw new Error('BENCH_TASK is not set; run the bench through `npm run bench`');
	const result = await run(JSON.parse(raw) as Task);
	process.stdout.write(`${RESULT_MARKER}${JSON.stringify(result)}\n`);
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		console.error(error instanceof Error ? (error.stack ?? error.message) : error);
		process.exit(1);
	},
);
