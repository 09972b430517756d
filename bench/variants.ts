/**
 * The real-n8n benchmark's variants: what each one is, the workflow that runs it (the Personnel
 * Data node and the HTTP Request node as a user builds the same work), which nodes are measured,
 * and the shape of a run's and a section's results. Shared by bench/n8n.ts (which runs them),
 * bench/latency.ts (the latency axis) and bench/n8nFigures.ts, and importing none of them.
 */
import type { WorkflowFile, WorkflowNode } from '../scripts/n8n/driver';
import { actionNode, baseNode, chainWorkflow, itemsOf, type CredentialRef } from '../scripts/n8n/driver/workflowBuilders';

/** Jitter of the latency axis and the import: each request waits latency + up to this share of it more, at random. */
export const JITTER_SHARE = 0.2;

export const EMPLOYEES_PATH = '/v1/org/employees';
export const PAGE_SIZE = 100;

export const PD_CREDENTIAL: CredentialRef = { id: 'benchPdCred00001', name: 'Personnel Data (bench)' };
export const HEADER_CREDENTIAL: CredentialRef = { id: 'benchHdrCred0001', name: 'Bearer header (bench)' };

/** What each variant is; the keys name them in the results. */
export const VARIANTS = {
	pdSimplifyOff: 'Personnel Data, Return All, Simplify off',
	pdSimplifyOn: 'Personnel Data, Return All, Simplify on (defaults: no order, read in inserted_at ranges)',
	pdOrdered: 'Personnel Data, Return All ordered by Inserted At (ranges in parallel), Simplify on',
	pdOrderedByName: 'Personnel Data, Return All ordered by Last Name (one cursor), Simplify on',
	http: 'HTTP Request, Pagination, bearer header',
	httpSplitOut: 'HTTP Request, Pagination + Split Out',
	httpCredential: 'HTTP Request, Pagination, bearer from a Header Auth credential',
	pdGetById: 'Personnel Data, Get by ID of each item (read in batches)',
	httpGetById: 'HTTP Request, one GET per item, bearer header',
} as const;
export type VariantName = keyof typeof VARIANTS;

/** The node(s) whose executionTime is summed and whose last one's output is counted. */
export const MEASURED_NODES: Record<VariantName, string[]> = {
	pdSimplifyOff: ['Personnel Data'],
	pdSimplifyOn: ['Personnel Data'],
	pdOrdered: ['Personnel Data'],
	pdOrderedByName: ['Personnel Data'],
	http: ['HTTP Request'],
	httpSplitOut: ['HTTP Request', 'Split Out'],
	httpCredential: ['HTTP Request'],
	pdGetById: ['Personnel Data'],
	httpGetById: ['HTTP Request'],
};

/** Items of the Get by ID variants: that many employees' ids, one item each (Set + Split Out upstream). */
export const GET_BY_ID_ITEMS = 1_000;
const GET_BY_ID_VARIANTS: readonly VariantName[] = ['pdGetById', 'httpGetById'];
export const isGetById = (variant: VariantName): boolean => GET_BY_ID_VARIANTS.includes(variant);

export const WORKFLOW_IDS: Record<VariantName, string> = {
	pdSimplifyOff: 'benchPdSimplOff1',
	pdSimplifyOn: 'benchPdSimplOn01',
	pdOrdered: 'benchPdOrdered01',
	pdOrderedByName: 'benchPdOrdName01',
	http: 'benchHttpPages01',
	httpSplitOut: 'benchHttpSplit01',
	httpCredential: 'benchHttpCred001',
	pdGetById: 'benchPdGetById01',
	httpGetById: 'benchHttpGetId01',
};

export interface N8nRun {
	variant: VariantName;
	/** stoppedAt − startedAt of the execution (ms, n8n's own timestamps). */
	executionMs: number;
	/** Sum of the measured nodes' runData executionTime (ms). */
	nodeMs: number;
	/** Items the last measured node output. */
	items: number;
	requests: number;
	listRequests: number;
	connections: number;
	/** Peak RSS (VmHWM) at the last sample before the execution stopped: startup + execution. */
	peakRssBytes: number;
	/** RSS at the last sample before the execution started: n8n started, nothing run yet. */
	rssAtStartBytes: number;
	/** VmHWM at the last sample before the process exited: also saving and printing the execution. */
	processPeakRssBytes: number;
	/** Wall time of the whole `n8n execute` process (start-up included). */
	processMs: number;
	crashedAtExit: boolean;
	/** Latency added to every API request for this run (ms; absent: none). */
	latencyMs?: number;
	/** Employees in the simulator for this run (the latency axis; absent elsewhere). */
	employees?: number;
}

export interface N8nSection {
	kind: 'n8n';
	key: string;
	n8nVersion: string;
	nodeVersion: string;
	n: number;
	reps: number;
	/** Order of the variants in each repetition. */
	orders: VariantName[][];
	/** The first Personnel Data run (fresh credential: it provisions the token). */
	warmUp: N8nRun;
	runs: N8nRun[];
	/** Return All of `large.n` employees with the node's defaults (Simplify on), once. */
	large?: { n: number; run: N8nRun };
	/** Every installed pinned version's HTTP helper, probed for connection reuse. */
	helperProbes: HelperProbe[];
	/** The latency axis (bench/latency.ts): runs with latency added, kept apart from `runs`. */
	latencyRuns?: N8nRun[];
	seconds: number;
}

export type N8nOutcome = N8nSection | { kind: 'skipped'; reason: string };

export interface HelperProbeMode {
	ms: number[];
	requests: number;
	connections: number;
	records: number;
}

/** bench/n8nHelperProbe.cjs run with one install's node: n8n's helper with and without keepAlive agent options. */
export interface HelperProbe {
	key: string;
	n8nVersion: string;
	module: string;
	node: string;
	results: { default: HelperProbeMode; keepAlive: HelperProbeMode };
}

// ---------------------------------------------------------------- workflows

function httpRequestNode(baseUrl: string, token: string | undefined): WorkflowNode {
	const parameters: Record<string, unknown> = {
		url: `${baseUrl}${EMPLOYEES_PATH}`,
		sendQuery: true,
		queryParameters: { parameters: [{ name: 'pagination[first]', value: String(PAGE_SIZE) }] },
		options: {
			pagination: {
				pagination: {
					paginationMode: 'updateAParameterInEachRequest',
					parameters: { parameters: [{ type: 'qs', name: 'pagination[after]', value: '={{ $response.body.pagination.end_cursor }}' }] },
					paginationCompleteWhen: 'other',
					completeExpression: '={{ $response.body.pagination.has_next_page === false }}',
				},
			},
		},
	};
	if (token === undefined) {
		parameters.authentication = 'genericCredentialType';
		parameters.genericAuthType = 'httpHeaderAuth';
	} else {
		parameters.sendHeaders = true;
		parameters.headerParameters = { parameters: [{ name: 'Authorization', value: `Bearer ${token}` }] };
	}
	const node = baseNode('HTTP Request', 'httpRequest', 4.2, parameters);
	if (token === undefined) node.credentials = { httpHeaderAuth: HEADER_CREDENTIAL };
	return node;
}

function personnelDataNode(simplify: boolean, options: Record<string, unknown> = {}): WorkflowNode {
	return actionNode('Personnel Data', PD_CREDENTIAL, { resource: 'employee', operation: 'getMany', returnAll: true, simplify, options });
}

/** The HTTP Request node as a user builds a Get by ID: one request per input item. */
function httpGetByIdNode(baseUrl: string, token: string): WorkflowNode {
	return baseNode('HTTP Request', 'httpRequest', 4.2, {
		url: `={{ ${JSON.stringify(`${baseUrl}${EMPLOYEES_PATH}/`)} + $json.id }}`,
		sendHeaders: true,
		headerParameters: { parameters: [{ name: 'Authorization', value: `Bearer ${token}` }] },
		options: {},
	});
}

export function workflows(baseUrl: string, token: string, ids: readonly string[]): Record<VariantName, WorkflowFile> {
	const splitOut = baseNode('Split Out', 'splitOut', 1, { fieldToSplitOut: 'data', include: 'noOtherFields', options: {} });
	const build = (variant: VariantName, nodes: WorkflowNode[]) => chainWorkflow(WORKFLOW_IDS[variant], `Bench: ${VARIANTS[variant]}`, nodes);
	return {
		pdSimplifyOff: build('pdSimplifyOff', [personnelDataNode(false)]),
		pdSimplifyOn: build('pdSimplifyOn', [personnelDataNode(true)]),
		pdOrdered: build('pdOrdered', [personnelDataNode(true, { orderBy: 'inserted_at', orderDirection: 'asc' })]),
		pdOrderedByName: build('pdOrderedByName', [personnelDataNode(true, { orderBy: 'last_name', orderDirection: 'asc' })]),
		http: build('http', [httpRequestNode(baseUrl, token)]),
		httpSplitOut: build('httpSplitOut', [httpRequestNode(baseUrl, token), splitOut]),
		httpCredential: build('httpCredential', [httpRequestNode(baseUrl, undefined)]),
		pdGetById: build('pdGetById', [
			...itemsOf('id', ids),
			actionNode('Personnel Data', PD_CREDENTIAL, { resource: 'employee', operation: 'get', id: { __rl: true, mode: 'id', value: '={{ $json.id }}' }, simplify: false }),
		]),
		httpGetById: build('httpGetById', [...itemsOf('id', ids), httpGetByIdNode(baseUrl, token)]),
	};
}
