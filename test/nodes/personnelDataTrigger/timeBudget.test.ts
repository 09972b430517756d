/**
 * Personnel Data Trigger, Options → Time Budget per Poll, on n8n without a scheduler budget (the
 * harness's n8n-core 2.8 context has no getPollBudgetMs): reading stops after the budget at a page
 * boundary, the poll sends what it read, and the next goes on from the server's cursor; also when
 * the budget runs out during the Watch Fields baseline. A wrong value is an error naming the option.
 */
import type { INodeParameters } from 'n8n-workflow';

import { useTestBed } from '../setup';
import { changePairs, duplicates, emittedPairs, lastSeq, listRequestsSince, poll, pollOk } from './helpers';

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
		const changed = await pollOk(bed, watching);
		expect(emittedPairs(changed.records)).toEqual(changePairs(sim().getRecords('employees', [record.id])));
	});

	it.each([0, 31, 'soon'])('refuses %p with an error naming the option, and sends no request', async (value) => {
		const from = lastSeq(sim());
		const result = await poll(bed, budgeted({ timeBudgetSeconds: value }));
		expect(result.error?.message).toMatch(/Time Budget per Poll \(Seconds\): expected a whole number from 1 to 30/);
		expect(listRequestsSince(sim(), from)).toEqual([]);
	});
});
