/** The Personnel Data API simulator in a process of its own (`scripts/simulator/cli.ts --json`). */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

import { ROOT } from '../scripts/n8n/driver';
import type { SimulatorCredentials } from '../scripts/simulator/auth';
import { SimulatorClient } from '../scripts/simulator/client';

/** Seed and size of the demo organisation: the IDs in demo/workflows/*.json come from it. */
export const DEMO_SEED = 2026;
export const DEMO_EMPLOYEES = 300;

export interface SimulatorProcess {
	baseUrl: string;
	credentials: SimulatorCredentials;
	client: SimulatorClient;
	process: ChildProcess;
	stop(): Promise<void>;
}

interface StartLine {
	baseUrl: string;
	port: number;
	credentials: SimulatorCredentials;
}

export async function startSimulatorProcess(timeoutMs = 30_000): Promise<SimulatorProcess> {
	const child = spawn(
		process.execPath,
		['--import', 'tsx', 'scripts/simulator/cli.ts', '--json', '--seed', String(DEMO_SEED), '--employees', String(DEMO_EMPLOYEES)],
		{ cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
	);
	const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
	const stop = async (): Promise<void> => {
		if (child.exitCode !== null || child.signalCode !== null) return;
		child.kill('SIGTERM');
		const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
		await exited;
		clearTimeout(timer);
	};
	const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
	const first = await new Promise<string>((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error('the simulator did not start in time')), timeoutMs);
		lines.once('line', (line) => {
			clearTimeout(timer);
			resolve(line);
		});
		child.once('exit', (code) => {
			clearTimeout(timer);
			reject(new Error(`the simulator exited with ${code} before it started`));
		});
	}).catch(async (error: unknown) => {
		await stop();
		throw error;
	});
	// Keep reading (and ignoring) whatever it prints later, so its pipe never fills.
	lines.on('line', () => undefined);
	const start = JSON.parse(first) as StartLine;
	return { baseUrl: start.baseUrl, credentials: start.credentials, client: new SimulatorClient(start.baseUrl), process: child, stop };
}
