/** `n8n start` with the owner set up and logged in: the REST API, trigger runs, executions. */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, openSync, closeSync } from 'node:fs';
import * as path from 'node:path';

import { requireFromN8n } from './installs';
import { freePort } from './processes';
import type { N8nUserFolder } from './userFolder';
import type { RunExecutionData, WorkflowFile } from './cli';

export interface ExecutionSummary {
	id: string;
	workflowId: string;
	mode: string;
	status: string;
	finished?: boolean;
	startedAt?: string;
	stoppedAt?: string;
	[extra: string]: unknown;
}

export interface ExecutionDetails extends ExecutionSummary {
	/** Decoded (flatted) execution data. */
	data: RunExecutionData;
}

export interface N8nServer {
	folder: N8nUserFolder;
	baseUrl: string;
	port: number;
	/** The owner's auth cookie (`n8n-auth=...`). */
	cookie: string;
	process: ChildProcess;
	/** Request to the internal REST API (`/rest/...`) as the owner; returns the `data` field. */
	rest<T = unknown>(method: string, urlPath: string, body?: unknown): Promise<T>;
	/** Raw request with the owner's cookie. */
	request(method: string, urlPath: string, body?: unknown): Promise<Response>;
	getWorkflow(id: string): Promise<WorkflowFile & { versionId?: string; active: boolean }>;
	/** Manual run starting from a trigger node (as "Test workflow"/"Fetch Test Event"); returns the execution id. */
	runFromTrigger(workflowId: string, triggerName: string): Promise<string>;
	/** Activates (2.x: publishes) a workflow on the running server. */
	activateWorkflow(workflowId: string): Promise<void>;
	deactivateWorkflow(workflowId: string): Promise<void>;
	listExecutions(workflowId?: string): Promise<ExecutionSummary[]>;
	getExecution(id: string): Promise<ExecutionDetails>;
	/** Polls until the execution has stopped. */
	waitForExecution(id: string, timeoutMs?: number): Promise<ExecutionDetails>;
	/** Polls until `count` executions of the workflow have finished; returns them, newest first. */
	waitForExecutions(workflowId: string, count: number, timeoutMs?: number): Promise<ExecutionSummary[]>;
	/** Node type names the server knows (from /types/nodes.json). */
	nodeTypes(): Promise<string[]>;
	/** Credential type names the server knows (from /types/credentials.json). */
	credentialTypes(): Promise<string[]>;
	/** stdout+stderr of the server so far. */
	logs(): string;
	stop(): Promise<void>;
}

export const OWNER = {
	email: 'owner@e2e.test',
	firstName: 'E2E',
	lastName: 'Owner',
	password: 'E2e-Owner-Passw0rd!',
};
const BROWSER_ID = 'e2e-browser';

function sleepMs(ms: number): Promise<void> {
	return new Promise((r) => setTimeout(r, ms));
}

/**
 * Starts `n8n start` on free ports, waits for /healthz, sets up the owner and logs in. A port found
 * free can be taken by another process before n8n binds it (parallel suites): then it starts again
 * on other ports, at most three times.
 */
export async function startServer(
	folder: N8nUserFolder,
	opts: { timeoutMs?: number; env?: Record<string, string> } = {},
): Promise<N8nServer> {
	for (let attempt = 1; ; attempt++) {
		try {
			return await startServerOnce(folder, opts);
		} catch (error) {
			if (attempt >= 3 || !/port \d+ is already in use|EADDRINUSE/i.test(String(error))) throw error;
		}
	}
}

async function startServerOnce(
	folder: N8nUserFolder,
	opts: { timeoutMs?: number; env?: Record<string, string> },
): Promise<N8nServer> {
	const port = await freePort();
	const brokerPort = await freePort();
	const logFile = path.join(folder.userFolder, `server-${port}.log`);
	const fd = openSync(logFile, 'a');
	const child = spawn(folder.install.nodeBin, [folder.install.n8nBin, 'start'], {
		cwd: folder.userFolder,
		env: {
			...folder.env,
			N8N_PORT: String(port),
			N8N_RUNNERS_BROKER_PORT: String(brokerPort),
			...(opts.env ?? {}),
		},
		stdio: ['ignore', fd, fd],
		detached: false,
	});
	closeSync(fd);
	let exited: number | null | undefined;
	child.on('exit', (code) => {
		exited = code;
	});
	const logs = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');
	const baseUrl = `http://127.0.0.1:${port}`;

	const stop = async () => {
		if (exited !== undefined || child.exitCode !== null) return;
		const done = new Promise<void>((r) => child.once('exit', () => r()));
		child.kill('SIGTERM');
		const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
		await done;
		clearTimeout(timer);
	};

	const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
	for (;;) {
		if (exited !== undefined) throw new Error(`n8n start exited with ${exited}:\n${logs()}`);
		if (Date.now() > deadline) {
			await stop();
			throw new Error(`n8n did not become healthy in time:\n${logs()}`);
		}
		try {
			const r = await fetch(`${baseUrl}/healthz`);
			if (r.ok) break;
		} catch {
			// not listening yet
		}
		await sleepMs(300);
	}
	// /healthz answers early; while migrations run, every path answers 200 "n8n is starting up":
	// wait until /rest/settings answers JSON.
	for (;;) {
		if (exited !== undefined) throw new Error(`n8n start exited with ${exited}:\n${logs()}`);
		if (Date.now() > deadline) {
			await stop();
			throw new Error(`n8n REST API did not come up:\n${logs()}`);
		}
		try {
			const r = await fetch(`${baseUrl}/rest/settings`);
			if (r.ok && (r.headers.get('content-type') ?? '').includes('application/json')) break;
		} catch {
			// not yet
		}
		await sleepMs(300);
	}

	const setup = await fetch(`${baseUrl}/rest/owner/setup`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', 'browser-id': BROWSER_ID },
		body: JSON.stringify(OWNER),
	});
	let setCookies = setup.headers.getSetCookie();
	if (!setup.ok) {
		// Owner set up already (e.g. server restarted on the same folder): log in.
		const login = await fetch(`${baseUrl}/rest/login`, {
			method: 'POST',
			headers: { 'content-type': 'application/json', 'browser-id': BROWSER_ID },
			body: JSON.stringify({ emailOrLdapLoginId: OWNER.email, email: OWNER.email, password: OWNER.password }),
		});
		if (!login.ok) {
			await stop();
			throw new Error(`owner setup ${setup.status} and login ${login.status}: ${await login.text()}`);
		}
		setCookies = login.headers.getSetCookie();
	}
	const cookie = setCookies.map((c) => c.split(';')[0]).find((c) => c.startsWith('n8n-auth='));
	if (!cookie) {
		await stop();
		throw new Error(
			`no n8n-auth cookie after owner setup (${setup.status} ${(await setup.text()).slice(0, 500)}): ${JSON.stringify(setCookies)}\n${logs()}`,
		);
	}

	// A refused connection says little by itself: the error names the process's state and the end
	// of its log (n8n exiting on its own is what a test needs to see).
	const request = (method: string, urlPath: string, body?: unknown) =>
		fetch(`${baseUrl}${urlPath}`, {
			method,
			headers: {
				cookie,
				'browser-id': BROWSER_ID,
				...(body === undefined ? {} : { 'content-type': 'application/json' }),
			},
			body: body === undefined ? undefined : JSON.stringify(body),
		}).catch((error: unknown) => {
			const cause = (error as { cause?: unknown }).cause;
			const state = exited !== undefined || child.exitCode !== null ? `n8n exited (code ${String(exited ?? child.exitCode)}, signal ${String(child.signalCode)})` : 'n8n still running';
			throw new Error(`${method} ${urlPath}: ${String(error)}${cause ? ` (${String(cause)})` : ''}; ${state}; its log ends:\n${logs().slice(-4000)}`);
		});
	const rest = async <T>(method: string, urlPath: string, body?: unknown): Promise<T> => {
		const r = await request(method, urlPath, body);
		const text = await r.text();
		if (!r.ok) throw new Error(`${method} ${urlPath} → ${r.status}: ${text}`);
		const parsed = text ? (JSON.parse(text) as { data?: T }) : {};
		return (parsed.data ?? parsed) as T;
	};

	const flatted = requireFromN8n<{ parse(s: string): unknown }>(folder.install, 'flatted');

	const getWorkflow = (id: string) =>
		rest<WorkflowFile & { versionId?: string; active: boolean }>('GET', `/rest/workflows/${id}`);

	const isDone = (e: ExecutionSummary) =>
		!['new', 'running', 'waiting', 'unknown'].includes(e.status) || e.stoppedAt !== undefined && e.stoppedAt !== null;

	// n8n keeps an execution's data in a table of its own: for a moment after it has stopped, an
	// execution can be read without its data (`data` absent; seen on 1.123). A stopped one is read
	// again, for up to 10 s, until its data is there.
	const getExecution = async (id: string): Promise<ExecutionDetails> => {
		const until = Date.now() + 10_000;
		for (;;) {
			const raw = await rest<ExecutionSummary & { data?: string | RunExecutionData }>('GET', `/rest/executions/${id}`);
			if (raw.data === undefined && isDone(raw) && Date.now() < until) {
				await sleepMs(250);
				continue;
			}
			const data = typeof raw.data === 'string' ? (flatted.parse(raw.data) as RunExecutionData) : raw.data;
			return { ...raw, data: data as RunExecutionData };
		}
	};

	const listExecutions = async (workflowId?: string): Promise<ExecutionSummary[]> => {
		const filter = workflowId ? `?filter=${encodeURIComponent(JSON.stringify({ workflowId }))}` : '';
		const res = await rest<{ results: ExecutionSummary[] } | ExecutionSummary[]>('GET', `/rest/executions${filter}`);
		return Array.isArray(res) ? res : res.results;
	};

	const server: N8nServer = {
		folder,
		baseUrl,
		port,
		cookie,
		process: child,
		rest,
		request,
		getWorkflow,
		async runFromTrigger(workflowId, triggerName) {
			const wf = await getWorkflow(workflowId);
			const res = await rest<{ executionId?: string; waitingForWebhook?: boolean }>(
				'POST',
				`/rest/workflows/${workflowId}/run`,
				{ workflowData: wf, triggerToStartFrom: { name: triggerName } },
			);
			if (!res.executionId) throw new Error(`no execution started: ${JSON.stringify(res)}`);
			return String(res.executionId);
		},
		async activateWorkflow(workflowId) {
			const wf = await getWorkflow(workflowId);
			if (folder.install.major >= 2) {
				await rest('POST', `/rest/workflows/${workflowId}/activate`, { versionId: wf.versionId });
			} else {
				await rest('PATCH', `/rest/workflows/${workflowId}`, { active: true, versionId: wf.versionId });
			}
		},
		async deactivateWorkflow(workflowId) {
			const wf = await getWorkflow(workflowId);
			if (folder.install.major >= 2) {
				await rest('POST', `/rest/workflows/${workflowId}/deactivate`, {});
			} else {
				await rest('PATCH', `/rest/workflows/${workflowId}`, { active: false, versionId: wf.versionId });
			}
		},
		listExecutions,
		getExecution,
		async waitForExecution(id, timeoutMs = 60_000) {
			const until = Date.now() + timeoutMs;
			for (;;) {
				const e = await getExecution(id);
				if (isDone(e) && e.data?.resultData !== undefined) return e;
				if (Date.now() > until) throw new Error(`execution ${id} still ${e.status}${isDone(e) ? ', its data not saved' : ''}`);
				await sleepMs(250);
			}
		},
		async waitForExecutions(workflowId, count, timeoutMs = 60_000) {
			const until = Date.now() + timeoutMs;
			for (;;) {
				const list = (await listExecutions(workflowId)).filter(isDone);
				if (list.length >= count) return list;
				if (Date.now() > until) {
					throw new Error(`only ${list.length} of ${count} executions of ${workflowId} finished`);
				}
				await sleepMs(500);
			}
		},
		async nodeTypes() {
			const r = await request('GET', '/types/nodes.json');
			const list = (await r.json()) as Array<{ name: string }>;
			return [...new Set(list.map((n) => n.name))];
		},
		async credentialTypes() {
			const r = await request('GET', '/types/credentials.json');
			const list = (await r.json()) as Array<{ name: string }>;
			return list.map((c) => c.name);
		},
		logs,
		stop,
	};
	return server;
}
