/**
 * Personnel Data Trigger on n8n's durable scheduler, as the harness runs it (NodeRuntime.scheduledPoll:
 * a fresh context per poll from the saved static data, a poll timeout, `getPollBudgetMs`, an
 * abandoned poll dropped while it goes on in the background). Against a slow simulator: bursts
 * that one poll cannot read in time flow through bounded polls, every change exactly once; a poll
 * n8n abandons moves nothing; the cost of a group sharing one timestamp does not grow with what
 * was already sent; the activation listing, the Watch Fields baseline and a backfill span polls.
 */
import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { SAVE_WAIT_MS } from '../../../nodes/PersonnelDataTrigger/pollLease';
import type { ScheduledPollResult } from '../../../scripts/harness';
import type { TestBed } from '../setup';
import { useTestBed } from '../setup';
import type { EmittedRecord } from './helpers';
import { changePairs, duplicates, emittedPairs, lastSeq, listRequestsSince, NODE_NAME, NODE_TYPE } from './helpers';

const TIMEOUT_MS = 2_000; // n8n's budget: 1,000 ms; reading stops after 700 ms
const LATENCY_MS = 40;
const EMPLOYEES = { resource: 'employee', event: 'createdOrUpdated', simplify: false };

interface Poll {
	result: ScheduledPollResult;
	records: EmittedRecord[];
}

async function scheduledPoll(bed: TestBed, parameters: INodeParameters, options: { durableCursors?: boolean; budgetMs?: number; saveDelayMs?: number } = {}): Promise<Poll> {
	const result = await bed.runtime.scheduledPoll({ nodeType: NODE_TYPE, parameters, timeoutMs: TIMEOUT_MS, durableCursors: options.durableCursors ?? true, budgetMs: options.budgetMs, saveDelayMs: options.saveDelayMs });
	if (result.error) throw new Error(`poll failed: ${result.error.message}`);
	const items: INodeExecutionData[] = result.items?.[0] ?? [];
	return { result, records: items.map((item) => item.json as EmittedRecord) };
}

/**
 * Polls until `expected` changes came (or, with none expected, the pending walks are done), then
 * twice more, which must send nothing. Every poll must end before n8n's timeout.
 */
async function drain(bed: TestBed, parameters: INodeParameters, durableCursors: boolean, expected = 0): Promise<{ sent: string[]; polls: number; deliveredAt: number }> {
	// polls: how many sent something; deliveredAt: the simulator's last request when the last expected change came
	const sent: string[] = [];
	let deliveredAt = 0;
	let after = 0;
	let emitting = 0;
	for (let polls = 1; polls <= 60; polls++) {
		const { result, records } = await scheduledPoll(bed, parameters, { durableCursors });
		expect(result.abandoned).toBe(false);
		expect(result.durationMs).toBeLessThan(TIMEOUT_MS);
		sent.push(...emittedPairs(records));
		if (records.length > 0) emitting++;
		if (deliveredAt === 0 && sent.length >= expected) deliveredAt = lastSeq(bed.simulator.sim);
		if (sent.length >= expected && polls >= 2) after++;
		if (after > 2) expect(records).toEqual([]);
		if (after === 4) return { sent, polls: emitting, deliveredAt };
	}
	throw new Error(`still reading after 60 polls (${sent.length} of ${expected} sent)`);
}

describe.each([true, false])('Personnel Data Trigger on the durable scheduler (durable cursors %s)', (durableCursors) => {
	const bed = useTestBed({}, { per: 'test' });
	const sim = () => bed.simulator.sim;

	beforeEach(() => sim().setFaults({ latencyMs: LATENCY_MS, applyToProvisioning: false }));

	it('a burst over many timestamps, larger than a poll can read: bounded polls, every change once, oldest first', async () => {
		await drain(bed, EMPLOYEES, durableCursors);
		const burst = sim().createRecords('employees', 2_500);
		const { sent, polls } = await drain(bed, EMPLOYEES, durableCursors, burst.length);
		expect(polls).toBeGreaterThanOrEqual(2);
		expect(duplicates(sent)).toEqual([]);
		expect(sent.sort()).toEqual(changePairs(burst).sort());
	});

	it('a burst at one timestamp: cut inside the group, and the polls after it read only the pages still to read', async () => {
		await drain(bed, EMPLOYEES, durableCursors);
		sim().freezeClock();
		const burst = sim().createRecords('employees', 2_500);
		sim().unfreezeClock();
		const from = lastSeq(sim());
		const { sent, polls, deliveredAt } = await drain(bed, EMPLOYEES, durableCursors, burst.length);
		expect(polls).toBeGreaterThanOrEqual(2);
		expect(duplicates(sent)).toEqual([]);
		expect(sent.sort()).toEqual(changePairs(burst).sort());
		// Until the last change came: the 25 pages once, not the 25 × polls / 2 of reading the group
		// again. (The polls after it read the settle window again: changeFeed.ts.)
		expect(listRequestsSince(sim(), from).filter((request) => request.seq <= deliveredAt).length).toBeLessThanOrEqual(25 + polls);
	});

	it('a poll n8n abandons moves nothing: the changes it read come with a later poll', async () => {
		await drain(bed, EMPLOYEES, durableCursors);
		const burst = sim().createRecords('employees', 1_500);
		sim().setFaults({ latencyMs: 250, applyToProvisioning: false });
		// A poll told a budget longer than n8n's timeout (as if its clock stalled): abandoned.
		const abandoned = await scheduledPoll(bed, EMPLOYEES, { durableCursors, budgetMs: 20_000 });
		expect(abandoned.result.abandoned).toBe(true);
		await abandoned.result.finished;
		// It ended within the budget it was told, as if n8n had taken its items: the next polls
		// wait that long for n8n to store its state, then read the changes again.
		await new Promise((resolve) => setTimeout(resolve, SAVE_WAIT_MS));
		sim().setFaults({ latencyMs: LATENCY_MS, applyToProvisioning: false });
		const { sent } = await drain(bed, EMPLOYEES, durableCursors, burst.length);
		expect(duplicates(sent)).toEqual([]);
		expect(sent.sort()).toEqual(changePairs(burst).sort());
	});

	it('an activation at a group of thousands sharing the newest timestamp spans polls, sends none of them, then the changes after it', async () => {
		sim().freezeClock();
		sim().createRecords('employees', 2_500);
		sim().unfreezeClock();
		const first = await scheduledPoll(bed, EMPLOYEES, { durableCursors });
		expect(first.records).toEqual([]);
		const later = sim().createRecords('employees', 30);
		const { sent } = await drain(bed, EMPLOYEES, durableCursors, later.length);
		expect(sent.sort()).toEqual(changePairs(later).sort());
	});

	it('pages so slow that the last one started in the read budget always ends past the poll budget: each poll still hands over the pages before it', async () => {
		await drain(bed, EMPLOYEES, durableCursors);
		const burst = sim().createRecords('employees', 300);
		// A page takes 600 ms: the second starts inside the 700 ms read budget and would end at
		// 1,200 ms, past n8n's 1,000 ms. Cut there, every poll would store nothing, and the next
		// one would read the same pages again, for ever.
		sim().setFaults({ latencyMs: 600, applyToProvisioning: false });
		const sent: string[] = [];
		let polls = 0;
		while (sent.length < burst.length && polls < 8) {
			const { result, records } = await scheduledPoll(bed, EMPLOYEES, { durableCursors });
			polls++;
			expect(result.abandoned).toBe(false);
			expect(records.length).toBeGreaterThan(0);
			sent.push(...emittedPairs(records));
		}
		expect(duplicates(sent)).toEqual([]);
		expect(sent.sort()).toEqual(changePairs(burst).sort());
		// A first page that cannot come in time: the poll fails, naming the wait, and moves nothing.
		const before = JSON.stringify(bed.runtime.staticData(NODE_NAME));
		sim().createRecords('employees', 5);
		sim().setFaults({ latencyMs: 1_200, applyToProvisioning: false });
		const late = await bed.runtime.scheduledPoll({ nodeType: NODE_TYPE, parameters: EMPLOYEES, timeoutMs: TIMEOUT_MS, durableCursors });
		expect(late.error?.message).toMatch(/within 0\.\d+ s/);
		expect(JSON.stringify(bed.runtime.staticData(NODE_NAME))).toBe(before);
	});

	it('a Watch Fields baseline longer than a poll: read over several polls, then only watched changes, once', async () => {
		sim().createRecords('employees', 2_000);
		const watching = { ...EMPLOYEES, options: { watchFields: ['email'] } };
		const first = await scheduledPoll(bed, watching, { durableCursors });
		expect(first.records).toEqual([]);
		// Committed as it goes with durable cursors; without, n8n saves only what a poll emits (the process carries the rest).
		if (durableCursors) expect((bed.runtime.staticData(NODE_NAME).changes as { watch: { after?: string } }).watch.after).toBeDefined();
		// Changed while the baseline is read: one watched field, one not.
		const [watched, unwatched] = sim().getRecords('employees').slice(0, 2);
		sim().touchRecords('employees', [watched.id], { changes: { email: 'changed@example.com' } });
		sim().touchRecords('employees', [unwatched.id], { changes: { phone1: '+46 70 000 00 01' } });
		const { sent } = await drain(bed, watching, durableCursors, 1);
		expect(sent).toContain(changePairs(sim().getRecords('employees', [watched.id]))[0]);
		expect(duplicates(sent)).toEqual([]);
	});

	it('On Activation → Start From a Date: every change since the date, oldest first, over bounded polls, then the usual', async () => {
		const before = sim().createRecords('employees', 10);
		const startDate = new Date(Date.parse(String(before[9].updated_at)) + 1).toISOString();
		await new Promise((resolve) => setTimeout(resolve, 5));
		const since = sim().createRecords('employees', 1_500);
		const backfill = { ...EMPLOYEES, options: { onActivation: 'startFromDate', startDate } };
		const { sent } = await drain(bed, backfill, durableCursors, since.length);
		expect(duplicates(sent)).toEqual([]);
		expect(sent).toEqual(changePairs(since));
		const after = sim().createRecords('employees', 3);
		expect((await drain(bed, backfill, durableCursors, after.length)).sent).toEqual(changePairs(after));
	});
});

describe('Personnel Data Trigger on the durable scheduler without durable cursors: n8n saves the state in the background', () => {
	const bed = useTestBed({}, { per: 'test' });
	const sim = () => bed.simulator.sim;

	it('a poll that starts before n8n has saved the previous poll\'s state reads nothing, and nothing is sent twice', async () => {
		const options = { durableCursors: false, saveDelayMs: 1_500 };
		await scheduledPoll(bed, EMPLOYEES, options);
		await scheduledPoll(bed, EMPLOYEES, options);
		const first = sim().createRecords('employees', 30);
		const sent = emittedPairs((await scheduledPoll(bed, EMPLOYEES, options)).records);
		expect(sent.sort()).toEqual(changePairs(first).sort());
		// n8n has not stored that state yet: the next poll must not read from the older one.
		const early = await scheduledPoll(bed, EMPLOYEES, options);
		expect(early.result.items).toBeNull();
		await new Promise((resolve) => setTimeout(resolve, 1_600));
		expect((await scheduledPoll(bed, EMPLOYEES, options)).result.items).toBeNull();
		const second = sim().createRecords('employees', 5);
		expect(emittedPairs((await scheduledPoll(bed, EMPLOYEES, options)).records).sort()).toEqual(changePairs(second).sort());
	});
});
