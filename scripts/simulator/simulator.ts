import { AuthService, type SimulatorCredentials } from './auth';
import { SimClock, parseTimestampMicros } from './clock';
import { CONDITION_NAMES } from './conditionSeeds';
import { CursorCodec } from './cursor';
import { FaultInjector, type FaultConfig, type QueuedFault } from './faults';
import { RequestLog, type RequestLogEntry, type SimulatorStats } from './requestLog';
import { hashString, Rng } from './rng';
import { EMPLOYEE_SCHEMAS, type EmployeeSchema, type EmployeeSchemaName } from './employeeSchemas';
import { createCollections, GENERATORS, refsOf, seedAll, type Collections, type Generator } from './seed';
import { RESOURCE_NAMES, type JsonObject, type ResourceName, type Role, type SeedSizes, type SimRecord } from './types';
import { conformRecords } from './variedAnswers';
import { variationOf, type ServerVariation } from './variations';

export interface SimulatorOptions {
	/** Seed of all random data, credentials and secrets (default 1). */
	seed?: number;
	/** Records per collection; unspecified ones use DEFAULT_SIZES. */
	sizes?: SeedSizes;
	/** Records read per request under a condition (default 250). */
	scanLimit?: number;
	/** Lifetime of provisioned access tokens (default 3600). */
	tokenTtlSeconds?: number;
	/** Start of the simulator clock (ISO 8601); default: real now. */
	clockStart?: string;
	/** Start with a frozen clock. */
	freezeClock?: boolean;
	/** Whether faults also apply to /provisioning routes (default true). */
	faultsOnProvisioning?: boolean;
	/** Entries kept in the request log (default 2000). */
	requestLogCapacity?: number;
	/** The customer's employee fields (default `standard`, the registry's); see employeeSchemas.ts. */
	employeeSchema?: EmployeeSchemaName;
	/** The server's choices on the spec's gaps (variations.ts); unnamed switches keep their first value. */
	variation?: Partial<ServerVariation>;
}

export interface CreateOptions {
	/** Fields to set on every created record (after generation). */
	overrides?: JsonObject;
	/** Force the restricted flag (default: index % 10 === 3). */
	restricted?: boolean;
	/** inserted_at and updated_at of the records (default: clock now). */
	timestamp?: string;
}

export interface TouchOptions {
	/** Give every touched record the same updated_at (a burst in one microsecond). */
	sameTimestamp?: boolean;
	/** Explicit updated_at; implies the same timestamp for all. */
	timestamp?: string;
	/** Field changes applied with the touch. */
	changes?: JsonObject;
}

export interface FileTransferOptions {
	/** GETs that still answer `pending` before the transfer is delivered (default 2). */
	deliverAfterReads?: number;
	overrides?: JsonObject;
}

export interface ClockState {
	now: string;
	frozen: boolean;
}

export interface SimulatorConfig {
	scanLimit: number;
	tokenTtlSeconds: number;
	requestLogCapacity: number;
}

interface TransferState {
	reads: number;
	deliverAfterReads: number;
}


/** The in-process simulator: data, auth, faults and the control operations of `/__sim`. */
export class Simulator {
	readonly clock: SimClock;
	/** Added to the Date header (ms): its front's clock stepped (an NTP correction) while the clock records are written with did not. */
	dateHeaderStepMs = 0;
	readonly collections: Collections = createCollections();
	readonly auth: AuthService;
	readonly faults: FaultInjector;
	readonly log: RequestLog;
	readonly cursors: CursorCodec;
	scanLimit: number;
	orgId = '';
	/** What employees look like and what the API accepts of them. */
	readonly employeeSchema: EmployeeSchema;
	private readonly generators: Readonly<Record<ResourceName, Generator>>;
	private seed: number;
	private sizes: SeedSizes;
	private mutationRng: Rng;
	private readonly transfers = new Map<string, TransferState>();
	/** The server's choices on the spec's gaps; see variations.ts. */
	variation: ServerVariation;
	private walkSeeds: Rng;

	constructor(options: SimulatorOptions = {}) {
		this.variation = variationOf(options.variation);
		this.walkSeeds = new Rng((options.seed ?? 1) ^ 0x7a1c);
		this.seed = options.seed ?? 1;
		this.sizes = options.sizes ?? {};
		this.scanLimit = options.scanLimit ?? 250;
		this.employeeSchema = EMPLOYEE_SCHEMAS[options.employeeSchema ?? 'standard'];
		this.generators = { ...GENERATORS, employees: this.employeeSchema.generate };
		this.clock = new SimClock(options.clockStart);
		if (options.freezeClock) this.clock.freeze();
		const secrets = new Rng(this.seed ^ 0x5eed);
		this.cursors = new CursorCodec(secrets.hex(32));
		this.auth = new AuthService(secrets.hex(32), this.clock, new Rng(this.seed ^ 0xa17), options.tokenTtlSeconds ?? 3600);
		this.faults = new FaultInjector(new Rng(this.seed ^ 0xfa17));
		this.faults.configure({ applyToProvisioning: options.faultsOnProvisioning ?? true });
		this.log = new RequestLog(options.requestLogCapacity);
		this.mutationRng = new Rng(this.seed ^ 0x3117);
		this.reset();
	}

	/** A fresh uuid for records created through the API. */
	newId(): string {
		return this.mutationRng.uuid();
	}

	get credentials(): SimulatorCredentials {
		return this.auth.credentials;
	}

	// ---- data ----

	/** Re-seeds all data (same seed → same data). Credentials, clock and faults are kept. */
	reset(options: { seed?: number; sizes?: SeedSizes } = {}): Record<ResourceName, number> {
		this.seed = options.seed ?? this.seed;
		this.sizes = options.sizes ?? this.sizes;
		this.orgId = new Rng(this.seed ^ hashString('org')).uuid();
		this.mutationRng = new Rng(this.seed ^ 0x3117);
		this.transfers.clear();
		seedAll(this.collections, { seed: this.seed, sizes: this.sizes, nowMicros: this.clock.nowMicros(), orgId: this.orgId, generators: this.generators });
		this.collections.fileTransfers.all().forEach((t, i) => {
			if (i % 2 === 0) this.deliver(t);
			else this.transfers.set(t.id, { reads: 0, deliverAfterReads: 2 });
		});
		this.conformToVariation();
		return this.counts();
	}

	/** Switches the server's choices (data keeps; fields a switch adds or removes are conformed). */
	setVariation(patch: Partial<ServerVariation>): ServerVariation {
		this.variation = variationOf({ ...this.variation, ...patch });
		this.conformToVariation();
		return this.variation;
	}

	/** A seed for one walk's order of records sharing a value (randomPerWalk). */
	newWalkSeed(): string {
		return this.walkSeeds.hex(4);
	}

	/** Fields that exist only on some servers, added to (or removed from) the records: see conformRecords. */
	conformToVariation(records?: { resource: ResourceName; ids: readonly string[] }): void {
		conformRecords(this.collections, this.variation, this.employeeSchema.list.fields, records);
	}

	counts(): Record<ResourceName, number> {
		const entries = RESOURCE_NAMES.map((name) => [name, this.collections[name].size] as const);
		return Object.fromEntries(entries) as Record<ResourceName, number>;
	}

	/** Creates `count` generated records now (or at `options.timestamp`). */
	createRecords(resource: ResourceName, count: number, options: CreateOptions = {}): SimRecord[] {
		const collection = this.collections[resource];
		const ctx = { rng: this.mutationRng, orgId: this.orgId, today: this.clock.today(), refs: refsOf(this.collections) };
		const created: SimRecord[] = [];
		for (let i = 0; i < count; i++) {
			const at = options.timestamp ?? this.clock.now();
			const generated = this.generators[resource](ctx, this.mutationRng.uuid(), collection.nextIndex, { inserted_at: at, updated_at: at });
			const record: SimRecord = { ...generated, ...options.overrides, id: generated.id };
			collection.insert(record, options.restricted);
			if (resource === 'fileTransfers') this.transfers.set(record.id, { reads: 0, deliverAfterReads: 2 });
			created.push(record);
		}
		this.conformToVariation({ resource, ids: created.map((record) => record.id) });
		return this.getRecords(resource, created.map((record) => record.id));
	}

	/**
	 * Creates records that are hidden from the API until revealRecords: they carry a past
	 * timestamp, as when the service's replication lags, so a trigger needs a look-back window.
	 */
	createLateRecords(resource: ResourceName, count: number, timestamp: string, options: Omit<CreateOptions, 'timestamp'> = {}): SimRecord[] {
		parseTimestampMicros(timestamp);
		const records = this.createRecords(resource, count, { ...options, timestamp });
		const collection = this.collections[resource];
		for (const r of records) collection.hidden.add(r.id);
		collection.changed();
		return records;
	}

	/** Makes hidden records visible (all of the resource when `ids` is omitted); returns their ids. */
	revealRecords(resource: ResourceName, ids?: readonly string[]): string[] {
		const collection = this.collections[resource];
		const revealed = (ids ?? [...collection.hidden]).filter((id) => collection.hidden.delete(id));
		collection.changed();
		return revealed;
	}

	/** Sets updated_at (and optional changes) of records; unknown ids are an error. */
	touchRecords(resource: ResourceName, ids: readonly string[], options: TouchOptions = {}): SimRecord[] {
		if (resource === 'timeReports' && this.variation.timeReportUpdatedAt === 'absent') {
			throw new Error('timeReports have no updated_at on this server (variation timeReportUpdatedAt=absent); create new records instead');
		}
		const collection = this.collections[resource];
		const shared = options.timestamp ?? (options.sameTimestamp ? this.clock.now() : undefined);
		if (options.timestamp) parseTimestampMicros(options.timestamp);
		return ids.map((id) => {
			const existing = collection.get(id);
			if (!existing) throw new Error(`no ${resource} record ${id}`);
			const updated: SimRecord = { ...existing, ...options.changes, id, updated_at: shared ?? this.clock.now() };
			collection.replace(updated);
			return updated;
		});
	}

	/** Marks records deleted as the service does for organizational units: deleted_at and updated_at set to one time. */
	softDeleteRecords(resource: ResourceName, ids: readonly string[]): SimRecord[] {
		const at = this.clock.now();
		return this.touchRecords(resource, ids, { timestamp: at, changes: { deleted_at: at } });
	}

	deleteRecords(resource: ResourceName, ids: readonly string[]): number {
		const collection = this.collections[resource];
		return ids.filter((id) => collection.remove(id)).length;
	}

	/** Raw records (including hidden ones); all of the resource when `ids` is omitted. */
	getRecords(resource: ResourceName, ids?: readonly string[]): SimRecord[] {
		const collection = this.collections[resource];
		if (!ids) return [...collection.all()];
		return ids.map((id) => collection.get(id)).filter((r): r is SimRecord => r !== undefined);
	}

	/** Ids the limited role may not see, per resource. */
	restrictedIds(): Record<ResourceName, string[]> {
		const entries = RESOURCE_NAMES.map((name) => [name, [...this.collections[name].restricted].sort()] as const);
		return Object.fromEntries(entries) as Record<ResourceName, string[]>;
	}

	hiddenIds(): Record<ResourceName, string[]> {
		const entries = RESOURCE_NAMES.map((name) => [name, [...this.collections[name].hidden].sort()] as const);
		return Object.fromEntries(entries) as Record<ResourceName, string[]>;
	}

	/** Id of a seeded condition by name (see CONDITION_NAMES). */
	conditionId(name: string): string {
		const found = this.collections.conditions.all().find((c) => c.name === name);
		if (!found) throw new Error(`no condition named ${name}`);
		return found.id;
	}

	conditionIds(): Record<keyof typeof CONDITION_NAMES, string> {
		const entries = Object.entries(CONDITION_NAMES).map(([key, name]) => [key, this.conditionId(name)] as const);
		return Object.fromEntries(entries) as Record<keyof typeof CONDITION_NAMES, string>;
	}

	// ---- file transfers ----

	createFileTransfer(options: FileTransferOptions = {}): SimRecord {
		const [record] = this.createRecords('fileTransfers', 1, { overrides: options.overrides, restricted: false });
		this.transfers.set(record.id, { reads: 0, deliverAfterReads: options.deliverAfterReads ?? 2 });
		return record;
	}

	/** Counts one API read; after `deliverAfterReads` pending reads the target "accepts" the file. */
	readFileTransfer(id: string): SimRecord | undefined {
		const record = this.collections.fileTransfers.get(id);
		const state = this.transfers.get(id);
		if (!record || !state || record.status !== 'pending') return record;
		state.reads++;
		return state.reads > state.deliverAfterReads ? this.deliver(record) : record;
	}

	private deliver(record: SimRecord): SimRecord {
		const now = this.clock.now();
		const delivered: SimRecord = {
			...record,
			status: 'delivered',
			remote_id: `DOC-${this.mutationRng.hex(6).toUpperCase()}`,
			delivered_at: now,
			bytes_retain_until: now,
			updated_at: now,
		};
		this.collections.fileTransfers.replace(delivered);
		this.transfers.delete(record.id);
		return delivered;
	}

	// ---- config and clock ----

	getConfig(): SimulatorConfig {
		return { scanLimit: this.scanLimit, tokenTtlSeconds: this.auth.tokenTtlSeconds, requestLogCapacity: this.log.capacity };
	}

	setConfig(patch: Partial<SimulatorConfig>): SimulatorConfig {
		if (patch.scanLimit !== undefined) this.setScanLimit(patch.scanLimit);
		if (patch.tokenTtlSeconds !== undefined) this.setTokenTtl(patch.tokenTtlSeconds);
		if (patch.requestLogCapacity !== undefined) this.log.capacity = Math.max(1, Math.floor(patch.requestLogCapacity));
		return this.getConfig();
	}

	setScanLimit(limit: number): void {
		if (!Number.isInteger(limit) || limit < 1) throw new Error('scanLimit must be a positive integer');
		this.scanLimit = limit;
	}

	setTokenTtl(seconds: number): void {
		if (!Number.isFinite(seconds) || seconds < 1) throw new Error('tokenTtlSeconds must be at least 1');
		this.auth.tokenTtlSeconds = Math.floor(seconds);
	}

	clockState(): ClockState {
		return { now: this.clock.now(), frozen: this.clock.isFrozen() };
	}

	setClock(timestamp: string): ClockState {
		this.clock.set(timestamp);
		return this.clockState();
	}

	advanceClock(seconds: number): ClockState {
		this.clock.advance(seconds * 1_000_000);
		return this.clockState();
	}

	freezeClock(timestamp?: string): ClockState {
		this.clock.freeze(timestamp);
		return this.clockState();
	}

	unfreezeClock(): ClockState {
		this.clock.unfreeze();
		return this.clockState();
	}

	// ---- faults, log, tokens ----

	getFaults(): { config: FaultConfig; queue: QueuedFault[] } {
		return { config: { ...this.faults.config }, queue: this.faults.queue.map((f) => ({ ...f })) };
	}

	setFaults(patch: Partial<FaultConfig>): FaultConfig {
		return this.faults.configure(patch);
	}

	queueFault(fault: QueuedFault): void {
		this.faults.enqueue(fault);
	}

	clearFaults(): void {
		this.faults.clear();
	}

	requests(limit?: number): RequestLogEntry[] {
		return this.log.list(limit);
	}

	clearRequests(): void {
		this.log.clear();
	}

	stats(): SimulatorStats {
		return structuredClone(this.log.stats);
	}

	resetStats(): void {
		this.log.resetStats();
	}

	revokeTokens(): void {
		this.auth.revokeAll();
	}

	issueToken(role: Role = 'admin'): string {
		return this.auth.issueFor(role);
	}
}
