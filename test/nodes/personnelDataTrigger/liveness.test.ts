/**
 * Personnel Data Trigger, liveness: whatever the server answers, each poll hands over changes, or
 * stores a position from which the next poll reads less, or fails with an error about the server.
 * A bulk import at one timestamp larger than one poll can list, cut by Max Changes per Poll and
 * followed by later changes, is delivered whole, exactly once, in a number of polls that follows
 * from its pages; the state stays small however large the group; a server that makes no progress
 * is named in an error within one listing's request bound.
 */
import type { INodeParameters } from 'n8n-workflow';

import type { TestBed } from '../setup';
import { useTestBed } from '../setup';
import type { TriggerPoll } from './helpers';
import { changePairs, duplicates, emittedPairs, poll, pollOk, reshapingProxy, stateBytes, useServer } from './helpers';

const parameters = (options: INodeParameters = {}): INodeParameters => ({
	resource: 'employee',
	event: 'createdOrUpdated',
	simplify: false,
	options: { timeBudgetSeconds: 1, ...options },
});

interface Drained {
	sent: string[];
	polls: number;
	largestState: number;
}

/** Polls until `expected` changes have come (or `maxPolls`); every poll must succeed. */
async function drain(bed: TestBed, given: INodeParameters, expected: number, maxPolls: number, between?: (poll: number) => void): Promise<Drained> {
	const sent: string[] = [];
	let largestState = 0;
	let polls = 0;
	while (sent.length < expected && polls < maxPolls) {
		polls++;
		between?.(polls);
		const result: TriggerPoll = await pollOk(bed, given);
		sent.push(...emittedPairs(result.records));
		largestState = Math.max(largestState, stateBytes(bed));
	}
	return { sent, polls, largestState };
}

describe('Personnel Data Trigger: liveness', () => {
	const bed = useTestBed({}, { per: 'test' });
	const sim = () => bed.simulator.sim;

	it.each([
		['Max Changes per Poll 500', { maxChangesPerPoll: 500 }],
		['default options', {}],
	])(
		'a group of 4,000 at one timestamp that no poll can list whole (%s), then 5 later changes: all arrive once, no poll fails',
		async (_, options) => {
			const given = parameters(options);
			expect((await pollOk(bed, given)).items).toBeNull();
			sim().freezeClock();
			const group = sim().createRecords('employees', 4_000);
			sim().unfreezeClock();
			// 40 pages at 40 ms: longer than the 1 s budget of one poll.
			sim().setFaults({ latencyMs: 40, applyToProvisioning: false });
			const later: string[] = [];
			const { sent, polls, largestState } = await drain(bed, given, 4_005, 40, (n) => {
				if (n === 4) later.push(...changePairs(sim().createRecords('employees', 5)));
			});
			expect(duplicates(sent)).toEqual([]);
			expect(new Set(sent)).toEqual(new Set([...changePairs(group), ...later]));
			// 41 pages of at most 100, about 20 a poll, plus the cap: far fewer polls than 40.
			expect(polls).toBeLessThanOrEqual(16);
			// Bytes per record, not kilobytes: the 4,000 are remembered while inside the settle window (changeFeed.ts).
			expect(largestState).toBeLessThan(4_000 * 30);
		},
		120_000,
	);

	it('a server that answers every page with no records and a new cursor (80 pages) is named in an error within one listing’s request bound', async () => {
		// The simulator's own cursors and page flags, with every page emptied: a walk that never gets anywhere.
		let hostile = false;
		const proxy = await reshapingProxy(bed.simulator.baseUrl, (body) => {
			if (hostile && body.pagination) body.data = [];
		});
		try {
			useServer(bed, proxy.baseUrl);
			const given = parameters({ maxRequests: 30 });
			expect((await pollOk(bed, given)).items).toBeNull();
			sim().createRecords('employees', 8_000);
			sim().setFaults({ latencyMs: 30, applyToProvisioning: false });
			hostile = true;
			let failed: TriggerPoll | undefined;
			let polls = 0;
			while (polls < 20 && !failed) {
				polls++;
				const result = await poll(bed, given);
				expect(result.items ?? null).toBeNull();
				if (result.error) failed = result;
			}
			// 30 requests at 30 ms do not fit one poll of 1 s: the bound spans the polls of one listing.
			expect(polls).toBeGreaterThan(1);
			expect(failed?.error?.message).toMatch(/stopped after 30 requests without reaching the last page \(Options → Max Requests is 30\)/);
		} finally {
			await proxy.close();
		}
	});
});
