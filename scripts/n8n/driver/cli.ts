/** n8n's command line: import credentials and workflows, execute a workflow, read its items. */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';

import { crashedAtExit, type CliResult } from './processes';
import type { N8nUserFolder } from './userFolder';

export interface CredentialFile {
	/** ≤16 characters */
	id: string;
	name: string;
	type: string;
	/** Plain field values; n8n encrypts them with N8N_ENCRYPTION_KEY on import. */
	data: Record<string, unknown>;
}

export interface WorkflowNode {
	id?: string;
	name: string;
	type: string;
	typeVersion: number;
	position: [number, number];
	parameters: Record<string, unknown>;
	credentials?: Record<string, { id: string; name: string }>;
	disabled?: boolean;
	[extra: string]: unknown;
}

export type Connections = Record<
	string,
	Record<string, Array<Array<{ node: string; type: string; index: number }>>>
>;

export interface WorkflowFile {
	id: string;
	name: string;
	nodes: WorkflowNode[];
	connections: Connections;
	active?: boolean;
	settings?: Record<string, unknown>;
	staticData?: unknown;
	pinData?: Record<string, unknown>;
	[extra: string]: unknown;
}

function writeInput(folder: N8nUserFolder, name: string, data: unknown): string {
	const file = path.join(folder.userFolder, `${name}-${randomBytes(4).toString('hex')}.json`);
	writeFileSync(file, JSON.stringify(data, null, 2));
	return file;
}

function assertOk(what: string, res: CliResult, doneWhen?: RegExp): void {
	if (res.rc !== 0 && !(doneWhen && crashedAtExit(res) && doneWhen.test(res.stdout))) {
		throw new Error(`${what} failed (rc ${res.rc})\nstdout:\n${res.stdout}\nstderr:\n${res.stderr}`);
	}
}

/** `n8n import:credentials` (one CLI run, ~5–10 s; import them all at once). */
export async function importCredentials(folder: N8nUserFolder, creds: CredentialFile[]): Promise<void> {
	const file = writeInput(folder, 'credentials', creds);
	assertOk('n8n import:credentials', await folder.cli(['import:credentials', `--input=${file}`]));
}

/** `n8n import:workflow` of one or several workflows (one CLI run, ~5–10 s). */
export async function importWorkflow(folder: N8nUserFolder, wf: WorkflowFile | WorkflowFile[]): Promise<void> {
	const list = (Array.isArray(wf) ? wf : [wf]).map((w) => ({
		active: false,
		settings: { executionOrder: 'v1' },
		...w,
	}));
	const file = writeInput(folder, 'workflow', list);
	assertOk('n8n import:workflow', await folder.cli(['import:workflow', `--input=${file}`]), /Successfully imported/);
}

/** Marks a workflow active/published so that `n8n start` activates it (polling triggers poll). */
export async function publishWorkflow(folder: N8nUserFolder, id: string): Promise<void> {
	const args =
		folder.install.major >= 2
			? ['publish:workflow', `--id=${id}`]
			: ['update:workflow', `--id=${id}`, '--active=true'];
	assertOk(`n8n ${args[0]}`, await folder.cli(args));
}

export interface NodeItem {
	json: Record<string, unknown>;
	binary?: Record<string, unknown>;
	pairedItem?: unknown;
	error?: unknown;
	[extra: string]: unknown;
}

export interface NodeRun {
	startTime?: number;
	executionTime?: number;
	executionStatus?: string;
	error?: { message?: string; description?: string; [extra: string]: unknown };
	data?: { main?: Array<NodeItem[] | null> };
	[extra: string]: unknown;
}

export interface RunExecutionData {
	resultData: {
		runData: Record<string, NodeRun[]>;
		error?: { message?: string; [extra: string]: unknown };
		lastNodeExecuted?: string;
	};
	[extra: string]: unknown;
}

export interface ExecutionResult {
	rc: number;
	signal?: string;
	/** n8n died of SIGSEGV after printing a finished execution (see crashedAtExit). */
	crashedAtExit: boolean;
	/** rc 0 (or a crash at exit after a finished execution) and no error in the execution. */
	ok: boolean;
	/** The JSON n8n printed (an IRun: { data, mode, status, ... }), when it printed one. */
	execution?: { data?: RunExecutionData; status?: string; finished?: boolean; [extra: string]: unknown };
	runData: Record<string, NodeRun[]>;
	/** The workflow-level error message, if any. */
	error?: string;
	stdout: string;
	stderr: string;
}

/** Parses the execution JSON: from the first line starting with `{` (2.x logs before it). */
export function parseExecutionOutput(stdout: string): ExecutionResult['execution'] {
	const lines = stdout.split('\n');
	const start = lines.findIndex((l) => l.startsWith('{'));
	if (start < 0) return undefined;
	const rest = lines.slice(start).join('\n');
	try {
		return JSON.parse(rest) as ExecutionResult['execution'];
	} catch {
		// Something printed after the JSON: take up to the last line that is a lone `}`.
		const end = lines.lastIndexOf('}');
		if (end <= start) return undefined;
		try {
			return JSON.parse(lines.slice(start, end + 1).join('\n')) as ExecutionResult['execution'];
		} catch {
			return undefined;
		}
	}
}

/** `n8n execute --id=<id> --rawOutput`: the workflow must start with a Manual Trigger. */
export async function executeWorkflow(
	folder: N8nUserFolder,
	id: string,
	opts: { timeoutMs?: number } = {},
): Promise<ExecutionResult> {
	const res = await folder.cli(['execute', `--id=${id}`, '--rawOutput'], { timeoutMs: opts.timeoutMs });
	const execution = parseExecutionOutput(res.stdout);
	const runData = execution?.data?.resultData?.runData ?? {};
	const error = execution?.data?.resultData?.error?.message;
	const exitCrash = crashedAtExit(res) && execution?.finished === true;
	return {
		rc: res.rc,
		signal: res.signal,
		crashedAtExit: exitCrash,
		ok: (res.rc === 0 || exitCrash) && !error && execution !== undefined,
		execution,
		runData,
		error,
		stdout: res.stdout,
		stderr: res.stderr,
	};
}

/** Throws with n8n's output when the execution did not succeed. */
export function assertExecutionOk(result: ExecutionResult): void {
	if (result.ok) return;
	throw new Error(
		`n8n execute: rc ${result.rc}${result.signal ? ` (${result.signal})` : ''}, error: ${result.error ?? '-'}\n` +
			`stdout:\n${result.stdout.slice(-6000)}\nstderr:\n${result.stderr.slice(-6000)}`,
	);
}

/** The json of the items a node output (run `runIndex`, output `output`). */
export function nodeItems(
	result: { runData: Record<string, NodeRun[]> },
	nodeName: string,
	runIndex = 0,
	output = 0,
): Array<Record<string, unknown>> {
	const runs = result.runData[nodeName];
	if (!runs) throw new Error(`node "${nodeName}" did not run (ran: ${Object.keys(result.runData).join(', ')})`);
	return (runs[runIndex]?.data?.main?.[output] ?? []).map((item) => item.json);
}

/**
 * The items a poll trigger handed to an execution. n8n stores a poll's items with the new
 * execution (its `nodeExecutionStack`) before running it; an execution n8n was running when it
 * stopped is kept as "crashed" without run data, its items still there.
 */
export function triggerOutput(data: RunExecutionData, nodeName: string): { items: Array<Record<string, unknown>> } {
	if (data.resultData.runData[nodeName]) return { items: nodeItems(data.resultData, nodeName) };
	const stack = (data.executionData as { nodeExecutionStack?: Array<{ node?: { name?: string }; data?: { main?: Array<NodeItem[] | null> } }> } | undefined)
		?.nodeExecutionStack;
	const entry = stack?.find((candidate) => candidate.node?.name === nodeName);
	if (!entry) throw new Error(`node "${nodeName}" neither ran nor waits in the execution (ran: ${Object.keys(data.resultData.runData).join(', ')})`);
	return { items: (entry.data?.main?.[0] ?? []).map((item) => item.json) };
}

/** The error a node ended with, if any. */
export function nodeError(result: { runData: Record<string, NodeRun[]> }, nodeName: string, runIndex = 0) {
	return result.runData[nodeName]?.[runIndex]?.error;
}

/** Log lines in which n8n reports a package or node it could not load. */
export function loadProblems(logs: string): string[] {
	return logs
		.split('\n')
		.filter((l) =>
			/Failed to load|Skipping package|Error loading|Cannot find module|already registered|Unrecognized (node|credential) type/i.test(
				l,
			),
		);
}
