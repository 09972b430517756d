/**
 * What an installed n8n offers of the features the package uses where present (docs/compatibility.md),
 * read from the install's own code: each is present when the file n8n implements it in names it.
 * The package itself finds out at run time (the poll context's getPollBudgetMs, for instance); the
 * tests pick their lanes with this (the durable scheduler's only where n8n has it).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';

import type { N8nInstall } from './installs';

export interface InstallFeatures {
	/** The poll context tells a poll its time budget (`getPollBudgetMs`). */
	pollBudget: boolean;
	/** n8n's durable scheduler can run poll triggers (N8N_SCHEDULER_POLL_TRIGGERS_ENABLED). */
	durableScheduler: boolean;
	/** n8n's AI Workflow Builder, which reads the nodes' `builderHint`. */
	builderHints: boolean;
	/** A `usableAsTool` node is offered as an AI Agent tool (`<name>Tool`). */
	toolMode: boolean;
	/** The MCP Server Trigger node (n8n's LangChain nodes). */
	mcpServerTrigger: boolean;
}

/** Whether a file, or any .js file under a folder, contains `needle`. */
function mentions(target: string, needle: string): boolean {
	if (!existsSync(target)) return false;
	if (!statSync(target).isDirectory()) return readFileSync(target, 'utf8').includes(needle);
	return readdirSync(target, { withFileTypes: true }).some((entry) =>
		entry.isDirectory() ? mentions(path.join(target, entry.name), needle) : entry.name.endsWith('.js') && mentions(path.join(target, entry.name), needle),
	);
}

export function installFeatures(install: N8nInstall): InstallFeatures {
	const modules = path.join(install.dir, 'node_modules');
	const at = (...parts: string[]) => path.join(modules, ...parts);
	return {
		pollBudget: mentions(at('n8n-core/dist/execution-engine/node-execution-context/poll-context.js'), 'getPollBudgetMs'),
		durableScheduler: mentions(at('@n8n/config/dist'), 'N8N_SCHEDULER_POLL_TRIGGERS_ENABLED'),
		builderHints: mentions(at('@n8n/ai-workflow-builder/dist'), 'builderHint'),
		toolMode: mentions(at('n8n/dist/node-types.js'), 'usableAsTool'),
		mcpServerTrigger: existsSync(at('@n8n/n8n-nodes-langchain/dist/nodes/mcp/McpTrigger/McpTrigger.node.js')),
	};
}

/**
 * Whether n8n takes a poll schedule of several polls a minute written as a range (`0-59/4 * * * * *`):
 * 1.x and 2.8 refuse only a `*` in the seconds field, later versions every sub-minute schedule
 * (`isSubMinuteCron`). Tests poll every few seconds where they can.
 */
export function acceptsSubMinutePolls(install: N8nInstall): boolean {
	return !mentions(path.join(install.dir, 'node_modules/n8n-core/dist/execution-engine'), 'isSubMinuteCron');
}
