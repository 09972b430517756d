import { PersonnelDataApi } from '../../credentials/PersonnelDataApi.credentials';
import { PersonnelData } from '../../nodes/PersonnelData/PersonnelData.node';
import { PersonnelDataTrigger } from '../../nodes/PersonnelDataTrigger/PersonnelDataTrigger.node';
import { NodeRuntime } from '../harness';
import type { RunningSimulator, StartOptions } from '../simulator/server';
import { startSimulator } from '../simulator/server';

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
		environment: 'custom',
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
	return bed;
}
