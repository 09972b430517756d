import { PersonnelDataApi } from '../../credentials/PersonnelDataApi.credentials';
import { PersonnelData } from '../../nodes/PersonnelData/PersonnelData.node';
import { PersonnelDataTrigger } from '../../nodes/PersonnelDataTrigger/PersonnelDataTrigger.node';
import { NodeRuntime } from '../../scripts/harness';
import { expectNoSecrets } from '../helpers/secrets';
import type { SimulatorConfig } from '../../scripts/simulator/simulator';
import type { RunningSimulator, StartOptions } from '../../scripts/simulator/server';
import { startSimulator } from '../../scripts/simulator/server';

export interface TestBed {
	simulator: RunningSimulator;
	runtime: NodeRuntime;
}

export type Role = 'admin' | 'limited';
export type AuthMode = 'refreshToken' | 'legacyToken';

/** Stores a credential for the simulator, the way a user fills in the credential form. */
export function useCredential(bed: TestBed, role: Role = 'admin', authMode: AuthMode = 'refreshToken'): void {
	const credentials = bed.simulator.credentials[role];
	bed.runtime.setCredentials('personnelDataApi', {
		baseUrl: bed.simulator.baseUrl,
		authMode,
		jti: credentials.jti,
		refreshToken: credentials.refreshToken,
		legacyToken: credentials.legacyToken,
	});
}

/** A simulator on 127.0.0.1 and n8n's runtime with this package's nodes and credential. */
export async function startTestBed(options: StartOptions = {}): Promise<TestBed> {
	// The simulator's clock starts at the real time: the transport compares a token's `exp` (set by
	// the simulator's clock) with this machine's clock, so a fixed past date would make every token
	// look expired.
	const simulator = await startSimulator({ clockStart: new Date().toISOString(), ...options });
	const runtime = new NodeRuntime({
		nodeTypes: [new PersonnelData(), new PersonnelDataTrigger()],
		credentialTypes: [new PersonnelDataApi()],
	});
	const bed = { simulator, runtime };
	useCredential(bed);
	watchForSecrets(bed);
	return bed;
}

/** A test bed that `useTestBed` starts and stops; read it only inside tests and hooks. */
export interface TestBedAccessor extends TestBed {
	/** Closes the current bed (checking it for secrets) and starts a new one with these options. */
	restart(options?: StartOptions): Promise<void>;
}

export interface UseTestBedOptions {
	/**
	 * `file` (default): one bed for the enclosing describe block; after each test its faults are
	 * cleared and its configuration (scan limit, token lifetime) and admin credential restored.
	 * `test`: a fresh bed for each test.
	 */
	per?: 'file' | 'test';
}

/**
 * Registers the hooks that start a test bed before the tests and close it after them (closing checks
 * that no secret leaked), and returns the bed: its `simulator` and `runtime` are the current bed's.
 */
export function useTestBed(options: StartOptions = {}, { per = 'file' }: UseTestBedOptions = {}): TestBedAccessor {
	let current: TestBed | undefined;
	let startConfig: SimulatorConfig | undefined;
	const bed = (): TestBed => {
		if (current === undefined) throw new Error('The test bed is read outside a test: useTestBed() starts it in a before hook');
		return current;
	};
	const start = async (startOptions: StartOptions): Promise<void> => {
		current = await startTestBed(startOptions);
		startConfig = current.simulator.sim.getConfig();
	};
	const stop = async (): Promise<void> => {
		const closing = current;
		current = undefined;
		await closing?.simulator.close();
	};
	if (per === 'test') {
		beforeEach(async () => await start(options));
		afterEach(stop);
	} else {
		beforeAll(async () => await start(options));
		afterAll(stop);
		afterEach(() => {
			const shared = bed();
			shared.simulator.sim.clearFaults();
			shared.simulator.sim.setConfig({ ...startConfig });
			useCredential(shared, 'admin');
		});
	}
	return {
		get simulator() {
			return bed().simulator;
		},
		get runtime() {
			return bed().runtime;
		},
		restart: async (restartOptions: StartOptions = {}) => {
			await stop();
			await start(restartOptions);
		},
	};
}

interface SaltStore {
	salts: Map<string, Array<{ value: string }>>;
	usedSalts: Map<string, Set<string>>;
}

/**
 * Every secret the bed has seen: refresh and legacy tokens of both roles, every access token n8n
 * stored, every signature sent (from the request log) and every salt handed out (read from the
 * simulator's private salt store: the salts are not in the request log, which records requests only).
 */
export function secretsOf(bed: TestBed): string[] {
	const { admin, limited } = bed.simulator.credentials;
	const secrets = [admin.refreshToken, admin.legacyToken, limited.refreshToken, limited.legacyToken];
	for (const update of bed.runtime.credentialUpdates('personnelDataApi')) secrets.push(String(update.accessToken ?? ''));
	const stored = bed.runtime.storedCredentials('personnelDataApi');
	if (stored) secrets.push(String(stored.accessToken ?? ''), String(stored.refreshToken ?? ''));
	for (const entry of bed.simulator.sim.requests()) {
		const body = entry.body as { signature?: unknown } | undefined;
		if (typeof body?.signature === 'string') secrets.push(body.signature);
	}
	const store = bed.simulator.sim.auth as unknown as SaltStore;
	for (const live of store.salts.values()) for (const salt of live) secrets.push(salt.value);
	for (const used of store.usedSalts.values()) for (const salt of used) secrets.push(salt);
	return secrets.filter((secret) => secret !== '');
}

/**
 * Every suite that uses a test bed checks, mechanically, that no secret reached what a user or a
 * log can see: everything the runtime returned (items, errors, list search results, credential test
 * results) and every log line is scanned when the simulator is closed (each suite's afterAll).
 */
function watchForSecrets(bed: TestBed): void {
	const seen: unknown[] = [];
	const { runtime, simulator } = bed;
	const record = <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
		async (...args: A): Promise<R> => {
			try {
				const result = await call(...args);
				seen.push(result);
				return result;
			} catch (error) {
				seen.push(error);
				throw error;
			}
		};
	runtime.execute = record(runtime.execute.bind(runtime));
	runtime.poll = record(runtime.poll.bind(runtime));
	runtime.listSearch = record(runtime.listSearch.bind(runtime));
	runtime.loadOptions = record(runtime.loadOptions.bind(runtime));
	runtime.testCredential = record(runtime.testCredential.bind(runtime));
	const close = simulator.close.bind(simulator);
	simulator.close = async () => {
		try {
			expectNoSecrets([seen, runtime.logs], secretsOf(bed));
		} finally {
			await close();
		}
	};
}
