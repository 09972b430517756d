/**
 * `npm run docs:screenshots [-- <folder>]`: the README's pictures, taken from the running editor.
 * Starts the demo (`npm run demo`: simulator, n8n with the package, the example workflows), runs
 * example 1 and an AI Agent with the Personnel Data tool (a scripted stand-in for the chat model,
 * scripts/n8n/fakeChatModel.ts), and saves the pictures into <folder> (default docs/images/). Uses
 * Debian's chromium (scripts/browser/browser.ts). `.ci/run` runs it into a scratch folder so it cannot rot.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { createInterface } from 'node:readline';

import type { Page } from 'playwright-core';

import { ROOT } from '../scripts/n8n/driver';
import { agentWorkflowParts, LIST_EMPLOYEES_TOOL_PARAMETERS } from '../scripts/n8n/driver/workflowBuilders';
import { startFakeChatModel, type ChatRequest, type ChatReply } from '../scripts/n8n/fakeChatModel';
import { EDITOR, navigate, openEditor, openNodePanel, openWorkflow, restFromPage, VIEWPORT } from '../scripts/browser/browser';
import { CREDENTIAL_ID, CREDENTIAL_NAME, IDS } from './workflows';

const DEMO_START_TIMEOUT_MS = 15 * 60_000;
const EXECUTION_TIMEOUT_MS = 120_000;

/** Starts `npm run demo` (tsx demo/run.ts) and resolves with n8n's URL once the demo is up. */
function startDemo(): Promise<{ baseUrl: string; demo: ChildProcess }> {
	const demo = spawn(process.execPath, ['--import', 'tsx', 'demo/run.ts'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
	return new Promise((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error('the demo did not come up in time')), DEMO_START_TIMEOUT_MS);
		demo.once('exit', (code) => {
			clearTimeout(timer);
			reject(new Error(`the demo exited with ${code} before it was up`));
		});
		createInterface({ input: demo.stdout as NodeJS.ReadableStream }).on('line', (line) => {
			if (line.startsWith('[demo]')) console.log(line);
			const up = /n8n with the Personnel Data nodes:\s+(http\S+)/.exec(line);
			if (up) {
				clearTimeout(timer);
				resolve({ baseUrl: up[1], demo });
			}
		});
	});
}

async function stopDemo(demo: ChildProcess): Promise<void> {
	if (demo.exitCode !== null || demo.signalCode !== null) return;
	const exited = new Promise<void>((resolve) => demo.once('exit', () => resolve()));
	demo.kill('SIGTERM');
	const timer = setTimeout(() => demo.kill('SIGKILL'), 30_000);
	await exited;
	clearTimeout(timer);
}

interface Execution {
	id: string;
	status: string;
}

/** Runs a workflow from its trigger through the editor's REST API and waits until it has finished. */
async function runWorkflow(page: Page, workflowId: string, triggerName: string): Promise<string> {
	const workflow = await restFromPage<Record<string, unknown>>(page, 'GET', `/rest/workflows/${workflowId}`);
	const started = await restFromPage<{ executionId?: string }>(page, 'POST', `/rest/workflows/${workflowId}/run`, {
		workflowData: workflow,
		triggerToStartFrom: { name: triggerName },
	});
	if (!started.executionId) throw new Error(`workflow ${workflowId} did not start`);
	const until = Date.now() + EXECUTION_TIMEOUT_MS;
	for (;;) {
		const execution = await restFromPage<Execution>(page, 'GET', `/rest/executions/${started.executionId}`);
		if (execution.status === 'success') return String(started.executionId);
		if (!['new', 'running', 'waiting', 'unknown'].includes(execution.status)) {
			throw new Error(`execution ${started.executionId} of ${workflowId} ended "${execution.status}"`);
		}
		if (Date.now() > until) throw new Error(`execution ${started.executionId} of ${workflowId} is still ${execution.status}`);
		await page.waitForTimeout(500);
	}
}

/** Shows a finished execution with every node drawn (n8n may draw it in a preview frame). */
async function openExecution(page: Page, baseUrl: string, workflowId: string, executionId: string, someNode: string): Promise<void> {
	await navigate(page, baseUrl, `/workflow/${workflowId}/executions/${executionId}`);
	const selector = `${EDITOR.canvasNode}[data-node-name="${someNode}"]`;
	const until = Date.now() + EXECUTION_TIMEOUT_MS;
	for (;;) {
		const drawn = await Promise.all(page.frames().map((frame) => frame.locator(selector).count().catch(() => 0)));
		if (drawn.some((count) => count > 0)) break;
		if (Date.now() > until) throw new Error(`execution ${executionId}: its node "${someNode}" was not drawn`);
		await page.waitForTimeout(500);
	}
	await page.waitForTimeout(2000);
}

/** Opens the execution's Logs panel (the agent's steps and its answer), in whichever frame it is drawn. */
async function openLogs(page: Page): Promise<void> {
	for (const frame of page.frames()) {
		const logs = frame.getByText('Logs', { exact: true });
		if ((await logs.count()) === 0) continue;
		await logs.first().click();
		await page.waitForTimeout(2000);
		return;
	}
	throw new Error('no Logs panel to open');
}

const AGENT_PROMPT = 'Which employees have a last name starting with A?';
const LIST_TOOL = 'List employees';

/** The model lists employees once through the tool, then answers with what it got. */
function agentScript(request: ChatRequest): ChatReply {
	const toolAnswer = request.messages.find((message) => message.role === 'tool');
	if (!toolAnswer) {
		return { toolCalls: [{ name: LIST_TOOL.replace(/ /g, '_'), args: { last_name_pattern: 'A%', limit: 5 } }] };
	}
	const rows = JSON.parse(toolAnswer.content ?? '[]') as Array<Record<string, unknown>>;
	const names = rows.filter((row) => 'id' in row).map((row) => `${String(row.first_name)} ${String(row.last_name)}`);
	return { text: `Employees whose last name starts with A: ${names.join(', ')}` };
}

/** Creates the agent workflow (and its chat-model credential); returns the workflow's ID. */
async function createAgentWorkflow(page: Page, modelUrl: string): Promise<string> {
	const openAi = await restFromPage<{ id: string; name: string }>(page, 'POST', '/rest/credentials', {
		name: 'OpenAI (scripted stand-in)',
		type: 'openAiApi',
		data: { apiKey: 'sk-docs-screenshots', url: modelUrl },
	});
	const workflow = await restFromPage<{ id: string }>(page, 'POST', '/rest/workflows', {
		name: 'Ask about employees (AI Agent with the Personnel Data tool)',
		...agentWorkflowParts({
			prompt: AGENT_PROMPT,
			openAi: { id: openAi.id, name: openAi.name },
			personnelData: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME },
			tools: [
				{ name: LIST_TOOL, parameters: LIST_EMPLOYEES_TOOL_PARAMETERS },
			],
		}),
		settings: { executionOrder: 'v1' },
	});
	return workflow.id;
}

interface Picture {
	file: string;
	what: string;
	take: (page: Page, baseUrl: string, agentWorkflowId: string) => Promise<void>;
}

const panelOf = (workflowId: string, id: string, name: string) => ({ workflowId, id, name });

const PICTURES: Picture[] = [
	{
		file: 'demo-workflow.png',
		what: 'example 1, a finished execution',
		async take(page, baseUrl) {
			const executionId = await runWorkflow(page, IDS.changed, 'Start');
			await openExecution(page, baseUrl, IDS.changed, executionId, 'CSV file');
		},
	},
	{
		file: 'demo-node-get-many.png',
		what: 'the Get Many form (example 1)',
		take: (page, baseUrl) => openNodePanel(page, baseUrl, panelOf(IDS.changed, 'd1000000-0000-4000-8000-000000000002', 'Employees changed since yesterday')),
	},
	{
		file: 'demo-node-update.png',
		what: 'the employee write form (example 3)',
		take: (page, baseUrl) => openNodePanel(page, baseUrl, panelOf(IDS.title, 'd3000000-0000-4000-8000-000000000003', 'Set new title, keep history')),
	},
	{
		file: 'demo-node-import.png',
		what: 'Create or Update with the column mapper (example 8)',
		take: (page, baseUrl) => openNodePanel(page, baseUrl, panelOf(IDS.importFile, 'd8000000-0000-4000-8000-000000000004', 'Create or update employees')),
	},
	{
		file: 'demo-trigger-watch-fields.png',
		what: 'the trigger with Watch Fields (example 7)',
		async take(page, baseUrl) {
			await openNodePanel(page, baseUrl, panelOf(IDS.managerChanged, 'd7000000-0000-4000-8000-000000000001', 'Manager changed'));
			// Watch Fields and its hint in the middle of the panel.
			await page
				.locator(`${EDITOR.panel} [data-test-id="parameter-input-watchFields"]`)
				.first()
				.evaluate((element) => element.scrollIntoView({ block: 'center' }));
			await page.waitForTimeout(500);
		},
	},
	{
		file: 'demo-ai-agent.png',
		what: 'an AI Agent using the Personnel Data tool, a finished execution',
		async take(page, baseUrl, agentWorkflowId) {
			const executionId = await runWorkflow(page, agentWorkflowId, 'Start');
			await openExecution(page, baseUrl, agentWorkflowId, executionId, LIST_TOOL);
			await openLogs(page);
		},
	},
];

async function main(): Promise<void> {
	const args = process.argv.slice(2);
	if (args.length > 1 || args[0]?.startsWith('-')) throw new Error('usage: npm run docs:screenshots [-- <output folder, default docs/images>]');
	const outDir = path.resolve(args[0] ?? path.join(ROOT, 'docs/images'));
	mkdirSync(outDir, { recursive: true });

	const model = await startFakeChatModel(agentScript);
	const { baseUrl, demo } = await startDemo().catch(async (error: unknown) => {
		await model.close();
		throw error;
	});
	try {
		const editor = await openEditor(baseUrl);
		try {
			const agentWorkflowId = await createAgentWorkflow(editor.page, model.baseUrl);
			// The node creator's hints and the "what's new" callouts are drawn over the canvas: start clean.
			await openWorkflow(editor.page, baseUrl, IDS.changed, 'Start');
			for (const picture of PICTURES) {
				const file = path.join(outDir, picture.file);
				await picture.take(editor.page, baseUrl, agentWorkflowId).catch(async (error: unknown) => {
					const seen = path.join(outDir, `failed-${picture.file}`);
					await editor.page.screenshot({ path: seen });
					throw new Error(`${picture.what}: ${error instanceof Error ? error.message : String(error)} (the page: ${seen})`);
				});
				await editor.page.screenshot({ path: file, clip: { x: 0, y: 0, ...VIEWPORT } });
				console.log(`[docs:screenshots] ${picture.what}: ${path.relative(process.cwd(), file)}`);
			}
		} finally {
			await editor.close();
		}
	} finally {
		await stopDemo(demo);
		await model.close();
	}
}

main().catch((error: unknown) => {
	console.error(error instanceof Error ? (error.stack ?? error.message) : error);
	process.exit(1);
});
