/**
 * `npm run simulator -- --port N` (README: "Try it in your own n8n"): the simulator starts on the
 * port asked for with the same JTI and refresh token every time, so a credential saved in n8n keeps working
 * across restarts; a port already in use fails at once, naming --port.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const ROOT = join(__dirname, '../..');

interface Started {
	baseUrl: string;
	port: number;
	credentials: { admin: { jti: string; refreshToken: string } };
}

/** Runs the CLI; resolves with its first stdout line (parsed) or its exit code and stderr. */
function runCli(args: string[]): Promise<{ started?: Started; exitCode?: number | null; stderr: string; stop: () => Promise<void> }> {
	const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/simulator/cli.ts', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
	let stderr = '';
	child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
	const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
	const stop = async () => {
		if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
		await exited;
	};
	const lines = createInterface({ input: child.stdout });
	return new Promise((resolve) => {
		lines.once('line', (line) => resolve({ started: JSON.parse(line) as Started, stderr, stop }));
		void exited.then((exitCode) => resolve({ exitCode, stderr, stop }));
	});
}

async function freePort(): Promise<number> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	await new Promise<void>((resolve) => server.close(() => resolve()));
	return port;
}

describe('npm run simulator -- --port', () => {
	it('starts on the port asked for, with the same JTI and refresh token at every start; a port in use fails naming --port', async () => {
		const port = await freePort();
		const first = await runCli(['--json', '--port', String(port), '--employees', '5']);
		let firstCredentials: Started['credentials'] | undefined;
		try {
			expect(first.started?.port).toBe(port);
			expect(first.started?.baseUrl).toBe(`http://127.0.0.1:${port}`);
			firstCredentials = first.started?.credentials;

			const taken = await runCli(['--json', '--port', String(port)]);
			await taken.stop();
			expect(taken.started).toBeUndefined();
			expect(taken.exitCode).toBe(1);
			expect(taken.stderr).toContain(`port ${port} is in use`);
			expect(taken.stderr).toContain('--port');
		} finally {
			await first.stop();
		}

		const again = await runCli(['--json', '--port', String(port), '--employees', '5']);
		try {
			expect(again.started?.baseUrl).toBe(`http://127.0.0.1:${port}`);
			const { jti, refreshToken } = again.started?.credentials.admin ?? {};
			expect({ jti, refreshToken }).toEqual({ jti: firstCredentials?.admin.jti, refreshToken: firstCredentials?.admin.refreshToken });
		} finally {
			await again.stop();
		}
	}, 60_000);
});
