/**
 * What the bench worker's measurements share: a simulator and n8n-core's runtime with the package's
 * nodes (a "bed"), the node run through it, and the hand-written page loops it is compared with.
 */
import { Agent } from 'node:http';

import axios from 'axios';
import { httpRequest } from 'n8n-core/dist/execution-engine/node-execution-context/utils/request-helper-functions';
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { PersonnelDataApi } from '../credentials/PersonnelDataApi.credentials';
import { NodeRuntime } from '../scripts/harness';
import { SimulatorClient } from '../scripts/simulator/client';
import type { SimulatorStats } from '../scripts/simulator/requestLog';
import { startSimulator, type RunningSimulator } from '../scripts/simulator/server';
import type { HttpClientName, SimulatorSource } from './common';
import { PersonnelData, PersonnelDataTrigger } from './nodes';

export const CREDENTIAL = 'personnelDataApi';
export const EMPLOYEES_PATH = '/v1/org/employees';
export const TRIGGER_NODE_NAME = 'Personnel Data Trigger';
export const PAGE_SIZE = 100;

export interface Bed {
	baseUrl: string;
	client: SimulatorClient;
	runtime: NodeRuntime;
	inProcess?: RunningSimulator;
}

export async function openBed(source: SimulatorSource): Promise<Bed> {
	let baseUrl: string;
	let jti: string;
	let refreshToken: string;
	let inProcess: RunningSimulator | undefined;
	if (source.kind === 'external') {
		({ baseUrl, jti, refreshToken } = source);
	} else {
		inProcess = await startSimulator({ sizes: { employees: source.employees } });
		baseUrl = inProcess.baseUrl;
		({ jti, refreshToken } = inProcess.credentials.admin);
	}
	const runtime = new NodeRuntime({
		nodeTypes: [new PersonnelData(), new PersonnelDataTrigger()],
		credentialTypes: [new PersonnelDataApi()],
	});
	runtime.setCredentials(CREDENTIAL, { baseUrl, authMode: 'refreshToken', jti, refreshToken });
	return { baseUrl, client: new SimulatorClient(baseUrl), runtime, inProcess };
}

export function accessToken(bed: Bed): string {
	const token = bed.runtime.storedCredentials(CREDENTIAL)?.accessToken;
	if (typeof token !== 'string' || token === '') throw new Error('the node has not provisioned a token yet');
	return token;
}

/** Total of the stats counters that are list requests of any resource. */
export function listRequestsOf(stats: SimulatorStats): number {
	return Object.entries(stats.byRouteKind)
		.filter(([kind]) => kind.endsWith('.list'))
		.reduce((sum, [, count]) => sum + count, 0);
}

export function provisioningOf(stats: SimulatorStats): number {
	return stats.provisioning.begin + stats.provisioning.refresh;
}

export async function timed<T>(run: () => Promise<T>): Promise<{ ms: number; value: T }> {
	const started = performance.now();
	const value = await run();
	return { ms: performance.now() - started, value };
}

export function collectGarbage(): void {
	const gc = (globalThis as { gc?: () => void }).gc;
	if (gc) {
		gc();
		gc();
	}
}

// ---------------------------------------------------------------- node runs

export function employeeListParameters(options: { conditionId?: string; simplify: boolean; limit?: number }): INodeParameters {
	const parameters: INodeParameters = {
		resource: 'employee',
		operation: 'getMany',
		returnAll: options.limit === undefined,
		simplify: options.simplify,
	};
	if (options.limit !== undefined) parameters.limit = options.limit;
	if (options.conditionId) parameters.condition = { __rl: true, mode: 'id', value: options.conditionId };
	return parameters;
}

export async function executeNode(bed: Bed, parameters: INodeParameters, items?: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const result = await bed.runtime.execute({ nodeType: 'personnelData', parameters, items });
	if (result.error) throw result.error;
	return result.items?.[0] ?? [];
}

// ---------------------------------------------------------------- the hand-written loop

export interface CursorPage {
	data: IDataObject[];
	pagination: { end_cursor: string | null; has_next_page: boolean };
}

/** GETs one URL with the bearer token and returns the parsed page (throws on a non-2xx status). */
export type PageGetter = (url: string, token: string) => Promise<CursorPage>;

export const fetchPage: PageGetter = async (url, token) => {
	const response = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
	if (!response.ok) throw new Error(`raw loop: ${response.status} for ${url}`);
	return (await response.json()) as CursorPage;
};

/** What a careful user would write: same token, same pages, follow end_cursor, keep every record. */
export async function rawLoop(
	baseUrl: string,
	token: string,
	path: string,
	query: URLSearchParams,
	getPage: PageGetter = fetchPage,
): Promise<{ records: IDataObject[]; requests: number }> {
	const records: IDataObject[] = [];
	let requests = 0;
	let after: string | null = null;
	for (;;) {
		const params = new URLSearchParams(query);
		params.set('pagination[first]', String(PAGE_SIZE));
		if (after !== null) params.set('pagination[after]', after);
		const page = await getPage(`${baseUrl}${path}?${params.toString()}`, token);
		requests++;
		for (const record of page.data) records.push(record);
		if (!page.pagination.has_next_page) break;
		after = page.pagination.end_cursor;
	}
	return { records, requests };
}

/** An axios instance of its own: n8n-core's interceptor (a new agent per request) sits on the default one. */
export const plainAxios = axios.create();
export const sharedAgent = new Agent({ keepAlive: true });

export const PAGE_GETTERS: Record<HttpClientName, PageGetter> = {
	fetch: fetchPage,
	axiosSharedAgent: async (url, token) =>
		(await plainAxios.get<CursorPage>(url, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' }, httpAgent: sharedAgent })).data,
	axiosAgentPerRequest: async (url, token) =>
		(await plainAxios.get<CursorPage>(url, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' }, httpAgent: new Agent() })).data,
	n8nHttpRequest: async (url, token) =>
		(await httpRequest({ method: 'GET', url, json: true, headers: { authorization: `Bearer ${token}` } })) as unknown as CursorPage,
};

/** Warms up fetch (undici loads lazily) with one request that matches nothing. */
export const ONE_PAGE_QUERY = new URLSearchParams({ 'filters[id][op]': 'eq', 'filters[id][value]': '00000000-0000-4000-8000-000000000000' });

export function employeeQuery(conditionId: string | undefined): URLSearchParams {
	const query = new URLSearchParams();
	if (conditionId) query.set('condition_id', conditionId);
	return query;
}

// ---------------------------------------------------------------- tasks
