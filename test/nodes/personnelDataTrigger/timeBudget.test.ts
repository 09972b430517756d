/**
 * Personnel Data Trigger, Options → Time Budget per Poll, on n8n without a scheduler budget (the
 * harness's n8n-core 2.8 context has no getPollBudgetMs): reading stops after the budget at a page
 * boundary, the poll sends what it read, and the next goes on from the server's cursor; also when
 * the budget runs out during the Watch Fields baseline. A wrong value is an error naming the option.
 */
import type { INodeParameters } from 'n8n-workflow';

import { useTestBed } from '../setup';
import type { SimRecord } from '../../../scripts/simulator/types';
import type { EmittedRecord } from './helpers';
import { changePairs, duplicates, emittedPairs, failNthRequest, lastSeq, listRequestsSince, poll, pollOk, stateOf } from './helpers';

const budgeted = (options: INodeParameters = {}): INodeParameters => ({
	resource: 'employee',
	event: 'createdOrUpdated',
	simplify: false,
	options: { timeBudgetSeconds: 1, ...options },
});

describe('Personnel Data Trigger: Time Budget per Poll', () => {
	const bed = useTestBed({}, { per: 'test' });
	const sim = () => bed.simulator.sim;

	it('stops reading after the budget, between pages, and the next polls go on without loss or repeat', async () => {
		expect((await pollOk(bed, budgeted())).items).toBeNull();
		const burst = sim().createRecords('employees', 1_200);
		sim().setFaults({ latencyMs: 150, applyToProvisioning: false });
		const sent: string[][] = [];
		for (let i = 0; i < 20 && sent.flat().length < burst.length; i++) {
			const started = Date.now();
			const result = await pollOk(bed, budgeted());
			// One page may start just before the budget ends: 1 s + one request.
			expect(Date.now() - started).toBeLessThan(1_000 + 800);
			if (result.items !== null) sent.push(emittedPairs(result.records));
		}
		expect(sent.length).toBeGreaterThan(1);
		expect(sent[0].length).toBeLessThan(burst.length);
		expect(duplicates(sent.flat())).toEqual([]);
		expect(sent.flat().sort()).toEqual(changePairs(burst).sort());
	});

	it('goes on from the cursor: the pages already read are not read again', async () => {
		expect((await pollOk(bed, budgeted())).items).toBeNull();
		sim().freezeClock();
		const burst = sim().createRecords('employees', 1_000);
		sim().unfreezeClock();
		sim().setFaults({ latencyMs: 150, applyToProvisioning: false });
		const from = lastSeq(sim());
		const sent: string[] = [];
		let polls = 0;
		while (sent.length < burst.length && polls < 20) {
			polls++;
			sent.push(...emittedPairs((await pollOk(bed, budgeted())).records));
		}
		expect(sent.sort()).toEqual(changePairs(burst).sort());
		const pages = listRequestsSince(sim(), from).filter((request) => request.query?.pagination !== undefined);
		// 10 pages of the group, plus a probe or a count per poll.
		expect(pages.length).toBeLessThanOrEqual(10 + 2 * polls);
	});

	/** What `polls` polls send, once every pass over the settle window is through (pairs). */
	async function sentWithin(parameters: INodeParameters, polls: number): Promise<string[]> {
		const sent: string[] = [];
		for (let i = 0; i < polls; i++) sent.push(...emittedPairs((await pollOk(bed, parameters)).records));
		return sent;
	}

	it('a baseline longer than the budget is read over several polls; nothing is sent until it is whole', async () => {
		sim().createRecords('employees', 1_000);
		sim().setFaults({ latencyMs: 150, applyToProvisioning: false });
		const watching = budgeted({ watchFields: ['email'] });
		const baselinePolls: number[] = [];
		for (let i = 0; i < 10; i++) {
			const result = await pollOk(bed, watching);
			expect(result.items).toBeNull();
			const watch = (result.staticData.changes as { watch: { after?: string; records: Record<string, unknown> } }).watch;
			baselinePolls.push(Object.keys(watch.records).length);
			if (watch.after === undefined) break;
		}
		expect(baselinePolls.length).toBeGreaterThan(1);
		expect(baselinePolls[baselinePolls.length - 1]).toBe(sim().getRecords('employees').length);
		const [record] = sim().getRecords('employees');
		sim().touchRecords('employees', [record.id], { changes: { email: 'budget@example.com' } });
		// The 1,000 are inside the settle window: a pass reads them again over a few budgeted polls.
		expect(await sentWithin(watching, 10)).toEqual(changePairs(sim().getRecords('employees', [record.id])));
	});

	it('a record changed while the baseline is read comes once, as an update of every watched field; then only watched changes', async () => {
		sim().createRecords('employees', 1_000);
		sim().setFaults({ latencyMs: 150, applyToProvisioning: false });
		const watching = budgeted({ watchFields: ['email'] });
		expect((await pollOk(bed, watching)).items).toBeNull();
		// The newest record, last in the baseline's walk (oldest first): not read yet when it changes (an unwatched field).
		const record = sim().getRecords('employees').at(-1) as SimRecord;
		sim().touchRecords('employees', [record.id], { changes: { phone1: '+46 70 000 00 02' } });
		const sent: EmittedRecord[] = [];
		for (let i = 0; i < 12; i++) sent.push(...(await pollOk(bed, watching)).records);
		expect(sent.map((item) => item.id)).toEqual([record.id]);
		expect(sent[0]._event).toMatchObject({ type: 'updated', changedFields: ['email'] });
		// Its values are known now: an unwatched change is not sent, a watched one is.
		sim().touchRecords('employees', [record.id], { changes: { phone1: '+46 70 000 00 03' } });
		expect(await sentWithin(watching, 10)).toEqual([]);
		sim().touchRecords('employees', [record.id], { changes: { email: 'meanwhile@example.com' } });
		expect(await sentWithin(watching, 10)).toEqual(changePairs(sim().getRecords('employees', [record.id])));
	});

	it('a server that refuses the stored cursor: the poll reads again from the last change sent, nothing twice', async () => {
		const capped = { resource: 'employee', event: 'createdOrUpdated', simplify: false, options: { maxChangesPerPoll: 100 } };
		expect((await pollOk(bed, capped)).items).toBeNull();
		sim().freezeClock();
		const burst = sim().createRecords('employees', 350);
		sim().unfreezeClock();
		const sent = emittedPairs((await pollOk(bed, capped)).records);
		expect((stateOf(bed).changes as { resume: unknown }).resume).not.toBeNull();
		// The count at the watermark, then the page after the stored cursor: refused (an expired cursor).
		const restore = failNthRequest(sim(), '/v1/org/employees', 2, { status: 400, count: 1 });
		const refused = await pollOk(bed, capped);
		restore();
		expect(refused.logs.join('\n')).toMatch(/no longer accepts the cursor/);
		sent.push(...emittedPairs(refused.records));
		for (let i = 0; i < 10 && sent.length < burst.length; i++) sent.push(...emittedPairs((await pollOk(bed, capped)).records));
		expect((await pollOk(bed, capped)).items).toBeNull();
		expect(duplicates(sent)).toEqual([]);
		expect(sent.sort()).toEqual(changePairs(burst).sort());
	});

	it('a page that fails once the budget is spent (HTML with 200): the pages read are sent, the next poll goes on', async () => {
		expect((await pollOk(bed, budgeted())).items).toBeNull();
		const burst = sim().createRecords('employees', 1_500);
		sim().setFaults({ latencyMs: 150, applyToProvisioning: false });
		// Past about 7 pages of 150 ms the 1 s budget is spent; the 9th list request and its retries answer HTML.
		const restore = failNthRequest(sim(), '/v1/org/employees', 9, { status: 'html200', count: 10 });
		const first = await pollOk(bed, budgeted());
		restore();
		sim().clearFaults();
		expect(first.records.length).toBeGreaterThan(0);
		expect(first.records.length).toBeLessThan(burst.length);
		const sent = emittedPairs(first.records);
		for (let i = 0; i < 10 && sent.length < burst.length; i++) sent.push(...emittedPairs((await pollOk(bed, budgeted())).records));
		expect(duplicates(sent)).toEqual([]);
		expect(sent.sort()).toEqual(changePairs(burst).sort());
	});

	it('a first page that fails (HTML with 200) is the poll\'s error: nothing stored, nothing sent', async () => {
		expect((await pollOk(bed, budgeted())).items).toBeNull();
		sim().createRecords('employees', 300);
		const before = stateOf(bed);
		const restore = failNthRequest(sim(), '/v1/org/employees', 1, { status: 'html200', count: 10 });
		const failed = await poll(bed, budgeted());
		restore();
		expect(failed.error?.message).toMatch(/employees/);
		expect(failed.items).toBeUndefined();
		expect(stateOf(bed)).toEqual(before);
	});

	it.each([0, 31, 'soon'])('refuses %p with an error naming the option, and sends no request', async (value) => {
		const from = lastSeq(sim());
		const result = await poll(bed, budgeted({ timeBudgetSeconds: value }));
		expect(result.error?.message).toMatch(/Time Budget per Poll \(Seconds\): expected a whole number from 1 to 30/);
		expect(listRequestsSince(sim(), from)).toEqual([]);
	});
});
