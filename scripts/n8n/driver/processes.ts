/** Child processes and free ports for the n8n driver. */
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';

export interface CliResult {
	/** Exit code; 1 when the process was killed by a signal. */
	rc: number;
	/** The signal that ended the process, if any. */
	signal?: string;
	stdout: string;
	stderr: string;
}

/**
 * n8n 2.41 on Node 24 (its default "vm" expression engine, isolated-vm) often dies of SIGSEGV
 * while exiting, after its work is done and printed (a race between an isolate thread and the
 * process teardown; gone with N8N_EXPRESSION_ENGINE=legacy). Commands that load the engine
 * (execute, import:workflow, start) are judged by their output when this happens.
 */
export function crashedAtExit(res: CliResult): boolean {
	return res.signal === 'SIGSEGV' || res.rc === 139;
}

export function runProcess(
	cmd: string,
	args: string[],
	opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<CliResult> {
	return new Promise((resolve) => {
		execFile(
			cmd,
			args,
			{
				cwd: opts.cwd,
				env: opts.env,
				timeout: opts.timeoutMs ?? 120_000,
				maxBuffer: 256 * 1024 * 1024,
				killSignal: 'SIGKILL',
			},
			(error, stdout, stderr) => {
				const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
				const signal = error?.signal ?? undefined;
				resolve({ rc: code, signal, stdout: String(stdout), stderr: String(stderr) });
			},
		);
	});
}

export async function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const srv = createServer();
		srv.unref();
		srv.on('error', reject);
		srv.listen(0, '127.0.0.1', () => {
			const addr = srv.address();
			const port = typeof addr === 'object' && addr ? addr.port : 0;
			srv.close(() => resolve(port));
		});
	});
}
