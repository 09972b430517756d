/**
 * Small builders for the workflows of workflows.e2e.test.ts: nodes as n8n stores them (the
 * editor's parameter shapes, see demo/workflows/*.json), chained from a Manual Trigger "Start".
 */
import { NODE_TYPE_PREFIX, type Connections, type WorkflowFile, type WorkflowNode } from './index';

export const START = 'Start';
export const ACTION_TYPE = `${NODE_TYPE_PREFIX}personnelData`;
export const TRIGGER_TYPE = `${NODE_TYPE_PREFIX}personnelDataTrigger`;

export interface CredentialRef {
	id: string;
	name: string;
}

export interface ResourceLocator {
	__rl: true;
	mode: 'id' | 'list';
	value: string;
}

/** A resource locator in "By ID" mode, as the editor stores it (the value may be an expression). */
export const byId = (value: string): ResourceLocator => ({ __rl: true, mode: 'id', value });

let nodeCounter = 0;
/** A stable-looking node id (n8n 2.x keys schedules by node id). */
function nodeId(): string {
	nodeCounter++;
	return `e2e00000-0000-4000-8000-${String(nodeCounter).padStart(12, '0')}`;
}

export interface ActionNodeOptions {
	/** Node setting "On Error" (e.g. 'continueRegularOutput' = Continue On Fail). */
	onError?: 'stopWorkflow' | 'continueRegularOutput' | 'continueErrorOutput';
	/** The node version (default 1). */
	typeVersion?: number;
}

/** A Personnel Data action node. */
export function actionNode(
	name: string,
	credential: CredentialRef,
	parameters: Record<string, unknown>,
	options: ActionNodeOptions = {},
): WorkflowNode {
	return {
		id: nodeId(),
		name,
		type: ACTION_TYPE,
		typeVersion: options.typeVersion ?? 1,
		position: [0, 0],
		parameters,
		credentials: { personnelDataApi: credential },
		...(options.onError ? { onError: options.onError } : {}),
	};
}

/** A node of n8n-nodes-base (Set, Split Out, ...). */
export function baseNode(name: string, type: string, typeVersion: number, parameters: Record<string, unknown>): WorkflowNode {
	return { id: nodeId(), name, type: `n8n-nodes-base.${type}`, typeVersion, position: [0, 0], parameters };
}

const manualTrigger = (): WorkflowNode => ({
	id: nodeId(),
	name: START,
	type: 'n8n-nodes-base.manualTrigger',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
});

const link = (node: string) => ({ node, type: 'main', index: 0 });

/** nodes[0] → nodes[1] → … (positions laid out left to right); nodes[0] is the trigger. */
export function linkedWorkflow(id: string, name: string, nodes: WorkflowNode[]): WorkflowFile {
	const all = nodes.map((node, i) => ({ ...node, position: [i * 240, 0] as [number, number] }));
	const connections: Connections = {};
	for (let i = 0; i < all.length - 1; i++) connections[all[i].name] = { main: [[link(all[i + 1].name)]] };
	return { id, name, nodes: all, connections, settings: { executionOrder: 'v1' } };
}

/** Start → nodes[0] → nodes[1] → … */
export function chainWorkflow(id: string, name: string, nodes: WorkflowNode[]): WorkflowFile {
	return linkedWorkflow(id, name, [manualTrigger(), ...nodes]);
}

/** Start → every node of `nodes` (siblings; n8n v1 order runs them one after the other). */
export function fanOutWorkflow(id: string, name: string, nodes: WorkflowNode[]): WorkflowFile {
	const start = manualTrigger();
	const placed = nodes.map((node, i) => ({ ...node, position: [240, i * 200] as [number, number] }));
	return {
		id,
		name,
		nodes: [start, ...placed],
		connections: { [START]: { main: [placed.map((node) => link(node.name))] } },
		settings: { executionOrder: 'v1' },
	};
}

/** Items with `{ [field]: value }`, one per value: a Set node (raw JSON) followed by Split Out. */
export function itemsOf(field: string, values: readonly string[]): WorkflowNode[] {
	return [
		baseNode('Values', 'set', 3.4, { mode: 'raw', jsonOutput: JSON.stringify({ [field]: values }), options: {} }),
		baseNode('One item each', 'splitOut', 1, { fieldToSplitOut: field, include: 'noOtherFields', options: {} }),
	];
}

/** The polling trigger node, on cron expressions of Poll Times' "Custom" mode (one entry each). */
export function triggerNode(
	name: string,
	credential: CredentialRef,
	parameters: Record<string, unknown>,
	cronExpression: string | string[],
): WorkflowNode {
	const item = (Array.isArray(cronExpression) ? cronExpression : [cronExpression]).map((expression) => ({
		mode: 'custom',
		cronExpression: expression,
	}));
	return {
		id: nodeId(),
		name,
		type: TRIGGER_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: { pollTimes: { item }, ...parameters },
		credentials: { personnelDataApi: credential },
	};
}

/** A workflow with only the polling trigger. */
export function triggerWorkflow(
	id: string,
	name: string,
	triggerName: string,
	credential: CredentialRef,
	parameters: Record<string, unknown>,
	cronExpression: string | string[],
): WorkflowFile {
	return linkedWorkflow(id, name, [triggerNode(triggerName, credential, parameters, cronExpression)]);
}

/** A production Webhook trigger (POST `/webhook/<path>`), answering at once ("Workflow was started"). */
export function webhookNode(name: string, webhookPath: string): WorkflowNode {
	return {
		...baseNode(name, 'webhook', 2, { httpMethod: 'POST', path: webhookPath, responseMode: 'onReceived', options: {} }),
		webhookId: nodeId(),
	};
}

/** A Set node adding `{ [field]: <expression> }` to each item, other fields kept. */
export function setFieldNode(name: string, field: string, expression: string): WorkflowNode {
	return baseNode(name, 'set', 3.4, {
		mode: 'manual',
		assignments: { assignments: [{ id: `${field}-assignment`, name: field, value: expression, type: 'string' }] },
		includeOtherFields: true,
		options: {},
	});
}

/** A Personnel Data tool that lists employees by a last-name pattern and a limit the model chooses. */
export const LIST_EMPLOYEES_TOOL_PARAMETERS = {
	resource: 'employee',
	operation: 'getMany',
	limit: "={{ $fromAI('limit', 'How many employees at most (1-50)', 'number') }}",
	filters: {
		filter: [
			{
				field: 'last_name',
				operator: 'ilike',
				value: "={{ $fromAI('last_name_pattern', 'Last name as an SQL ILIKE pattern: % matches any text, e.g. A%', 'string') }}",
			},
		],
	},
};

export interface AgentTool {
	name: string;
	parameters: Record<string, unknown>;
}

/**
 * Manual Trigger "Start" → AI Agent, with an OpenAI chat model (pointed at a scripted stand-in,
 * ../fakeChatModel.ts) and Personnel Data tools: the nodes and connections of an agent workflow.
 */
export function agentWorkflowParts(options: {
	prompt: string;
	openAi: CredentialRef;
	personnelData: CredentialRef;
	tools: AgentTool[];
}): { nodes: WorkflowNode[]; connections: Connections } {
	const aiLink = (type: string) => ({ [type]: [[{ node: 'AI Agent', type, index: 0 }]] });
	const nodes: WorkflowNode[] = [
		{ id: nodeId(), name: START, type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
		{
			id: nodeId(),
			name: 'AI Agent',
			type: '@n8n/n8n-nodes-langchain.agent',
			typeVersion: 3.1,
			position: [260, 0],
			parameters: { promptType: 'define', text: options.prompt, options: {} },
		},
		{
			id: nodeId(),
			name: 'OpenAI Chat Model',
			type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
			typeVersion: 1.2,
			position: [160, 220],
			parameters: { model: { __rl: true, mode: 'id', value: 'gpt-4o-mini' }, options: {} },
			credentials: { openAiApi: options.openAi },
		},
		...options.tools.map((tool, index) => ({
			id: nodeId(),
			name: tool.name,
			type: `${NODE_TYPE_PREFIX}personnelDataTool`,
			typeVersion: 1,
			position: [400 + 160 * index, 220] as [number, number],
			parameters: tool.parameters,
			credentials: { personnelDataApi: options.personnelData },
		})),
	];
	const connections: Connections = {
		[START]: { main: [[{ node: 'AI Agent', type: 'main', index: 0 }]] },
		'OpenAI Chat Model': aiLink('ai_languageModel'),
		...Object.fromEntries(options.tools.map((tool) => [tool.name, aiLink('ai_tool')])),
	};
	return { nodes, connections };
}
