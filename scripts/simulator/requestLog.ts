import type { QueryObject } from './query';
import type { Json, Role, TokenKind } from './types';

export interface RequestLogEntry {
	seq: number;
	/** Simulator clock when the request arrived. */
	at: string;
	method: string;
	path: string;
	/** The query string exactly as sent, without the `?`. */
	rawQuery: string;
	query: QueryObject | null;
	body?: Json;
	status: number;
	routeKind: string;
	tokenKind: TokenKind;
	role?: Role;
	tokenId?: string;
	/** The token of a request refused with 401 (expired, revoked), when it was one the simulator issued. */
	refusedTokenId?: string;
	fault?: string;
	durationMs: number;
}

export interface TokenStats {
	kind: TokenKind;
	role?: Role;
	requests: number;
}

export interface SimulatorStats {
	requests: number;
	byRouteKind: Record<string, number>;
	byStatus: Record<string, number>;
	provisioning: { begin: number; refresh: number };
	unauthorized: number;
	faults: number;
	/** TCP connections that carried API requests (control calls aside): `requests` when none is reused. */
	connections: number;
	tokens: Record<string, TokenStats>;
}

function emptyStats(): SimulatorStats {
	return { requests: 0, byRouteKind: {}, byStatus: {}, provisioning: { begin: 0, refresh: 0 }, unauthorized: 0, faults: 0, connections: 0, tokens: {} };
}

/** A bounded ring buffer of requests plus running counters. */
export class RequestLog {
	private entries: RequestLogEntry[] = [];
	private seq = 0;
	stats: SimulatorStats = emptyStats();

	constructor(public capacity = 2000) {}

	record(entry: Omit<RequestLogEntry, 'seq'>): void {
		const full = { ...entry, seq: ++this.seq };
		this.entries.push(full);
		if (this.entries.length > this.capacity) this.entries.splice(0, this.entries.length - this.capacity);
		this.count(full);
	}

	private count(entry: RequestLogEntry): void {
		const s = this.stats;
		s.requests++;
		s.byRouteKind[entry.routeKind] = (s.byRouteKind[entry.routeKind] ?? 0) + 1;
		s.byStatus[String(entry.status)] = (s.byStatus[String(entry.status)] ?? 0) + 1;
		if (entry.routeKind === 'provisioning.begin') s.provisioning.begin++;
		if (entry.routeKind === 'provisioning.refresh') s.provisioning.refresh++;
		if (entry.status === 401) s.unauthorized++;
		if (entry.fault) s.faults++;
		if (entry.tokenId) {
			const t = (s.tokens[entry.tokenId] ??= { kind: entry.tokenKind, role: entry.role, requests: 0 });
			t.requests++;
		}
	}

	/** The newest `limit` entries, oldest first. */
	list(limit?: number): RequestLogEntry[] {
		return limit === undefined ? [...this.entries] : this.entries.slice(-limit);
	}

	clear(): void {
		this.entries = [];
	}

	connectionOpened(): void {
		this.stats.connections++;
	}

	resetStats(): void {
		this.stats = emptyStats();
	}
}
