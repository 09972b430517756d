/**
 * Personnel Data Trigger across n8n restarts (docs/trigger.md: Restarts). By default a restart
 * repeats nothing, as n8n's own polling triggers do. With Options → On Restart: Send the Last Poll
 * Again, a poll in a new process sends the last poll's changes again, marked
 * `_event.possiblyRepeated`, however long the restart took; every item carries `_event.key`, the
 * same for the same change.
 */
import type { INodeParameters } from 'n8n-workflow';

import { forgetProcess } from '../../../nodes/PersonnelDataTrigger/pollLease';
import { useTestBed } from '../setup';
import type { EmittedRecord } from './helpers';
import { activateTrigger, changePairs, emittedPairs } from './helpers';

const EMPLOYEES: INodeParameters = { resource: 'employee', event: 'createdOrUpdated', simplify: false };
const AT_LEAST_ONCE: INodeParameters = { ...EMPLOYEES, options: { onRestart: 'sendAgain' } };
const marked = (records: readonly EmittedRecord[]) => records.filter((record) => (record._event as { possiblyRepeated?: boolean }).possiblyRepeated === true);
const keyOf = (record: EmittedRecord) => (record._event as { key?: string }).key;

describe('Personnel Data Trigger: restarts', () => {
	const bed = useTestBed({}, { per: 'test' });

	it('by default a restart between polls repeats nothing, and the changes since come once', async () => {
		const { sim } = bed.simulator;
		const { session } = await activateTrigger(bed, EMPLOYEES, { activation: 'activate' });
		sim.createRecords('employees', 3);
		expect((await session.poll()).records).toHaveLength(3);
		forgetProcess();
		const meanwhile = sim.createRecords('employees', 2);
		const restarted = await activateTrigger(bed, EMPLOYEES, { activation: 'init' });
		expect(emittedPairs(restarted.first.records).sort()).toEqual(changePairs(meanwhile).sort());
		expect(marked(restarted.first.records)).toEqual([]);
	});

	it('with Send the Last Poll Again, a new process sends the last poll again, marked, with the same event keys; the later changes unmarked', async () => {
		const { sim } = bed.simulator;
		const { session } = await activateTrigger(bed, AT_LEAST_ONCE, { activation: 'activate' });
		const handedOver = sim.createRecords('employees', 3);
		const sent = (await session.poll()).records;
		expect(emittedPairs(sent).sort()).toEqual(changePairs(handedOver).sort());
		forgetProcess();
		// However long the restart took: the simulator's clock moves on an hour.
		sim.advanceClock(3600);
		const meanwhile = sim.createRecords('employees', 2);
		const restarted = await activateTrigger(bed, AT_LEAST_ONCE, { activation: 'init' });
		const records = restarted.first.records;
		expect(emittedPairs(records).sort()).toEqual(changePairs([...handedOver, ...meanwhile]).sort());
		expect(emittedPairs(marked(records)).sort()).toEqual(changePairs(handedOver).sort());
		expect(marked(records).map(keyOf).sort()).toEqual(sent.map(keyOf).sort());
		// The next poll in this process confirms: nothing more, and nothing marked after.
		expect((await restarted.session.poll()).items).toBeNull();
		const later = sim.createRecords('employees', 1);
		const next = await restarted.session.poll();
		expect(emittedPairs(next.records)).toEqual(changePairs(later));
		expect(marked(next.records)).toEqual([]);
	});

	it('with Send the Last Poll Again, only the last poll n8n stored is sent again: the one before it was confirmed by it', async () => {
		const { sim } = bed.simulator;
		const { session } = await activateTrigger(bed, AT_LEAST_ONCE, { activation: 'activate' });
		sim.createRecords('employees', 3);
		expect((await session.poll()).records).toHaveLength(3);
		const last = sim.createRecords('employees', 1);
		expect(emittedPairs((await session.poll()).records)).toEqual(changePairs(last));
		forgetProcess();
		const restarted = await activateTrigger(bed, AT_LEAST_ONCE, { activation: 'init' });
		expect(emittedPairs(restarted.first.records)).toEqual(changePairs(last));
		expect(marked(restarted.first.records)).toHaveLength(1);
	});

	it('every item carries an event key: distinct per change, a new one when the record changes again', async () => {
		const { sim } = bed.simulator;
		const { session } = await activateTrigger(bed, EMPLOYEES, { activation: 'activate' });
		const [record] = sim.createRecords('employees', 1);
		const first = (await session.poll()).records;
		sim.touchRecords('employees', [record.id]);
		const second = (await session.poll()).records;
		expect(first).toHaveLength(1);
		expect(second).toHaveLength(1);
		expect(keyOf(first[0])).toMatch(/^[A-Za-z0-9_-]{16}\d{4}-\d{2}-\d{2}T/);
		expect(keyOf(second[0])).not.toBe(keyOf(first[0]));
	});
});
