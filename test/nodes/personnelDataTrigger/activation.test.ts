/**
 * What the trigger does on activation, deactivation, republishing, renaming, changed filters and
 * an n8n restart: each test proves one sentence of the README ("How the trigger works"). A
 * session is one activation as n8n runs it (static data saved after the activation poll and
 * whenever a poll emits); a new session starts from what was saved.
 */
import type { INodeParameters } from 'n8n-workflow';

import { useTestBed } from '../setup';
import { SETTLE_DEFAULT_MS } from '../../../nodes/PersonnelDataTrigger/feedState';
import { activateTrigger, changePairs, emittedPairs, lastSeq, listRequestsSince, poll, pollOk, stateOf } from './helpers';

const EMPLOYEES: INodeParameters = { resource: 'employee', event: 'createdOrUpdated', simplify: false };
const START_FROM_NOW: INodeParameters = { ...EMPLOYEES, options: { onActivation: 'startFromNow' } };
const locator = (id: string) => ({ __rl: true, mode: 'id', value: id });

describe('Personnel Data Trigger: activation, deactivation, republishing, restarts', () => {
	const bed = useTestBed({}, { per: 'test' });

	it('a backfill (On Activation → Start From a Date) is read once: the poll after it reads only what its last settle window holds', async () => {
		const { sim } = bed.simulator;
		const startDate = sim.clockState().now;
		sim.advanceClock(60);
		// 1,000 changes over 50 minutes, then an hour of quiet: the backfill's first page holds its oldest.
		const since = [];
		for (let batch = 0; batch < 10; batch++) {
			since.push(...sim.createRecords('employees', 100));
			sim.advanceClock(300);
		}
		sim.advanceClock(3_600);
		const backfill: INodeParameters = { ...EMPLOYEES, options: { onActivation: 'startFromDate', startDate } };
		const sent = emittedPairs((await pollOk(bed, backfill)).records);
		expect(sent.sort()).toEqual(changePairs(since).sort());
		const newest = Math.max(...since.map((record) => Date.parse(String(record.updated_at))));
		const inLastWindow = since.filter((record) => Date.parse(String(record.updated_at)) >= newest - SETTLE_DEFAULT_MS).length;
		const from = lastSeq(sim);
		expect((await pollOk(bed, backfill)).items).toBeNull();
		expect(listRequestsSince(sim, from).length).toBeLessThanOrEqual(Math.ceil(inLastWindow / 100) + 1);
		expect(inLastWindow).toBeLessThan(since.length / 2);
	});

	it('first activation: nothing that already exists is sent', async () => {
		const { first, session } = await activateTrigger(bed, EMPLOYEES);
		expect(first.items).toBeNull();
		expect((await session.poll()).items).toBeNull();
	});

	it('deactivated, then activated again: the changes made while it was off are sent at activation, once', async () => {
		const { sim } = bed.simulator;
		const { session } = await activateTrigger(bed, EMPLOYEES);
		const seen = sim.createRecords('employees', 3);
		expect(emittedPairs((await session.poll()).records).sort()).toEqual(changePairs(seen).sort());
		// Off: nothing polls. Twenty records change meanwhile.
		const whileOff = sim.touchRecords('employees', sim.getRecords('employees').slice(0, 20).map((r) => r.id));
		const again = await activateTrigger(bed, EMPLOYEES, { activation: 'activate' });
		expect(emittedPairs(again.first.records).sort()).toEqual(changePairs(whileOff).sort());
		expect((await again.session.poll()).items).toBeNull();
	});

	it('On Activation › Start From Now: what changed while it was off is skipped; later changes are sent', async () => {
		const { sim } = bed.simulator;
		const { session } = await activateTrigger(bed, START_FROM_NOW);
		const seen = sim.createRecords('employees', 2);
		expect(emittedPairs((await session.poll()).records).sort()).toEqual(changePairs(seen).sort());
		sim.createRecords('employees', 5);
		const again = await activateTrigger(bed, START_FROM_NOW, { activation: 'activate' });
		expect(again.first.items).toBeNull();
		// Its later polls are ordinary polls of the same activation.
		const later = sim.createRecords('employees', 2);
		expect(emittedPairs((await again.session.poll()).records).sort()).toEqual(changePairs(later).sort());
		expect((await again.session.poll()).items).toBeNull();
	});

	it('republished after an edit: resumes (Start From Now skips instead)', async () => {
		const { sim } = bed.simulator;
		await activateTrigger(bed, EMPLOYEES);
		const duringEdit = sim.createRecords('employees', 4);
		const republished = await activateTrigger(bed, EMPLOYEES, { activation: 'update' });
		expect(emittedPairs(republished.first.records).sort()).toEqual(changePairs(duringEdit).sort());

		// Fields to Return, Simplify and Poll Times changed: the same feed goes on (nothing sent again).
		const state = stateOf(bed).changes as { stream: string; feed: { clock: unknown } };
		const edited = { ...EMPLOYEES, simplify: true, options: { select: ['first_name'] }, pollTimes: { item: [{ mode: 'everyHour', minute: 5 }] } };
		const quiet = await activateTrigger(bed, edited, { activation: 'update' });
		expect(quiet.first.items).toBeNull();
		expect(stateOf(bed).changes).toMatchObject({ stream: state.stream, feed: { clock: state.feed.clock } });
		const next = sim.createRecords('employees', 1);
		expect((await quiet.session.poll()).records.map((r) => r.id)).toEqual(next.map((r) => r.id));

		sim.createRecords('employees', 3);
		const skipping = await activateTrigger(bed, START_FROM_NOW, { activation: 'update' });
		expect(skipping.first.items).toBeNull();
	});

	it('changed filters or condition: resumes from the last change seen, sending what matches now', async () => {
		const { sim } = bed.simulator;
		const { session } = await activateTrigger(bed, EMPLOYEES);
		await session.poll();
		const matching = sim.createRecords('employees', 3, { overrides: { last_name: 'Filterson' } });
		sim.createRecords('employees', 3, { overrides: { last_name: 'Otherson' } });
		const filtered: INodeParameters = { ...EMPLOYEES, filters: { filter: [{ field: 'last_name', operator: 'eq', value: 'Filterson' }] } };
		const republished = await activateTrigger(bed, filtered, { activation: 'update' });
		expect(emittedPairs(republished.first.records).sort()).toEqual(changePairs(matching).sort());
		expect((await republished.session.poll()).items).toBeNull();

		const conditionId = sim.conditionId('One in a hundred');
		const withCondition = await activateTrigger(bed, { ...EMPLOYEES, condition: locator(conditionId) }, { activation: 'update' });
		expect(withCondition.first.items).toBeNull();
	});

	it('another resource or event: starts afresh from the newest change (nothing old is sent)', async () => {
		const { sim } = bed.simulator;
		await activateTrigger(bed, EMPLOYEES);
		sim.createRecords('employees', 3);
		const created = await activateTrigger(bed, { ...EMPLOYEES, event: 'created' }, { activation: 'update' });
		expect(created.first.items).toBeNull();
		expect((await created.session.poll()).items).toBeNull();
		const units = await activateTrigger(bed, { resource: 'organizationalUnit', event: 'createdOrUpdated' }, { activation: 'update' });
		expect(units.first.items).toBeNull();
	});

	it('renamed node: starts afresh (n8n keeps static data by node name)', async () => {
		const { sim } = bed.simulator;
		await activateTrigger(bed, EMPLOYEES);
		sim.createRecords('employees', 3);
		const renamed = await activateTrigger(bed, EMPLOYEES, { activation: 'update', nodeName: 'New employees' });
		expect(renamed.first.items).toBeNull();
		const later = sim.createRecords('employees', 1);
		expect(emittedPairs((await renamed.session.poll()).records)).toEqual(changePairs(later));
	});

	it('n8n restarted between two polls: no change lost, none repeated (also with Start From Now)', async () => {
		const { sim } = bed.simulator;
		for (const parameters of [EMPLOYEES, START_FROM_NOW]) {
			const { session } = await activateTrigger(bed, parameters, { activation: 'activate' });
			const sent = sim.createRecords('employees', 3);
			expect(emittedPairs((await session.poll()).records).sort()).toEqual(changePairs(sent).sort());
			// An idle poll: n8n saves nothing after it.
			expect((await session.poll()).items).toBeNull();
			const duringRestart = sim.createRecords('employees', 2);
			const restarted = await activateTrigger(bed, parameters, { activation: 'init' });
			expect(emittedPairs(restarted.first.records).sort()).toEqual(changePairs(duringRestart).sort());
			expect((await restarted.session.poll()).items).toBeNull();
		}
	});

	it('a state stored by the previous version of the node is resumed, not restarted', async () => {
		const { sim } = bed.simulator;
		await pollOk(bed, EMPLOYEES);
		const v2 = stateOf(bed).changes as { watermark: string; idsAtWatermark: string[] };
		bed.runtime.setStaticData('Personnel Data Trigger', {
			changes: {
				configKey: JSON.stringify({ resource: 'employee', field: 'updated_at', watched: {}, lookbackMinutes: 0 }),
				watermark: v2.watermark,
				idsAtWatermark: v2.idsAtWatermark,
				recent: [],
			},
		});
		const created = sim.createRecords('employees', 2);
		expect(emittedPairs((await pollOk(bed, EMPLOYEES)).records).sort()).toEqual(changePairs(created).sort());
		expect(stateOf(bed).changes).toMatchObject({ version: 4, stream: 'employee:updated_at', watch: null });
	});

	it.each([
		['of another domain', 'Teams', /Condition refused by the Personnel Data API: .*domain.*domain_mismatch/],
		['of another organization', null, /Condition refused by the Personnel Data API: .*does not exist in this organization.*unknown_condition/],
	])('a condition %s fails activation with the API\'s reason in the headline', async (_, name, headline) => {
		const { sim } = bed.simulator;
		const conditionId = name === null ? '00000000-0000-4000-8000-000000000000' : sim.conditionId(name);
		const { first } = await activateTrigger(bed, { ...EMPLOYEES, condition: locator(conditionId) });
		expect(first.error?.message).toMatch(headline);
		expect(stateOf(bed)).toEqual({});
		// Fetch Test Event shows the same refusal.
		expect((await poll(bed, { ...EMPLOYEES, condition: locator(conditionId) }, 'manual')).error).toBeDefined();
	});
});
