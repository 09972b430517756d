/**
 * `npm run bench:poll`: how long the trigger's polls of 10,000 changes take against the time n8n
 * gives a poll (docs/trigger.md: Time budget per poll). Each poll runs as n8n 2.41's durable
 * scheduler runs it (scripts/harness NodeRuntime.scheduledPoll: its default 45 s timeout, the 36 s
 * budget it tells, durable cursors on) against the simulator at several latencies per request,
 * for 10,000 changes over many timestamps and 10,000 at one timestamp (a bulk import); and a bulk
 * import of 40,000 at one timestamp, with and without Max Changes per Poll 500, at 20 ms a request
 * (BENCH_POLL_LARGE_LATENCY): the polls and pages it takes, and the largest state stored. Then
 * the settle window at its default, idle and after a 40,000-record import (pollSettle.ts).
 * Writes bench/results/poll-budget.md and prints it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { PersonnelDataApi } from '../credentials/PersonnelDataApi.credentials';
import { rangeTiming } from '../nodes/shared/rangeWorth';
import { NodeRuntime } from '../scripts/harness';
import { SimulatorClient } from '../scripts/simulator/client';
import { startSimulator } from '../scripts/simulator/server';
import { startSimulatorProcess } from './common';
import { PersonnelData, PersonnelDataTrigger } from './nodes';
import { settleCosts, settleTable } from './pollSettle';

const CHANGES = 10_000;
const LARGE = 40_000;
const LARGE_LATENCY_MS = Number(process.env.BENCH_POLL_LARGE_LATENCY ?? 20);
const TIMEOUT_MS = 45_000; // N8N_SCHEDULER_POLL_TIMEOUT's default
const LATENCIES = (process.env.BENCH_POLL_LATENCIES ?? '0,20,300').split(',').map(Number);
const PARAMETERS = { resource: 'employee', event: 'createdOrUpdated', simplify: false };

interface Case {
	shape: 'spread' | 'oneTimestamp';
	changes: number;
	latencyMs: number;
	maxChangesPerPoll?: number;
}

interface Row {
	shape: string;
	/** The largest state (n8n's static data of the node) stored after a poll, in bytes. */
	largestState: number;
	latencyMs: number;
	polls: number[];
	sent: number;
	listRequests: number;
}

type Simulator = Awaited<ReturnType<typeof startSimulator>>;

/** A trigger polling the simulator as n8n 2.41's durable scheduler does. */
function pollerOf(simulator: Simulator, options: Record<string, number>, timeoutMs = TIMEOUT_MS) {
	const runtime = new NodeRuntime({ nodeTypes: [new PersonnelData(), new PersonnelDataTrigger()], credentialTypes: [new PersonnelDataApi()] });
	const { jti, refreshToken } = simulator.credentials.admin;
	runtime.setCredentials('personnelDataApi', { baseUrl: simulator.baseUrl, authMode: 'refreshToken', jti, refreshToken });
	const parameters = { ...PARAMETERS, options };
	return () => runtime.scheduledPoll({ nodeType: 'personnelDataTrigger', parameters, timeoutMs, durableCursors: true });
}

async function measure({ shape, changes, latencyMs, maxChangesPerPoll }: Case): Promise<Row> {
	const simulator = await startSimulator({ clockStart: new Date().toISOString() });
	try {
		const poll = pollerOf(simulator, maxChangesPerPoll === undefined ? {} : { maxChangesPerPoll });
		await poll(); // activation
		if (shape === 'oneTimestamp') simulator.sim.freezeClock();
		simulator.sim.createRecords('employees', changes);
		simulator.sim.unfreezeClock();
		simulator.sim.setFaults({ latencyMs, applyToProvisioning: false });
		// By sequence number: the simulator keeps only its last 2,000 requests.
		const before = simulator.sim.requests().at(-1)?.seq ?? 0;
		const polls: number[] = [];
		let sent = 0;
		let largestState = 0;
		while (sent < changes && polls.length < 500) {
			const result = await poll();
			if (result.abandoned || result.error) throw new Error(`poll ${polls.length + 1} ${result.abandoned ? 'abandoned' : `failed: ${result.error?.message}`}`);
			polls.push(result.durationMs);
			sent += result.items?.[0]?.length ?? 0;
			largestState = Math.max(largestState, Buffer.byteLength(JSON.stringify(result.staticData), 'utf8'));
		}
		const listRequests = simulator.sim.requests().filter((entry) => entry.seq > before && !entry.path.startsWith('/provisioning')).length;
		const where = shape === 'spread' ? 'over many timestamps' : 'at one timestamp';
		const cap = maxChangesPerPoll === undefined ? '' : `, Max Changes per Poll ${maxChangesPerPoll}`;
		return { shape: `${changes.toLocaleString('en-US')} ${where}${cap}`, latencyMs, polls, sent, listRequests, largestState };
	} finally {
		await simulator.close();
	}
}

/** Issue 44's case: a burst of 4,000 at 300 ms a request under an 8 s poll timeout (the durable lanes' setting). */
const CATCH_UP = { changes: 4_000, latencyMs: 300, timeoutMs: 8_000 };

interface CatchUp {
	reader: string;
	polls: number[];
	sent: number;
	repeated: number;
	listRequests: number;
}

/**
 * The polls the trigger takes to send the burst, reading one page after another or in ranges side
 * by side. The simulator runs in its own process here, as a server does: with many reads in
 * flight, its work would otherwise take the node's time.
 */
async function catchUp(inRanges: boolean): Promise<CatchUp> {
	const server = await startSimulatorProcess([]);
	const client = new SimulatorClient(server.baseUrl);
	const share = rangeTiming.worthWaitingShare;
	// One cursor: ranges never pay. In ranges: the node decides, as it does for users.
	if (!inRanges) rangeTiming.worthWaitingShare = 2;
	try {
		const runtime = new NodeRuntime({ nodeTypes: [new PersonnelData(), new PersonnelDataTrigger()], credentialTypes: [new PersonnelDataApi()] });
		const { jti, refreshToken } = server.credentials.admin;
		runtime.setCredentials('personnelDataApi', { baseUrl: server.baseUrl, authMode: 'refreshToken', jti, refreshToken });
		const poll = () => runtime.scheduledPoll({ nodeType: 'personnelDataTrigger', parameters: { ...PARAMETERS, options: {} }, timeoutMs: CATCH_UP.timeoutMs, durableCursors: true });
		await poll();
		await client.createRecords('employees', CATCH_UP.changes);
		await client.setFaults({ latencyMs: CATCH_UP.latencyMs, applyToProvisioning: false });
		const before = (await client.requests(1)).at(-1)?.seq ?? 0;
		const polls: number[] = [];
		const keys = new Set<string>();
		let sent = 0;
		while (sent < CATCH_UP.changes && polls.length < 100) {
			const result = await poll();
			if (result.abandoned || result.error) throw new Error(`poll ${polls.length + 1} ${result.abandoned ? 'abandoned' : `failed: ${result.error?.message}`}`);
			polls.push(result.durationMs);
			for (const item of result.items?.[0] ?? []) keys.add(`${String(item.json.id)}@${String(item.json.updated_at)}`);
			sent += result.items?.[0]?.length ?? 0;
		}
		const listRequests = (await client.requests()).filter((entry) => entry.seq > before && !entry.path.startsWith('/provisioning')).length;
		return { reader: inRanges ? 'in ranges side by side (the default)' : 'one page after another', polls, sent, repeated: sent - keys.size, listRequests };
	} finally {
		rangeTiming.worthWaitingShare = share;
		await server.stop();
	}
}

function catchUpTable(rows: CatchUp[]): string[] {
	const seconds = (ms: number) => (ms / 1000).toFixed(1);
	return [
		`The trigger catching up after a burst of ${CATCH_UP.changes.toLocaleString('en-US')} changes at ${CATCH_UP.latencyMs} ms a request, poll timeout ${seconds(CATCH_UP.timeoutMs)} s (budget told ${seconds(CATCH_UP.timeoutMs / 2)} s):`,
		'',
		'| reading | polls | longest poll | each poll (s) | list requests | sent | sent twice |',
		'|---|---:|---:|---|---:|---:|---:|',
		...rows.map((row) => `| ${row.reader} | ${row.polls.length} | ${seconds(Math.max(...row.polls))} s | ${row.polls.map(seconds).join(', ')} | ${row.listRequests} | ${row.sent.toLocaleString('en-US')} | ${row.repeated} |`),
	];
}

async function main(): Promise<void> {
	if (process.argv.includes('--catch-up')) {
		console.log(catchUpTable([await catchUp(false), await catchUp(true)]).join('\n'));
		return;
	}
	const budgetMs = TIMEOUT_MS - Math.min(Math.max(0.2 * TIMEOUT_MS, 5_000), TIMEOUT_MS / 2);
	const rows: Row[] = [];
	const cases: Case[] = LATENCIES.flatMap((latencyMs) => (['spread', 'oneTimestamp'] as const).map((shape) => ({ shape, changes: CHANGES, latencyMs })));
	cases.push({ shape: 'oneTimestamp', changes: LARGE, latencyMs: LARGE_LATENCY_MS }, { shape: 'oneTimestamp', changes: LARGE, latencyMs: LARGE_LATENCY_MS, maxChangesPerPoll: 500 });
	for (const one of cases) rows.push(await measure(one));
	const simulator = await startSimulator({ clockStart: new Date().toISOString() });
	const settle = await settleCosts(simulator, pollerOf(simulator, {})).finally(() => simulator.close());
	const seconds = (ms: number) => (ms / 1000).toFixed(1);
	const lines = [
		`Polls of a burst of changes on n8n 2.41's durable scheduler as the harness runs it: poll timeout ${seconds(TIMEOUT_MS)} s, budget told ${seconds(budgetMs)} s (reading stops after ${seconds(budgetMs * 0.7)} s). Written by \`npm run bench:poll\`.`,
		'',
		'| changes | latency per request | polls | longest poll | each poll (s) | list requests | sent | largest state |',
		'|---|---:|---:|---:|---|---:|---:|---:|',
		...rows.map((row) => {
			const each = row.polls.length > 12 ? `${row.polls.slice(0, 12).map(seconds).join(', ')}, …` : row.polls.map(seconds).join(', ');
			return `| ${row.shape} | ${row.latencyMs} ms | ${row.polls.length} | ${seconds(Math.max(...row.polls))} s | ${each} | ${row.listRequests} | ${row.sent.toLocaleString('en-US')} | ${(row.largestState / 1024).toFixed(1)} kB |`;
		}),
	];
	lines.push('', ...settleTable(settle));
	lines.push('', ...catchUpTable([await catchUp(false), await catchUp(true)]));
	const markdown = `${lines.join('\n')}\n`;
	writeFileSync(join(__dirname, 'results', 'poll-budget.md'), markdown);
	console.log(markdown);
}

main().catch((error: unknown) => {
	console.error(error);
	process.exitCode = 1;
});
