/**
 * One bench measurement in a fresh process (spawned by run.ts with --expose-gc). Reads the task
 * from BENCH_TASK and prints one `BENCH_RESULT <json>` line. Node code runs through n8n-core's real
 * runtime (scripts/harness); the comparison loop is a minimal hand-written fetch loop with the token
 * the node provisioned.
 */
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { SimulatorClient } from '../scripts/simulator/client';
import type { SimulatorStats } from '../scripts/simulator/requestLog';
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
	type Task,
	type TaskResult,
	type TokensResult,
	type TokensTask,
	type TriggerResult,
	type TriggerTask,
} from './common';
import { accessToken, collectGarbage, employeeListParameters, employeeQuery, EMPLOYEES_PATH, executeNode, listRequestsOf, ONE_PAGE_QUERY, openBed, PAGE_GETTERS, provisioningOf, rawLoop, timed, TRIGGER_NODE_NAME } from './workerBed';

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
