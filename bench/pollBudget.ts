/**
 * `npm run bench:poll`: how long the trigger's polls of 10,000 changes take against the time n8n
 * gives a poll (docs/trigger.md: Time budget per poll). Each poll runs as n8n 2.41's durable
 * scheduler runs it (scripts/harness NodeRuntime.scheduledPoll: its default 45 s timeout, the 36 s
 * budget it tells, durable cursors on) against the simulator at several latencies per request,
 * for 10,000 changes over many timestamps and 10,000 at one timestamp (a bulk import).
 * Writes bench/results/poll-budget.md and prints it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { PersonnelDataApi } from '../credentials/PersonnelDataApi.credentials';
import { NodeRuntime } from '../scripts/harness';
import { startSimulator } from '../scripts/simulator/server';
import { PersonnelData, PersonnelDataTrigger } from './nodes';

const CHANGES = 10_000;
const TIMEOUT_MS = 45_000; // N8N_SCHEDULER_POLL_TIMEOUT's default
const LATENCIES = (process.env.BENCH_POLL_LATENCIES ?? '0,20,300').split(',').map(Number);
const PARAMETERS = { resource: 'employee', event: 'createdOrUpdated', simplify: false };

interface Row {
	shape: string;
	latencyMs: number;
	polls: number[];
	sent: number;
	listRequests: number;
}

async function measure(shape: 'spread' | 'oneTimestamp', latencyMs: number): Promise<Row> {
	const simulator = await startSimulator({ clockStart: new Date().toISOString() });
	try {
		const runtime = new NodeRuntime({ nodeTypes: [new PersonnelData(), new PersonnelDataTrigger()], credentialTypes: [new PersonnelDataApi()] });
		const { jti, refreshToken } = simulator.credentials.admin;
		runtime.setCredentials('personnelDataApi', { baseUrl: simulator.baseUrl, authMode: 'refreshToken', jti, refreshToken });
		const poll = () => runtime.scheduledPoll({ nodeType: 'personnelDataTrigger', parameters: PARAMETERS, timeoutMs: TIMEOUT_MS, durableCursors: true });
		await poll(); // activation
		if (shape === 'oneTimestamp') simulator.sim.freezeClock();
		simulator.sim.createRecords('employees', CHANGES);
		simulator.sim.unfreezeClock();
		simulator.sim.setFaults({ latencyMs, applyToProvisioning: false });
		const before = simulator.sim.requests().length;
		const polls: number[] = [];
		let sent = 0;
		while (sent < CHANGES && polls.length < 50) {
			const result = await poll();
			if (result.abandoned || result.error) throw new Error(`poll ${polls.length + 1} ${result.abandoned ? 'abandoned' : `failed: ${result.error?.message}`}`);
			polls.push(result.durationMs);
			sent += result.items?.[0]?.length ?? 0;
		}
		const listRequests = simulator.sim.requests().slice(before).filter((entry) => !entry.path.startsWith('/provisioning')).length;
		return { shape: shape === 'spread' ? 'over many timestamps' : 'at one timestamp', latencyMs, polls, sent, listRequests };
	} finally {
		await simulator.close();
	}
}

async function main(): Promise<void> {
	const budgetMs = TIMEOUT_MS - Math.min(Math.max(0.2 * TIMEOUT_MS, 5_000), TIMEOUT_MS / 2);
	const rows: Row[] = [];
	for (const latencyMs of LATENCIES) for (const shape of ['spread', 'oneTimestamp'] as const) rows.push(await measure(shape, latencyMs));
	const seconds = (ms: number) => (ms / 1000).toFixed(1);
	const lines = [
		`Polls of ${CHANGES.toLocaleString('en-US')} changes on n8n 2.41's durable scheduler as the harness runs it: poll timeout ${seconds(TIMEOUT_MS)} s, budget told ${seconds(budgetMs)} s (reading stops after ${seconds(budgetMs * 0.7)} s). Written by \`npm run bench:poll\`.`,
		'',
		'| changes | latency per request | polls | longest poll | each poll (s) | list requests | sent |',
		'|---|---:|---:|---:|---|---:|---:|',
		...rows.map((row) => `| ${row.shape} | ${row.latencyMs} ms | ${row.polls.length} | ${seconds(Math.max(...row.polls))} s | ${row.polls.map(seconds).join(', ')} | ${row.listRequests} | ${row.sent.toLocaleString('en-US')} |`),
	];
	const markdown = `${lines.join('\n')}\n`;
	writeFileSync(join(__dirname, 'results', 'poll-budget.md'), markdown);
	console.log(markdown);
}

main().catch((error: unknown) => {
	console.error(error);
	process.exitCode = 1;
});
