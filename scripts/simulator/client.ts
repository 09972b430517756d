import { ofetch, type $Fetch } from 'ofetch';
import type { SimulatorCredentials } from './auth';
import type { FaultConfig, QueuedFault } from './faults';
import type { RequestLogEntry, SimulatorStats } from './requestLog';
import type { ClockState, CreateOptions, FileTransferOptions, SimulatorConfig, TouchOptions } from './simulator';
import type { ResourceName, Role, SeedSizes, SimRecord } from './types';

/**
 * Drives a simulator in another process through its `/__sim` control routes. Method names match
 * the in-process `Simulator`, but every call is async.
 */
export class SimulatorClient {
	private readonly http: $Fetch;

	constructor(readonly baseUrl: string) {
		this.http = ofetch.create({ baseURL: `${baseUrl.replace(/\/$/, '')}/__sim`, retry: 0 });
	}

	health(): Promise<{ ok: boolean }> {
		return this.http('/health');
	}

	credentials(): Promise<SimulatorCredentials> {
		return this.http('/credentials');
	}

	async reset(options: { seed?: number; sizes?: SeedSizes } = {}): Promise<Record<ResourceName, number>> {
		return (await this.http<{ counts: Record<ResourceName, number> }>('/reset', { method: 'POST', body: options })).counts;
	}

	counts(): Promise<Record<ResourceName, number>> {
		return this.http('/counts');
	}

	getConfig(): Promise<SimulatorConfig> {
		return this.http('/config');
	}

	setConfig(patch: Partial<SimulatorConfig>): Promise<SimulatorConfig> {
		return this.http('/config', { method: 'PATCH', body: patch });
	}

	setScanLimit(scanLimit: number): Promise<SimulatorConfig> {
		return this.setConfig({ scanLimit });
	}

	setTokenTtl(tokenTtlSeconds: number): Promise<SimulatorConfig> {
		return this.setConfig({ tokenTtlSeconds });
	}

	clockState(): Promise<ClockState> {
		return this.http('/clock');
	}

	setClock(now: string): Promise<ClockState> {
		return this.http('/clock/set', { method: 'POST', body: { now } });
	}

	advanceClock(seconds: number): Promise<ClockState> {
		return this.http('/clock/advance', { method: 'POST', body: { seconds } });
	}

	freezeClock(at?: string): Promise<ClockState> {
		return this.http('/clock/freeze', { method: 'POST', body: { at } });
	}

	unfreezeClock(): Promise<ClockState> {
		return this.http('/clock/unfreeze', { method: 'POST', body: {} });
	}

	async getRecords(resource: ResourceName, ids?: readonly string[]): Promise<SimRecord[]> {
		const query = ids ? { ids: ids.join(',') } : undefined;
		return (await this.http<{ data: SimRecord[] }>(`/records/${resource}`, { query })).data;
	}

	async createRecords(resource: ResourceName, count: number, options: CreateOptions = {}): Promise<SimRecord[]> {
		return (await this.http<{ data: SimRecord[] }>(`/records/${resource}`, { method: 'POST', body: { count, ...options } })).data;
	}

	async touchRecords(resource: ResourceName, ids: readonly string[], options: TouchOptions = {}): Promise<SimRecord[]> {
		return (await this.http<{ data: SimRecord[] }>(`/records/${resource}/touch`, { method: 'POST', body: { ids, ...options } })).data;
	}

	async deleteRecords(resource: ResourceName, ids: readonly string[]): Promise<number> {
		return (await this.http<{ deleted: number }>(`/records/${resource}/delete`, { method: 'POST', body: { ids } })).deleted;
	}

	async createLateRecords(resource: ResourceName, count: number, timestamp: string, options: Omit<CreateOptions, 'timestamp'> = {}): Promise<SimRecord[]> {
		const body = { count, timestamp, ...options };
		return (await this.http<{ data: SimRecord[] }>(`/records/${resource}/late`, { method: 'POST', body })).data;
	}

	async revealRecords(resource: ResourceName, ids?: readonly string[]): Promise<string[]> {
		return (await this.http<{ revealed: string[] }>(`/records/${resource}/reveal`, { method: 'POST', body: { ids } })).revealed;
	}

	restrictedIds(): Promise<Record<ResourceName, string[]>> {
		return this.http('/restricted');
	}

	hiddenIds(): Promise<Record<ResourceName, string[]>> {
		return this.http('/hidden');
	}

	/** Ids of the seeded conditions by key of CONDITION_NAMES. */
	conditionIds(): Promise<Record<string, string>> {
		return this.http('/conditions');
	}

	async createFileTransfer(options: FileTransferOptions = {}): Promise<SimRecord> {
		return (await this.http<{ data: SimRecord }>('/file-transfers', { method: 'POST', body: options })).data;
	}

	getFaults(): Promise<{ config: FaultConfig; queue: QueuedFault[] }> {
		return this.http('/faults');
	}

	setFaults(patch: Partial<FaultConfig>): Promise<FaultConfig> {
		return this.http('/faults', { method: 'PATCH', body: patch });
	}

	async queueFault(fault: QueuedFault): Promise<void> {
		await this.http('/faults/queue', { method: 'POST', body: fault });
	}

	async clearFaults(): Promise<void> {
		await this.http('/faults', { method: 'DELETE' });
	}

	async requests(limit?: number): Promise<RequestLogEntry[]> {
		const query = limit === undefined ? undefined : { limit: String(limit) };
		return (await this.http<{ data: RequestLogEntry[] }>('/requests', { query })).data;
	}

	async clearRequests(): Promise<void> {
		await this.http('/requests', { method: 'DELETE' });
	}

	stats(): Promise<SimulatorStats> {
		return this.http('/stats');
	}

	async resetStats(): Promise<void> {
		await this.http('/stats', { method: 'DELETE' });
	}

	async revokeTokens(): Promise<void> {
		await this.http('/tokens/revoke', { method: 'POST', body: {} });
	}

	async issueToken(role: Role = 'admin'): Promise<string> {
		return (await this.http<{ access_token: string }>('/tokens', { method: 'POST', body: { role } })).access_token;
	}
}
