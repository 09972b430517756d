import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { backoffTiming } from '../../nodes/shared/transport/retryPolicy';
import type { TestBed } from '../nodes/setup';
import type { RequestLogEntry } from '../../scripts/simulator/requestLog';

export const CREDENTIAL = 'personnelDataApi';

/**
 * Exhausting 5 attempts with production backoff (0.5 s doubling) takes seconds; the tests shrink
 * the backoff through the transport's explicit hook. Retry-After is still honoured as sent.
 */
export function fastBackoff(): void {
	const saved = { ...backoffTiming };
	beforeAll(() => {
		backoffTiming.baseMs = 10;
		backoffTiming.maxMs = 40;
	});
	afterAll(() => Object.assign(backoffTiming, saved));
}

export const getManyEmployees = (extra: INodeParameters = {}): INodeParameters => ({
	resource: 'employee',
	operation: 'getMany',
	returnAll: false,
	limit: 3,
	...extra,
});

export const getEmployee = (id: string, options: INodeParameters = {}): INodeParameters => ({
	resource: 'employee',
	operation: 'get',
	id: { __rl: true, mode: 'id', value: id },
	options,
});

export function apiRequests(bed: TestBed): RequestLogEntry[] {
	return bed.simulator.sim.requests().filter((entry) => !entry.path.startsWith('/provisioning'));
}

/** Provisioning calls, faulted ones included (the simulator's stats count routed calls only). */
export function provisioningCalls(bed: TestBed): number {
	return bed.simulator.sim.requests().filter((entry) => entry.path.startsWith('/provisioning')).length;
}

export function jsonOf(items: INodeExecutionData[][] | undefined): Array<Record<string, unknown>> {
	return (items?.[0] ?? []).map((item) => item.json);
}

export { secretsOf } from '../nodes/setup';
