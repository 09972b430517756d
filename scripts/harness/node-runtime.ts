/**
 * Runs a package's node types and credential types through n8n-core 2.8's real runtime:
 * `WorkflowExecute.runNode` → `ExecuteContext` for actions, `PollContext` for polling triggers,
 * `LoadOptionsContext` for `methods.listSearch` / `methods.loadOptions`, `RoutingNode` for the
 * credential test, and n8n-core's real HTTP helpers (axios) against whatever server the test runs.
 * The only replaced piece is the CLI's credentials helper (see credentials-helper.ts).
 *
 * Each call builds a one-node `Workflow` the way the CLI does, so node parameters get n8n's own
 * default handling (`Workflow` constructor → `NodeHelpers.getNodeParameters`).
 */
import {
	CredentialTestContext,
	ExecuteContext,
	ExternalSecretsProxy,
	LoadOptionsContext,
	PollContext,
	RoutingNode,
	SupplyDataContext,
	WorkflowExecute,
} from 'n8n-core';
import { makeHandleToolInvocation } from 'n8n-core/dist/execution-engine/node-execution-context/utils/get-input-connection-data';
import { commonPollingParameters } from 'n8n-core/dist/nodes-loader/constants';
import type {
	ICredentialDataDecryptedObject,
	ICredentialTestFunction,
	ICredentialTestRequest,
	ICredentialType,
	ICredentialsDecrypted,
	IDataObject,
	IExecuteData,
	INode,
	INodeCredentialTestResult,
	INodeCredentials,
	INodeExecutionData,
	INodeListSearchResult,
	INodeParameters,
	INodePropertyOptions,
	INodeType,
	INodeTypeDescription,
	INodeTypes,
	IVersionedNodeType,
	IWorkflowExecuteAdditionalData,
	NodeExecutionHint,
	ResourceMapperFields,
	WorkflowActivateMode,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import {
	NodeConnectionTypes,
	NodeHelpers,
	UnexpectedError,
	Workflow,
	createRunExecutionData,
	deepCopy,
} from 'n8n-workflow';

import {
	CredentialStore,
	CredentialTypeRegistry,
	HarnessCredentialsHelper,
} from './credentials-helper';
import { CapturingLogger, formatLogEntry, type LogEntry } from './logger';
import { activateN8nContainer } from './n8n-container';

export interface NodeRuntimeOptions {
	nodeTypes: Array<INodeType | IVersionedNodeType>;
	credentialTypes: ICredentialType[];
	/** Prefix of the full node type name n8n stores in workflows (`<package>.<name>`). */
	packageName?: string;
	/** Workflow timezone (n8n's default is America/New_York; tests usually want UTC). */
	timezone?: string;
}

/** What identifies the node in the (one-node) workflow. */
interface NodeSelection {
	/** `description.name` (e.g. `personnelData`) or the full `<package>.<name>`. */
	nodeType: string;
	/** Defaults to the node's newest version. */
	typeVersion?: number;
	/** Defaults to `description.defaults.name`. Static data is keyed by it (`node:<name>`). */
	nodeName?: string;
	/**
	 * Node parameters as the editor stores them (resource locators `{__rl, mode, value}`,
	 * fixedCollections `{ name: [{…}] }` / `{ name: {…} }`, `=`-expressions). Defaults of the
	 * node description are applied by n8n, as in a saved workflow.
	 */
	parameters?: INodeParameters;
	/**
	 * Credential types to attach, as if selected in the node. Defaults to every credential type
	 * of the node description for which `setCredentials` was called.
	 */
	credentials?: string[];
}

export interface ExecuteOptions extends NodeSelection {
	/** Input items; default one empty item, like after a manual trigger. */
	items?: INodeExecutionData[];
	/**
	 * The node's "On Error" setting. `continueOnFail: true` is the same as
	 * `onError: 'continueRegularOutput'` (what the current editor stores); `this.continueOnFail()`
	 * returns true for both.
	 */
	continueOnFail?: boolean;
	onError?: 'stopWorkflow' | 'continueRegularOutput' | 'continueErrorOutput';
	/** Default `manual` (editor run); `trigger`/`webhook` for production runs. */
	mode?: WorkflowExecuteMode;
	/** The execution's cancel signal (what n8n aborts when a user stops a running execution). */
	abortSignal?: AbortSignal;
}

export interface ExecuteResult {
	/** Node output per output index; absent if the node threw (and did not continue on fail). */
	items?: INodeExecutionData[][];
	/**
	 * What `execute` threw. If it threw while continuing on fail, n8n passes the input items through
	 * unchanged and records the error; then both `items` and `error` are set.
	 */
	error?: Error;
	hints: NodeExecutionHint[];
	/** Lines logged during this call. */
	logs: string[];
}

export interface ToolCallOptions extends Omit<NodeSelection, 'nodeType'> {
	/** The node that is used as a tool, e.g. `personnelData`: the call runs `<nodeType>Tool`. */
	nodeType: string;
	/** The arguments the model passed (what `$fromAI(...)` reads). */
	args: IDataObject;
}

export interface ToolCallResult {
	/** The tool message the model gets (n8n's JSON of the output items), when the call did not throw. */
	response?: string;
	/** What the call threw: n8n 2.8 then ends the agent's run. */
	error?: Error;
	/** The tool description n8n gives the model (`getToolDescriptionForNode`). */
	description: string;
	logs: string[];
}

export interface PollOptions extends NodeSelection {
	/**
	 * `trigger`: a scheduled poll of an active workflow (`PollContext` with `activation`).
	 * `manual`: "Fetch Test Event" in the editor. Static data changes made in manual mode are not
	 * saved (n8n only saves static data of non-manual executions).
	 */
	mode?: 'trigger' | 'manual';
	/** Only for `trigger` mode; default `activate`. */
	activation?: WorkflowActivateMode;
}

export interface PollResult {
	/** What `poll` returned: `null` means "nothing new, no execution". */
	items?: INodeExecutionData[][] | null;
	error?: Error;
	/** The node's static data after the poll (a copy). */
	staticData: IDataObject;
	logs: string[];
}

/** One poll as n8n 2.41's durable scheduler runs it (see `NodeRuntime.scheduledPoll`). */
export interface ScheduledPollOptions extends Omit<PollOptions, 'mode' | 'activation'> {
	/** N8N_SCHEDULER_POLL_TIMEOUT, in ms. */
	timeoutMs: number;
	/** N8N_POLLER_DURABLE_CURSORS_ENABLED: a poll that returns nothing commits its state too. */
	durableCursors: boolean;
	/** What `getPollBudgetMs` answers; default: as n8n 2.41 derives it from the timeout. */
	budgetMs?: number;
	/**
	 * Without durable cursors n8n saves an emitting poll's static data in the background
	 * (`void saveStaticData`) while the execution starts: it lands this much later.
	 */
	saveDelayMs?: number;
}

export interface ScheduledPollResult extends PollResult {
	/** n8n gave up on the poll at its timeout: its result was dropped, nothing committed. */
	abandoned: boolean;
	/** When the poll itself ended (an abandoned one goes on in the background). */
	finished: Promise<void>;
	durationMs: number;
}

/** The scheduled polls of one activation (see `NodeRuntime.activatePolling`). */
export interface PollSession {
	poll(): Promise<PollResult>;
}

export interface LoadOptionsCall extends NodeSelection {
	/** Name of the method in `methods.listSearch` / `methods.loadOptions`. */
	method: string;
	/** Path of the parameter being filled, e.g. `parameters.employee`; rarely needed. */
	path?: string;
}

export interface ListSearchCall extends LoadOptionsCall {
	filter?: string;
	paginationToken?: string;
}

export interface CredentialTestOptions {
	/**
	 * `description.name` of the node type n8n's credentials tester runs the test request with.
	 * n8n resolves `n8n-nodes-base.noOp` through its lazy loader, whose classes keep the short
	 * name `noOp`; the helper's "is this a credential test" check compares with the prefixed name,
	 * so it does not fire and a test does not force a new token. Pass `'n8n-nodes-base.noOp'` to
	 * see the forced-refresh branch.
	 */
	testNodeTypeName?: string;
}

const DEFAULT_PACKAGE = 'n8n-nodes-personnel-data';

/** `INodeTypes` over the given classes, resolving full (`<package>.<name>`) or short names. */
class NodeTypeRegistry implements INodeTypes {
	private readonly types = new Map<string, INodeType | IVersionedNodeType>();

	constructor(
		readonly packageName: string,
		nodeTypes: Array<INodeType | IVersionedNodeType>,
	) {
		for (const type of nodeTypes) {
			// What n8n-core's DirectoryLoader does when loading a node: polling nodes get the
			// "Poll Times" parameter in front of their properties.
			for (const version of allVersions(type)) {
				const { description } = version;
				if (description.polling && !description.properties.some((p) => p.name === 'pollTimes')) {
					description.properties.unshift(...deepCopy(commonPollingParameters));
				}
			}
			this.types.set(type.description.name, type);
		}
	}

	fullName(name: string): string {
		return name.includes('.') ? name : `${this.packageName}.${name}`;
	}

	private shortName(name: string): string {
		const prefix = `${this.packageName}.`;
		return name.startsWith(prefix) ? name.slice(prefix.length) : name;
	}

	getByName(nodeType: string): INodeType | IVersionedNodeType {
		const name = this.shortName(nodeType);
		const type = this.types.get(name) ?? this.toolVariant(name);
		if (!type) throw new UnexpectedError(`Unrecognized node type: ${nodeType}`);
		return type;
	}

	/**
	 * `<name>Tool` of a `usableAsTool` node, as n8n's NodeTypes builds it at run time
	 * (`convertNodeToAiTool`): the same node and properties, no main input, one ai_tool output.
	 */
	private toolVariant(name: string): INodeType | undefined {
		const base = name.endsWith('Tool') ? this.types.get(name.slice(0, -'Tool'.length)) : undefined;
		if (!base || 'nodeVersions' in base || !base.description.usableAsTool) return undefined;
		const description: INodeTypeDescription = {
			...base.description,
			name,
			displayName: `${base.description.displayName} Tool`,
			inputs: [],
			outputs: [NodeConnectionTypes.AiTool],
		};
		delete description.usableAsTool;
		const tool = Object.create(base, { description: { value: description } }) as INodeType;
		this.types.set(name, tool);
		return tool;
	}

	getByNameAndVersion(nodeType: string, version?: number): INodeType {
		return NodeHelpers.getVersionedNodeType(this.getByName(nodeType), version);
	}

	getKnownTypes(): IDataObject {
		return {};
	}

	/** Every version of every registered node type (for the credential-test lookup). */
	all(): INodeType[] {
		return [...this.types.values()].flatMap(allVersions);
	}
}

function allVersions(type: INodeType | IVersionedNodeType): INodeType[] {
	return 'nodeVersions' in type ? Object.values(type.nodeVersions) : [type];
}

let runtimeCounter = 0;

export class NodeRuntime {
	readonly logger = new CapturingLogger();
	readonly credentialStore = new CredentialStore();
	readonly credentialsHelper: HarnessCredentialsHelper;
	private readonly credentialTypes: CredentialTypeRegistry;
	private readonly nodeTypes: NodeTypeRegistry;
	private readonly timezone: string;
	/** The workflow's static data (`node:<name>` / `global`), as stored with the workflow. */
	private workflowStaticData: IDataObject = {};
	private executionCounter = 0;
	/** Unique per runtime, like a workflow id in n8n's database (nodes may key in-process state by it). */
	private readonly workflowId = `harness-workflow-${++runtimeCounter}`;

	constructor(options: NodeRuntimeOptions) {
		activateN8nContainer(this.logger);
		this.credentialTypes = new CredentialTypeRegistry(options.credentialTypes);
		this.credentialsHelper = new HarnessCredentialsHelper(this.credentialTypes, this.credentialStore);
		this.nodeTypes = new NodeTypeRegistry(options.packageName ?? DEFAULT_PACKAGE, options.nodeTypes);
		this.timezone = options.timezone ?? 'UTC';
	}

	// ---------------------------------------------------------------- credentials

	/**
	 * Saves a credential of `type` (as the editor would after "Save"): the data is stored
	 * encrypted, exactly as given (hidden fields such as an expirable token may be omitted: n8n
	 * fills the declared default, `''`, when it reads them). Replaces an earlier one of that type.
	 */
	setCredentials(type: string, data: ICredentialDataDecryptedObject): void {
		this.credentialTypes.getByName(type);
		const existing = this.credentialStore.findByType(type);
		this.credentialStore.save(type, data, existing ? { id: existing.id, name: existing.name } : {});
	}

	/** What is stored now (decrypted, raw: no defaults applied), e.g. the refreshed token. */
	storedCredentials(type: string): ICredentialDataDecryptedObject | undefined {
		const row = this.credentialStore.findByType(type);
		return row ? this.credentialStore.decrypt(row) : undefined;
	}

	/** Writes made by n8n (`updateCredentials`) to credentials of `type`, oldest first. */
	credentialUpdates(type: string): ICredentialDataDecryptedObject[] {
		return this.credentialStore.updates.filter((u) => u.type === type).map((u) => u.data);
	}

	// ---------------------------------------------------------------- logs

	/** Every line logged through n8n's Logger / LoggerProxy since the runtime was created. */
	get logs(): string[] {
		return this.logger.entries.map(formatLogEntry);
	}

	get logEntries(): readonly LogEntry[] {
		return this.logger.entries;
	}

	// ---------------------------------------------------------------- static data

	/** The node's static data as n8n would have saved it (copy). */
	staticData(nodeName: string): IDataObject {
		return plain((this.workflowStaticData[`node:${nodeName}`] as IDataObject | undefined) ?? {});
	}

	/** Replace the node's saved static data (e.g. to simulate an older state). */
	setStaticData(nodeName: string, data: IDataObject): void {
		this.workflowStaticData[`node:${nodeName}`] = plain(data);
	}

	// ---------------------------------------------------------------- execute

	async execute(options: ExecuteOptions): Promise<ExecuteResult> {
		const logStart = this.begin();
		const mode = options.mode ?? 'manual';
		const items = options.items ?? [{ json: {} }];
		const onError = options.onError ?? (options.continueOnFail ? 'continueRegularOutput' : undefined);
		const node = this.buildNode(options, { onError });
		const workflow = this.buildWorkflow(node, mode === 'manual');
		const additionalData = this.additionalData();

		const runExecutionData = createRunExecutionData();
		const executeData: IExecuteData = { node, data: { main: [items] }, source: null };
		const workflowExecute = new WorkflowExecute(additionalData, mode, runExecutionData);

		try {
			const response = await workflowExecute.runNode(
				workflow,
				executeData,
				runExecutionData,
				0,
				additionalData,
				mode,
				options.abortSignal,
			);
			if (!('data' in response)) {
				throw new UnexpectedError('The node asked the engine to run sub-nodes; not supported here');
			}
			this.commitStaticData(workflow, mode);
			// WorkflowExecute.processRunExecutionData: under "Continue (using error output)" the
			// engine moves the items that carry an error to the extra error output. (With a
			// source node it also merges the input item's json into them; here there is none.)
			if (response.data && onError === 'continueErrorOutput') {
				workflowExecute.handleNodeErrorOutput(workflow, executeData, response.data, 0);
			}
			// ... and stores an item that carries an error as `{ json: { error: message }, error }`,
			// whatever else its json held.
			for (const item of (response.data ?? []).flatMap((output) => output ?? [])) {
				if (item.error !== undefined) item.json = { error: item.error.message };
			}
			return { items: response.data ?? [], hints: response.hints ?? [], logs: this.logsSince(logStart) };
		} catch (caught) {
			const error = toError(caught);
			this.commitStaticData(workflow, mode);
			// WorkflowExecute.processRunExecutionData: on error with continueOnFail / onError
			// continue*, the node's input items become its output.
			const continues =
				onError === 'continueRegularOutput' || onError === 'continueErrorOutput';
			return {
				items: continues ? [items] : undefined,
				error,
				hints: [],
				logs: this.logsSince(logStart),
			};
		}
	}

	// ---------------------------------------------------------------- tool call

	/**
	 * One call of an AI Agent's tool: n8n-core's own `makeHandleToolInvocation` runs the node's
	 * `<nodeType>Tool` variant in a `SupplyDataContext` with `args` as its input item, as the
	 * Tools Agent does on n8n 2.8; the result is the text the model gets, or what was thrown.
	 */
	async invokeTool(options: ToolCallOptions): Promise<ToolCallResult> {
		const logStart = this.begin();
		const node = this.buildNode({ ...options, nodeType: `${options.nodeType}Tool` }, {});
		const workflow = this.buildWorkflow(node, true);
		const additionalData = this.additionalData();
		const runExecutionData = createRunExecutionData();
		const nodeType = this.nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
		const executeData: IExecuteData = { node, data: { main: [[{ json: {} }]] }, source: null };
		const contextFactory = (runIndex: number) =>
			new SupplyDataContext(workflow, node, additionalData, 'manual', runExecutionData, runIndex, [], {}, NodeConnectionTypes.AiTool, executeData, []);
		const invoke = makeHandleToolInvocation(contextFactory, node, nodeType, runExecutionData);
		const description = NodeHelpers.getToolDescriptionForNode(node, nodeType);
		try {
			const response = await invoke(options.args);
			return { response, description, logs: this.logsSince(logStart) };
		} catch (caught) {
			return { error: toError(caught), description, logs: this.logsSince(logStart) };
		}
	}

	// ---------------------------------------------------------------- poll

	async poll(options: PollOptions): Promise<PollResult> {
		const logStart = this.begin();
		const mode = options.mode ?? 'trigger';
		const node = this.buildNode(options, {});
		const workflow = this.buildWorkflow(node, mode === 'manual');
		const additionalData = this.additionalData();
		const nodeType = this.nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
		if (!nodeType.poll) throw new UnexpectedError(`${node.type} has no poll()`);

		// trigger: ActiveWorkflows.activatePolling → getPollFunctions(…, mode, activation)
		// manual:  WorkflowExecute.executePollNode → new PollContext(…, 'manual', 'manual')
		const context = new PollContext(
			workflow,
			node,
			additionalData,
			mode,
			mode === 'manual' ? 'manual' : (options.activation ?? 'activate'),
		);
		let items: INodeExecutionData[][] | null | undefined;
		let error: Error | undefined;
		try {
			items = await nodeType.poll.call(context);
		} catch (caught) {
			error = toError(caught);
		}
		this.commitStaticData(workflow, mode);
		return {
			items: error ? undefined : items,
			error,
			staticData: plain(workflow.getStaticData('node', node)),
			logs: this.logsSince(logStart),
		};
	}

	/**
	 * An active workflow's poller as n8n runs it (ActiveWorkflows.activatePolling): one Workflow and
	 * one PollContext for the activation and all of its scheduled polls, which may overlap (n8n does
	 * not wait for one poll to end before the next). The static data lives in that Workflow; as in
	 * n8n, it is saved after the activation's first poll unless that failed
	 * (ActiveWorkflowManager.add) and whenever a poll emits (`__emit`). Deactivating and activating
	 * again, republishing, or restarting n8n is a new session: it starts from what was saved.
	 */
	activatePolling(options: Omit<PollOptions, 'mode'>): PollSession {
		const node = this.buildNode(options, {});
		const workflow = this.buildWorkflow(node, false);
		const nodeType = this.nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
		const poll = nodeType.poll;
		if (!poll) throw new UnexpectedError(`${node.type} has no poll()`);
		const context = new PollContext(workflow, node, this.additionalData(), 'trigger', options.activation ?? 'activate');
		let polls = 0;
		return {
			poll: async (): Promise<PollResult> => {
				const logStart = this.begin();
				const activationPoll = polls++ === 0;
				let items: INodeExecutionData[][] | null | undefined;
				let error: Error | undefined;
				try {
					items = await poll.call(context);
				} catch (caught) {
					error = toError(caught);
				}
				const emitted = items !== null && items !== undefined;
				if ((activationPoll && !error) || emitted) this.workflowStaticData = plain(workflow.staticData);
				return {
					items: error ? undefined : items,
					error,
					staticData: plain(workflow.getStaticData('node', node)),
					logs: this.logsSince(logStart),
				};
			},
		};
	}

	/**
	 * One poll of n8n 2.41's durable scheduler (PollTriggerTaskHandler.execute and
	 * TriggerExecutionContextFactory.createPollExecutionContext): a Workflow and a PollContext built
	 * for this poll alone from the static data n8n saved, activation mode `update`, a context that
	 * tells its budget (`getPollBudgetMs`, the timeout less max(20 %, 5 s), at most half), and a race
	 * against the timeout. A poll still running then is abandoned: its result is dropped and nothing
	 * is committed, while it goes on in the background. Items start an execution and commit the
	 * state with it; nothing commits the state only with durable cursors.
	 */
	async scheduledPoll(options: ScheduledPollOptions): Promise<ScheduledPollResult> {
		const logStart = this.begin();
		const node = this.buildNode(options, {});
		const workflow = this.buildWorkflow(node, false);
		const nodeType = this.nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
		const poll = nodeType.poll;
		if (!poll) throw new UnexpectedError(`${node.type} has no poll()`);
		const context = new PollContext(workflow, node, this.additionalData(), 'trigger', 'update');
		const margin = Math.min(Math.max(0.2 * options.timeoutMs, 5_000), options.timeoutMs / 2);
		const budgetMs = options.budgetMs ?? options.timeoutMs - margin;
		Object.defineProperty(context, 'getPollBudgetMs', { value: () => budgetMs });
		const started = Date.now();
		const running = poll.call(context).then(
			(items) => ({ items }),
			(caught: unknown) => ({ error: toError(caught) }),
		);
		let timer: NodeJS.Timeout | undefined;
		const timedOut = new Promise<'timedOut'>((resolve) => {
			timer = setTimeout(() => resolve('timedOut'), options.timeoutMs);
		});
		const outcome = await Promise.race([running, timedOut]);
		clearTimeout(timer);
		const finished = running.then(() => undefined);
		const durationMs = Date.now() - started;
		if (outcome === 'timedOut') {
			return { abandoned: true, finished, durationMs, staticData: this.staticData(node.name), logs: this.logsSince(logStart) };
		}
		const items = 'items' in outcome ? outcome.items : undefined;
		const emitted = items !== null && items !== undefined;
		if (emitted && !options.durableCursors && options.saveDelayMs !== undefined) {
			const saved = plain(workflow.staticData);
			setTimeout(() => {
				this.workflowStaticData = saved;
			}, options.saveDelayMs);
		} else if (emitted || ('items' in outcome && options.durableCursors)) {
			this.workflowStaticData = plain(workflow.staticData);
		}
		return {
			abandoned: false,
			finished,
			durationMs,
			items,
			error: 'error' in outcome ? outcome.error : undefined,
			staticData: this.staticData(node.name),
			logs: this.logsSince(logStart),
		};
	}

	// ---------------------------------------------------------------- editor-side methods

	/** `methods.listSearch[method](filter, paginationToken)`, as the editor's resource locator calls it. */
	async listSearch(call: ListSearchCall): Promise<INodeListSearchResult> {
		const { context, nodeType } = this.loadOptionsContext(call);
		const method = nodeType.methods?.listSearch?.[call.method];
		if (typeof method !== 'function') {
			throw new UnexpectedError(`No listSearch method "${call.method}" on ${nodeType.description.name}`);
		}
		return await method.call(context, call.filter, call.paginationToken);
	}

	/** `methods.loadOptions[method]()`, as the editor calls it for options/multiOptions. */
	async loadOptions(call: LoadOptionsCall): Promise<INodePropertyOptions[]> {
		const { context, nodeType } = this.loadOptionsContext(call);
		const method = nodeType.methods?.loadOptions?.[call.method];
		if (typeof method !== 'function') {
			throw new UnexpectedError(`No loadOptions method "${call.method}" on ${nodeType.description.name}`);
		}
		return await method.call(context);
	}

	/** `methods.resourceMapping[method]()`, as the editor calls it for a resourceMapper parameter. */
	async resourceMapping(call: LoadOptionsCall): Promise<ResourceMapperFields> {
		const { context, nodeType } = this.loadOptionsContext(call);
		const method = nodeType.methods?.resourceMapping?.[call.method];
		if (typeof method !== 'function') {
			throw new UnexpectedError(`No resourceMapping method "${call.method}" on ${nodeType.description.name}`);
		}
		return await method.call(context);
	}

	/** DynamicNodeParametersService: a `Temp-Node` with the current parameters and credentials. */
	private loadOptionsContext(call: LoadOptionsCall): { context: LoadOptionsContext; nodeType: INodeType } {
		this.begin();
		const node = this.buildNode(call, {});
		node.name = 'Temp-Node';
		node.id = 'uuid-1234';
		const currentNodeParameters = deepCopy(node.parameters);
		const workflow = this.buildWorkflow(node, true);
		const additionalData = this.additionalData();
		additionalData.currentNodeParameters = currentNodeParameters;
		const nodeType = this.nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
		return { context: new LoadOptionsContext(workflow, node, additionalData, call.path ?? ''), nodeType };
	}

	// ---------------------------------------------------------------- credential test

	/**
	 * n8n's `CredentialsTester.testCredentials` for the stored credential of `type`: the
	 * credential's `test` request (or a node's `testedBy`) run through `RoutingNode` →
	 * `httpRequestWithAuthentication`, hence with pre-authentication (token fetched when empty,
	 * re-fetched and retried once on 401, and saved).
	 */
	async testCredential(type: string, options: CredentialTestOptions = {}): Promise<INodeCredentialTestResult> {
		this.begin();
		const row = this.credentialStore.findByType(type);
		if (!row) throw new UnexpectedError(`No stored credentials of type "${type}"`);
		const testFunction = this.getCredentialTestFunction(type);
		if (testFunction === undefined) {
			return { status: 'Error', message: 'No testing function found for this credential.' };
		}

		const credentialsDecrypted: ICredentialsDecrypted = {
			id: row.id,
			name: row.name,
			type,
			data: this.credentialStore.decrypt(row),
		};
		const additionalData = this.additionalData();
		try {
			credentialsDecrypted.data = await this.credentialsHelper.applyDefaultsAndOverwrites(
				additionalData,
				credentialsDecrypted.data ?? {},
				type,
				'internal',
			);
		} catch (caught) {
			const error = toError(caught);
			this.logger.debug('Credential test failed', { error });
			return { status: 'Error', message: error.message };
		}

		if (typeof testFunction === 'function') {
			return await testFunction.call(new CredentialTestContext(), credentialsDecrypted);
		}

		const baseType = testFunction.nodeType ?? noOpNodeType(options.testNodeTypeName ?? 'noOp');
		const version = baseType.description.version;
		const node: INode = {
			id: 'temp',
			parameters: {},
			name: 'Temp-Node',
			type: baseType.description.name,
			typeVersion: Array.isArray(version) ? version[version.length - 1] : version,
			position: [0, 0],
			credentials: { [type]: { id: row.id, name: row.name } },
		};
		const nodeTypeCopy: INodeType = {
			description: {
				...baseType.description,
				credentials: [{ name: type, required: true }],
				properties: [
					{
						displayName: 'Temp',
						name: 'temp',
						type: 'string',
						routing: { request: testFunction.testRequest.request },
						default: '',
					},
				],
			},
		};
		const testNodeTypes: INodeTypes = {
			getByName: () => nodeTypeCopy,
			getByNameAndVersion: () => nodeTypeCopy,
			getKnownTypes: () => ({}),
		};
		const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes: testNodeTypes });
		const runExecutionData = createRunExecutionData();
		const executeData: IExecuteData = { node, data: {}, source: null };
		const executeFunctions = new ExecuteContext(
			workflow,
			node,
			additionalData,
			'internal',
			runExecutionData,
			0,
			[],
			{ main: [[{ json: {} }]] },
			executeData,
			[],
		);
		const routingNode = new RoutingNode(executeFunctions, nodeTypeCopy, credentialsDecrypted);

		let response: INodeExecutionData[][] | null | undefined;
		try {
			response = await routingNode.runNode();
		} catch (caught) {
			return this.credentialTestError(caught, testFunction.testRequest);
		}
		for (const rule of testFunction.testRequest.rules ?? []) {
			if (rule.type === 'responseSuccessBody') {
				const json = response?.[0]?.[0]?.json ?? {};
				if (getPath(json, rule.properties.key) === rule.properties.value) {
					return { status: 'Error', message: rule.properties.message };
				}
			}
		}
		return { status: 'OK', message: 'Connection successful!' };
	}

	/** The tester's catch block: response code rules, then "not 2xx", then the error code/message. */
	private credentialTestError(caught: unknown, testRequest: ICredentialTestRequest): INodeCredentialTestResult {
		const error = toError(caught) as Error & {
			cause?: { response?: { status: number; statusText?: string }; code?: string };
		};
		const response = error.cause?.response;
		if (response) {
			for (const rule of testRequest.rules ?? []) {
				if (rule.type === 'responseCode' && response.status === rule.properties.value) {
					return { status: 'Error', message: rule.properties.message };
				}
			}
			if (response.status < 199 || response.status > 299) {
				return {
					status: 'Error',
					message: response.statusText || `Received HTTP status code: ${response.status}`,
				};
			}
		} else if (error.cause?.code) {
			return { status: 'Error', message: error.cause.code };
		}
		this.logger.debug('Credential test failed', { error });
		return { status: 'Error', message: error.message };
	}

	/** Same search order as n8n's tester: the credential's own `test`, then nodes' `testedBy`. */
	private getCredentialTestFunction(
		type: string,
	): ICredentialTestFunction | { nodeType?: INodeType; testRequest: ICredentialTestRequest } | undefined {
		const credentialType = this.credentialTypes.getByName(type);
		if (credentialType.test) return { testRequest: credentialType.test };
		for (const nodeType of this.nodeTypes.all()) {
			for (const { name, testedBy } of nodeType.description.credentials ?? []) {
				if (name !== type || !testedBy) continue;
				if (typeof testedBy === 'string') return nodeType.methods?.credentialTest?.[testedBy];
				return { nodeType, testRequest: testedBy };
			}
		}
		return undefined;
	}

	// ---------------------------------------------------------------- plumbing

	private begin(): number {
		activateN8nContainer(this.logger);
		return this.logger.entries.length;
	}

	private logsSince(start: number): string[] {
		return this.logger.entries.slice(start).map(formatLogEntry);
	}

	private buildNode(
		selection: NodeSelection,
		settings: Pick<INode, 'onError'>,
	): INode {
		const type = this.nodeTypes.fullName(selection.nodeType);
		const versioned = this.nodeTypes.getByName(type);
		const description: INodeTypeDescription = NodeHelpers.getVersionedNodeType(
			versioned,
			selection.typeVersion,
		).description;
		const typeVersion =
			selection.typeVersion ??
			(Array.isArray(description.version)
				? description.version[description.version.length - 1]
				: description.version);

		const credentials: INodeCredentials = {};
		const wanted = selection.credentials ?? (description.credentials ?? []).map((c) => c.name);
		for (const credentialType of wanted) {
			const row = this.credentialStore.findByType(credentialType);
			if (row) credentials[credentialType] = { id: row.id, name: row.name };
		}

		const node: INode = {
			id: `node-${description.name}`,
			name: selection.nodeName ?? description.defaults.name ?? description.displayName,
			type,
			typeVersion,
			position: [0, 0],
			parameters: deepCopy(selection.parameters ?? {}),
			...(Object.keys(credentials).length > 0 ? { credentials } : {}),
			...(settings.onError ? { onError: settings.onError } : {}),
		};
		return node;
	}

	/**
	 * One-node workflow. Static data: the saved object for non-manual runs (changes persist, as the
	 * active workflow instance keeps them); a copy for manual runs (changes are discarded).
	 */
	private buildWorkflow(node: INode, manual: boolean): Workflow {
		return new Workflow({
			id: this.workflowId,
			name: 'Harness workflow',
			nodes: [node],
			connections: {},
			active: !manual,
			nodeTypes: this.nodeTypes,
			staticData: plain(this.workflowStaticData),
			settings: { executionOrder: 'v1', timezone: this.timezone },
		});
	}

	private commitStaticData(workflow: Workflow, mode: WorkflowExecuteMode): void {
		if (mode === 'manual') return;
		this.workflowStaticData = plain(workflow.staticData);
	}

	/** `IWorkflowExecuteAdditionalData` as `WorkflowExecuteAdditionalData.getBase` builds it, minus the DB. */
	private additionalData(): IWorkflowExecuteAdditionalData {
		const unsupported = async (): Promise<never> => {
			throw new UnexpectedError('Not available in the node test harness');
		};
		return {
			credentialsHelper: this.credentialsHelper,
			executeWorkflow: unsupported,
			getRunExecutionData: async () => undefined,
			executionId: `harness-${++this.executionCounter}`,
			currentNodeExecutionIndex: 0,
			restApiUrl: 'http://localhost:5678/rest',
			instanceBaseUrl: 'http://localhost:5678/',
			formWaitingBaseUrl: 'http://localhost:5678/form-waiting',
			webhookBaseUrl: 'http://localhost:5678/webhook',
			webhookWaitingBaseUrl: 'http://localhost:5678/webhook-waiting',
			webhookTestBaseUrl: 'http://localhost:5678/webhook-test',
			userId: 'harness-user',
			variables: {},
			logAiEvent: () => {},
			startRunnerTask: unsupported,
			// n8n-core augments the interface with this; without a manager it knows no secrets.
			externalSecretsProxy: new ExternalSecretsProxy(),
		};
	}
}

/** The stand-in for nodes-base's NoOp node, as the credentials tester sees it. */
function noOpNodeType(name: string): INodeType {
	return {
		description: {
			displayName: 'No Operation, do nothing',
			name,
			group: ['organization'],
			version: 1,
			description: 'No Operation',
			defaults: { name: 'No Operation, do nothing' },
			inputs: ['main'],
			outputs: ['main'],
			properties: [],
		},
	};
}

/** Plain JSON copy: strips ObservableObject proxies and `__dataChanged`, as the DB column would. */
function plain(data: IDataObject): IDataObject {
	return JSON.parse(JSON.stringify(data ?? {})) as IDataObject;
}

function toError(caught: unknown): Error {
	return caught instanceof Error ? caught : new Error(String(caught));
}

function getPath(object: IDataObject, path: string): unknown {
	let current: unknown = object;
	for (const key of path.split('.')) {
		if (current === null || typeof current !== 'object') return undefined;
		current = (current as IDataObject)[key];
	}
	return current;
}
