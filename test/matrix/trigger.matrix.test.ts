/**
 * The trigger's contract on every sampled server profile: a first activation sends nothing that
 * already exists, each change is sent once (bursts in one timestamp, Max Changes per Poll, Watch
 * Fields), Deleted sends deletions only; an event the server cannot support fails with a clear error.
 */
import type { INodeParameters } from 'n8n-workflow';

import { evaluateRule } from '../../scripts/simulator/conditions';
import { emptyPlacement } from '../../scripts/simulator/variedAnswers';
import { useTestBed } from '../nodes/setup';
import { activateTrigger, poll } from '../nodes/personnelDataTrigger/helpers';
import { profilesFor, sameIds } from './profiles';

const PROFILES = profilesFor('trigger', [
	'emptyValuesSort', 'totalCount', 'timestampPrecision', 'timestampOffset', 'maxPageSize', 'sameValueOrder',
	'uuidCase', 'unknownFields', 'emptyOptionalFields', 'listParameters', 'inOperator', 'employeeDeletedAt', 'timeReportUpdatedAt', 'dateHeader',
], 8);

const params = (resource: string, event: string, options: INodeParameters = {}): INodeParameters => ({ resource, event, simplify: false, options });

describe.each(PROFILES)('Trigger against server profile $name', ({ variation }) => {
	const bed = useTestBed({ variation, sizes: { employees: 120, orgUnits: 60, timeReports: 80 } }, { per: 'test' });
	const deletedAtUsable = variation.listParameters === 'asRegistry';

	it('Deleted (organizational units): the first activation sends nothing, then each deletion once', async () => {
		const { sim } = bed.simulator;
		const running = bed.runtime.activatePolling({ nodeType: 'personnelDataTrigger', parameters: params('organizationalUnit', 'deleted') });
		const first = await running.poll();
		if (!deletedAtUsable) {
			expect(first.error?.message).toMatch(/deleted_at/);
			expect(first.error?.message).toMatch(/server/i);
			return;
		}
		expect(first.error).toBeUndefined();
		expect(first.items ?? null).toBeNull();
		const second = await running.poll();
		expect(second.items ?? null).toBeNull();
		const live = sim.getRecords('orgUnits').filter((unit) => unit.deleted_at === null);
		const deleted = sim.softDeleteRecords('orgUnits', [live[0].id, live[1].id]);
		const third = await running.poll();
		expect(sameIds((third.items?.[0] ?? []).map((item) => item.json.id))).toEqual(sameIds(deleted.map((unit) => unit.id)));
		expect((await running.poll()).items ?? null).toBeNull();
	});

	it('Created or Updated (employees), Max Changes per Poll 2: a burst in one timestamp and later changes, each sent once', async () => {
		const { sim } = bed.simulator;
		const { session, first } = await activateTrigger(bed, params('employee', 'createdOrUpdated', { maxChangesPerPoll: 2 }));
		expect(first.error).toBeUndefined();
		expect(first.records).toEqual([]);
		const [a, b, c, d] = sim.getRecords('employees');
		sim.touchRecords('employees', [a.id, b.id, c.id], { sameTimestamp: true, changes: { phone2: '+46 8 111' } });
		sim.advanceClock(0.0004);
		sim.touchRecords('employees', [d.id], { changes: { phone2: '+46 8 222' } });
		const created = sim.createRecords('employees', 1);
		const seen: string[] = [];
		for (let i = 0; i < 6; i++) {
			const result = await session.poll();
			expect(result.error).toBeUndefined();
			expect(result.records.length).toBeLessThanOrEqual(2);
			seen.push(...result.records.map((record) => String(record.id)));
		}
		expect(sameIds(seen)).toEqual(sameIds([a.id, b.id, c.id, d.id, created[0].id]));
	});

	it('Watch Fields: only a change of a watched field is sent, with its previous value', async () => {
		const { sim } = bed.simulator;
		const { session } = await activateTrigger(bed, params('employee', 'createdOrUpdated', { watchFields: ['email'], includePreviousValues: true }));
		const [a, b] = sim.getRecords('employees');
		sim.touchRecords('employees', [a.id], { changes: { email: 'moved@example.com' } });
		sim.touchRecords('employees', [b.id], { changes: { phone2: '+46 8 333' } });
		const result = await session.poll();
		expect(result.error).toBeUndefined();
		expect(sameIds(result.records.map((record) => record.id))).toEqual(sameIds([a.id]));
		expect(result.records[0]._event).toMatchObject({ changedFields: ['email'], previous: { email: a.email } });
	});

	it('Time reports, Created or Updated: offered where the server sends updated_at, refused clearly where not', async () => {
		const { sim } = bed.simulator;
		const parameters = params('timeReport', 'createdOrUpdated', { watchFields: ['time_report_request_status'], includePreviousValues: true });
		const running = bed.runtime.activatePolling({ nodeType: 'personnelDataTrigger', parameters });
		const first = await running.poll();
		if (variation.timeReportUpdatedAt === 'absent') {
			expect(first.error?.message).toMatch(/updated_at/);
			return;
		}
		expect(first.error).toBeUndefined();
		expect(first.items ?? null).toBeNull();
		const [report, other] = sim.getRecords('timeReports');
		sim.touchRecords('timeReports', [report.id], { changes: { time_report_request_status: 'approved_by_test' } });
		sim.touchRecords('timeReports', [other.id], { changes: { comment: 'typo fixed' } });
		const [fresh] = sim.createRecords('timeReports', 1);
		const result = await running.poll();
		const records = (result.items?.[0] ?? []).map((item) => item.json);
		const types = Object.fromEntries(records.map((record) => [String(record.id).toLowerCase(), (record._event as { type: string }).type]));
		expect(types).toEqual({ [report.id]: 'updated', [fresh.id]: 'created' });
		const approved = records.find((record) => String(record.id).toLowerCase() === report.id);
		expect(approved?._event).toMatchObject({ changedFields: ['time_report_request_status'], previous: { time_report_request_status: report.time_report_request_status } });
	});

	it('Employees, Deleted: each employee marked deleted_at once, and Created or Updated labels it "deleted"', async () => {
		const { sim } = bed.simulator;
		const deletedRun = bed.runtime.activatePolling({ nodeType: 'personnelDataTrigger', parameters: params('employee', 'deleted'), nodeName: 'Deleted' });
		const changedRun = bed.runtime.activatePolling({ nodeType: 'personnelDataTrigger', parameters: params('employee', 'createdOrUpdated'), nodeName: 'Changed' });
		const firstDeleted = await deletedRun.poll();
		expect((await changedRun.poll()).error).toBeUndefined();
		if (variation.employeeDeletedAt === 'absent' || !deletedAtUsable) {
			expect(firstDeleted.error?.message).toMatch(/deleted_at/);
			return;
		}
		expect(firstDeleted.error).toBeUndefined();
		expect(firstDeleted.items ?? null).toBeNull();
		const live = sim.getRecords('employees').filter((employee) => employee.deleted_at === null);
		const [gone] = sim.softDeleteRecords('employees', [live[0].id]);
		const deleted = await deletedRun.poll();
		expect(sameIds((deleted.items?.[0] ?? []).map((item) => item.json.id))).toEqual([gone.id]);
		const changed = await changedRun.poll();
		expect((changed.items?.[0] ?? []).map((item) => (item.json._event as { type: string }).type)).toEqual(['deleted']);
	});

	it('Created or Updated with a condition: changes interleaved with polls inside one timestamp, and a restart of n8n, each sent once', async () => {
		const { sim } = bed.simulator;
		const conditionId = sim.conditionIds().north;
		const parameters = { ...params('employee', 'createdOrUpdated'), condition: { __rl: true, mode: 'id', value: conditionId } };
		const { session, first } = await activateTrigger(bed, parameters);
		expect(first.error).toBeUndefined();
		const [condition] = sim.getRecords('conditions', [conditionId]);
		const passes = (id: string) => evaluateRule(condition.data_engine, sim.getRecords('employees', [id])[0], sim.clock.today());
		const employees = sim.getRecords('employees').slice(0, 12).map((record) => record.id);
		const expected: string[] = [];
		const seen: string[] = [];
		// A frozen clock puts every change of a round at one timestamp, the one the last poll stopped at.
		sim.freezeClock();
		for (let round = 0; round < 3; round++) {
			const ids = employees.slice(round * 4, round * 4 + 4);
			for (const id of ids) {
				sim.touchRecords('employees', [id], { changes: { phone1: `+46 70 ${round}` } });
				if (passes(id)) expected.push(id);
				const result = await session.poll();
				expect(result.error).toBeUndefined();
				seen.push(...result.records.map((record) => String(record.id)));
			}
		}
		sim.unfreezeClock();
		expect(expected.length).toBeGreaterThan(0);
		sim.advanceClock(1);
		const [late] = sim.touchRecords('employees', [employees[0]], { changes: { phone1: '+46 70 9' } });
		if (passes(late.id)) expected.push(late.id);
		// n8n restarts: a new activation ('init') resumes from the stored state.
		const restarted = await activateTrigger(bed, parameters, { activation: 'init' });
		expect(restarted.first.error).toBeUndefined();
		seen.push(...restarted.first.records.map((record) => String(record.id)));
		seen.push(...(await restarted.session.poll()).records.map((record) => String(record.id)));
		expect(sameIds(seen)).toEqual(sameIds(expected));
	});

	it('knows where this server sorts empty values (a check of the profile itself)', () => {
		expect([-1, 1]).toContain(emptyPlacement(variation, 'desc'));
	});
});
