/**
 * Personnel Data Trigger, Options → Max Changes per Poll: each poll sends at most that many changes,
 * oldest first, and the next continues where it stopped; every change exactly once, also when the
 * cut falls inside a group of records sharing one timestamp.
 */
import type { INodeParameters } from 'n8n-workflow';

import { compareTimestamps } from '../../../nodes/shared/timestamps';
import type { TestBed } from '../setup';
import { useTestBed } from '../setup';
import { changePairs, duplicates, emittedPairs, pollOk } from './helpers';

const capped = (maxChangesPerPoll: number, options: INodeParameters = {}) => ({
	resource: 'employee',
	event: 'createdOrUpdated',
	simplify: false,
	options: { maxChangesPerPoll, ...options },
});

/** Polls until one sends nothing; returns what each poll sent. */
async function drain(bed: TestBed, parameters: INodeParameters): Promise<string[][]> {
	const sent: string[][] = [];
	for (let i = 0; i < 50; i++) {
		const result = await pollOk(bed, parameters);
		if (result.items === null) return sent;
		sent.push(emittedPairs(result.records));
	}
	throw new Error('still sending after 50 polls');
}

describe('Personnel Data Trigger: Max Changes per Poll', () => {
	const bed = useTestBed({}, { per: 'test' });

	it.each([
		[350, 100],
		[100, 100],
		[101, 100],
		[7, 3],
	])('a burst of %i at one timestamp with a cap of %i: cut inside the group, each sent once, in polls of at most the cap', async (size, cap) => {
		const { sim } = bed.simulator;
		const parameters = capped(cap);
		expect((await pollOk(bed, parameters)).items).toBeNull();
		sim.freezeClock();
		const burst = sim.createRecords('employees', size);
		sim.unfreezeClock();

		const polls = await drain(bed, parameters);
		expect(polls.map((sent) => sent.length)).toEqual(Array.from({ length: Math.ceil(size / cap) }, (_, i) => Math.min(cap, size - i * cap)));
		const all = polls.flat();
		expect(duplicates(all)).toEqual([]);
		expect(all.sort()).toEqual(changePairs(burst).sort());
	});

	it.each([
		['gives total_count', 'inPagination'],
		['gives no total_count', 'absent'],
	] as const)('across bursts at several timestamps and changes arriving between polls, on a server that %s: oldest first, exactly once', async (_, totalCount) => {
		const { sim } = bed.simulator;
		sim.setVariation({ totalCount });
		const parameters = capped(100);
		expect((await pollOk(bed, parameters)).items).toBeNull();
		const changed: string[] = [];
		const sent: string[] = [];
		for (const size of [350, 40, 180]) {
			sim.freezeClock();
			changed.push(...sim.createRecords('employees', size).map((r) => r.id));
			sim.unfreezeClock();
		}
		// A poll, then more changes at the timestamp it stopped in and later ones, then the rest.
		const first = await pollOk(bed, parameters);
		expect(first.records).toHaveLength(100);
		sent.push(...emittedPairs(first.records));
		sim.freezeClock(String(first.records[99].updated_at));
		changed.push(...sim.createRecords('employees', 30).map((r) => r.id));
		sim.unfreezeClock();
		// Some already sent, some not yet sent (their earlier change is replaced by this one), some seeded.
		const touched = [...changed.slice(50, 150), ...sim.getRecords('employees').slice(0, 50).map((r) => r.id)];
		sim.touchRecords('employees', touched, { sameTimestamp: true });
		changed.push(...touched);
		// What was sent, and then every record's change as the server now lists it.
		const expected = [...sent, ...changePairs(sim.getRecords('employees', [...new Set(changed)]))];

		const stampsOf = (pairs: readonly string[]) => pairs.map((pair) => pair.slice(pair.indexOf('@') + 1));
		const rest = await drain(bed, parameters);
		for (const poll of rest) sent.push(...poll);
		for (const poll of [emittedPairs(first.records), ...rest]) {
			expect(poll.length).toBeLessThanOrEqual(100);
			// Each poll oldest first. Across polls, the 30 placed behind the cut come with the next
			// pass over the settle window, after the later changes (changeFeed.ts).
			const stamps = stampsOf(poll);
			for (let i = 1; i < stamps.length; i++) expect(compareTimestamps(stamps[i - 1], stamps[i])).toBeLessThanOrEqual(0);
		}
		expect(duplicates(sent)).toEqual([]);
		// A record sent and then touched again is sent twice, once per change.
		expect(new Set(sent)).toEqual(new Set(expected));
	});

	it('with a look-back window the cut resumes exactly too', async () => {
		const { sim } = bed.simulator;
		const parameters = capped(60, { lookbackMinutes: 5 });
		expect((await pollOk(bed, parameters)).items).toBeNull();
		sim.freezeClock();
		const burst = sim.createRecords('employees', 150);
		sim.unfreezeClock();
		const polls = await drain(bed, parameters);
		expect(polls.map((sent) => sent.length)).toEqual([60, 60, 30]);
		expect(polls.flat().sort()).toEqual(changePairs(burst).sort());
	});

	it('refuses a cap that is not a whole number, naming the option', async () => {
		const result = await bed.runtime.poll({ nodeType: 'personnelDataTrigger', parameters: capped(-1), mode: 'trigger' });
		expect(result.error?.message).toMatch(/Options › Max Changes per Poll: expected a whole number from 0 to 100000, got -1/);
	});
});
