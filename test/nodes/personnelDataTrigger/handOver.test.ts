/**
 * Personnel Data Trigger, the hand-over on n8n's default scheduler (handOver.ts): n8n stopped
 * between saving the trigger's new position and storing the execution keeps the position without
 * the changes. A poll in a new process soon after a hand-over sends that poll's changes again,
 * marked `_event.possiblyRepeated`; one in the process that handed them over, or long after, does
 * not. The durable scheduler keeps no mark.
 */
import type { INodeParameters } from 'n8n-workflow';

import type { ChangeState } from '../../../nodes/PersonnelDataTrigger/changeState';
import { HAND_OVER_WINDOW_MS, positionOf, resolveHandOver } from '../../../nodes/PersonnelDataTrigger/handOver';
import { forgetProcess } from '../../../nodes/PersonnelDataTrigger/pollLease';
import { useTestBed } from '../setup';
import type { EmittedRecord } from './helpers';
import { activateTrigger, changePairs, emittedPairs, stateOf } from './helpers';

const EMPLOYEES: INodeParameters = { resource: 'employee', event: 'createdOrUpdated', simplify: false };
const marked = (records: readonly EmittedRecord[]) => records.filter((record) => (record._event as { possiblyRepeated?: boolean }).possiblyRepeated === true);

describe('Personnel Data Trigger: n8n stopped at a hand-over', () => {
	const bed = useTestBed({}, { per: 'test' });

	it('a new n8n process right after a hand-over sends that poll’s changes again, marked, and the later ones unmarked', async () => {
		const { sim } = bed.simulator;
		const { session } = await activateTrigger(bed, EMPLOYEES, { activation: 'activate' });
		const handedOver = sim.createRecords('employees', 3);
		// n8n saved the position with this poll (the harness saves static data when a poll emits), then stopped:
		// the execution holding these items is taken to be lost.
		expect(emittedPairs((await session.poll()).records).sort()).toEqual(changePairs(handedOver).sort());
		expect((stateOf(bed).changes as ChangeState).handOver).not.toBeNull();
		forgetProcess();
		const meanwhile = sim.createRecords('employees', 2);
		const restarted = await activateTrigger(bed, EMPLOYEES, { activation: 'init' });
		const records = restarted.first.records;
		expect(emittedPairs(records).sort()).toEqual(changePairs([...handedOver, ...meanwhile]).sort());
		expect(emittedPairs(marked(records)).sort()).toEqual(changePairs(handedOver).sort());
		// The next poll in this process confirms: nothing more, and no mark left once it has sent again.
		expect((await restarted.session.poll()).items).toBeNull();
		const later = sim.createRecords('employees', 1);
		const next = await restarted.session.poll();
		expect(emittedPairs(next.records)).toEqual(changePairs(later));
		expect(marked(next.records)).toEqual([]);
	});

	it('a restart in the process that handed the changes over (the execution was started) sends nothing again', async () => {
		const { sim } = bed.simulator;
		const { session } = await activateTrigger(bed, EMPLOYEES, { activation: 'activate' });
		sim.createRecords('employees', 3);
		expect((await session.poll()).records).toHaveLength(3);
		const meanwhile = sim.createRecords('employees', 2);
		const restarted = await activateTrigger(bed, EMPLOYEES, { activation: 'init' });
		expect(emittedPairs(restarted.first.records).sort()).toEqual(changePairs(meanwhile).sort());
		expect(marked(restarted.first.records)).toEqual([]);
	});

	it('a mark older than the window is dropped without sending again; a fresh one restores the earlier position', () => {
		const before = { watermark: 'T1', idsAtWatermark: ['a'], knownAtWatermark: 1, countAtWatermark: 1, resume: null, groupCheck: null } as unknown as ChangeState;
		const handOver = positionOf(before, 1_000_000);
		const stored = { ...before, watermark: 'T2', idsAtWatermark: ['b', 'c'], knownAtWatermark: 2, handOver } as ChangeState;
		expect(resolveHandOver(stored, false, 1_000_000 + HAND_OVER_WINDOW_MS + 1)).toEqual({ state: { ...stored, handOver: null }, repeatedUpTo: null });
		expect(resolveHandOver(stored, true, 1_000_000)).toEqual({ state: { ...stored, handOver: null }, repeatedUpTo: null });
		const fresh = resolveHandOver(stored, false, 1_000_000 + 30_000);
		expect(fresh.repeatedUpTo).toBe('T2');
		expect(fresh.state).toMatchObject({ watermark: 'T1', idsAtWatermark: ['a'], knownAtWatermark: 1, handOver: null });
	});

	it('on the durable scheduler no mark is kept (n8n commits the position with the execution)', async () => {
		const { sim } = bed.simulator;
		const poll = () => bed.runtime.scheduledPoll({ nodeType: 'personnelDataTrigger', parameters: EMPLOYEES, timeoutMs: 45_000, durableCursors: true });
		await poll();
		sim.createRecords('employees', 3);
		const result = await poll();
		expect(result.items?.[0]).toHaveLength(3);
		expect((result.staticData.changes as ChangeState).handOver).toBeNull();
	});
});
