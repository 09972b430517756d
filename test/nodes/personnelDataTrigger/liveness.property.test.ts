/**
 * Personnel Data Trigger, liveness as a property: random timelines of bursts (spread, and at one
 * timestamp), Max Changes per Poll (none, 100, 500), a poll budget small enough that every long
 * reading spans several polls, records the server places behind the cursor at the watermark,
 * records sent and then changed again, later changes, and n8n restarts. Every change arrives
 * exactly once, no poll fails, and everything is delivered within a number of polls computed from
 * the pages it needs. Replay one timeline: LIVENESS_SEED=<seed> npx jest liveness.property.
 */
import type { INodeParameters } from 'n8n-workflow';

import { IDS_KEPT_MAX } from '../../../nodes/PersonnelDataTrigger/changeState';
import { Rng } from '../../../scripts/simulator/rng';
import type { SimRecord } from '../../../scripts/simulator/types';
import type { TestBed } from '../setup';
import { useTestBed } from '../setup';
import type { TriggerSession } from './helpers';
import { activateTrigger, changePairs, duplicates, emittedPairs, stateBytes, stateOf } from './helpers';

const PAGE = 100;
/** A poll of 1 s reads at least this many pages at 10 ms a request, even on a busy machine. */
const PAGES_PER_POLL_AT_LEAST = 4;
const CAPS = [undefined, 100, 500] as const;

interface Timeline {
	seed: number;
	cap: number | undefined;
	spread: number;
	group: number;
	/** Events between polls, by poll number. */
	events: Map<number, 'later' | 'behind' | 'again' | 'restart'>;
}

function timeline(seed: number): Timeline {
	const rng = new Rng(seed);
	const events = new Map<number, 'later' | 'behind' | 'again' | 'restart'>();
	const kinds = ['later', 'behind', 'again', 'restart'] as const;
	for (let poll = 1; poll <= 8; poll++) if (rng.next() < 0.6) events.set(poll, kinds[rng.int(0, kinds.length - 1)]);
	return { seed, cap: CAPS[rng.int(0, CAPS.length - 1)], spread: rng.int(0, 600), group: [0, 250, 900, 2_500][rng.int(0, 3)], events };
}

const SEEDS = process.env.LIVENESS_SEED ? [Number(process.env.LIVENESS_SEED)] : [11, 23, 35, 47, 59, 71, 83, 95, 107, 119];

describe('Personnel Data Trigger: liveness property', () => {
	const bed = useTestBed({}, { per: 'test' });

	it.each(SEEDS.map((seed) => [seed, timeline(seed)] as const))(
		'timeline %i: every change once, no poll failing, within the polls its pages need',
		async (_, plan) => {
			const sim = bed.simulator.sim;
			const parameters: INodeParameters = {
				resource: 'employee',
				event: 'createdOrUpdated',
				simplify: false,
				options: { timeBudgetSeconds: 1, ...(plan.cap === undefined ? {} : { maxChangesPerPoll: plan.cap }) },
			};
			let session: TriggerSession = (await activateTrigger(bed, parameters)).session;
			const expected = new Set<string>();
			const expect_ = (records: SimRecord[]) => changePairs(records).forEach((pair) => expected.add(pair));
			expect_(sim.createRecords('employees', plan.spread));
			sim.freezeClock();
			const group = sim.createRecords('employees', plan.group);
			expect_(group);
			sim.unfreezeClock();
			sim.setFaults({ latencyMs: 10, applyToProvisioning: false });

			const sent: string[] = [];
			let extraPolls = 0;
			let polls = 0;
			let largestState = 0;
			const limit = 200;
			while (polls < limit) {
				const event = plan.events.get(polls);
				const watermark = (stateOf(bed).changes as { watermark?: string; knownAtWatermark?: number } | undefined) ?? {};
				if (event === 'later') expect_(sim.createRecords('employees', 7));
				if (event === 'behind' && watermark.watermark && (watermark.knownAtWatermark ?? 0) + 3 <= IDS_KEPT_MAX) {
					// The server gives new records the timestamp the trigger has read up to (a clock in seconds, a
					// late commit); its clock then goes on where it was (never backwards: that is the look-back window's case).
					const { now } = sim.clockState();
					sim.freezeClock(watermark.watermark);
					expect_(sim.createRecords('employees', 3));
					sim.unfreezeClock();
					sim.setClock(now);
				}
				if (event === 'again' && sent.length > 0) {
					const ids = sent.slice(-5).map((pair) => pair.slice(0, pair.indexOf('@')));
					expect_(sim.touchRecords('employees', ids, { sameTimestamp: true }));
				}
				if (event === 'restart') {
					// n8n started again: its activation poll is one of the trigger's polls.
					const restarted = await activateTrigger(bed, parameters, { activation: 'init' });
					session = restarted.session;
					if (restarted.first.error) throw new Error(`the poll after a restart failed: ${restarted.first.error.message}`);
					sent.push(...emittedPairs(restarted.first.records));
					polls++;
				}
				if (event !== undefined) extraPolls += 2;
				polls++;
				const result = await session.poll();
				if (result.error) throw new Error(`poll ${polls} failed: ${result.error.message}`);
				sent.push(...emittedPairs(result.records));
				largestState = Math.max(largestState, stateBytes(bed));
				if (sent.length >= expected.size && polls > Math.max(...plan.events.keys(), 0)) break;
			}
			expect(duplicates(sent)).toEqual([]);
			expect(new Set(sent)).toEqual(expected);
			const pages = Math.ceil(expected.size / PAGE) + 1;
			const bound = Math.ceil(pages / PAGES_PER_POLL_AT_LEAST) + (plan.cap === undefined ? 0 : Math.ceil(expected.size / plan.cap)) + extraPolls + 2;
			expect(polls).toBeLessThanOrEqual(bound);
			expect(largestState).toBeLessThan(60_000);
		},
		180_000,
	);

	it('a bulk import of 40,000 at one timestamp: delivered once in polls of the budget, the state stays small, the pages are read once', async () => {
		const sim = bed.simulator.sim;
		const parameters: INodeParameters = { resource: 'employee', event: 'createdOrUpdated', simplify: false, options: { timeBudgetSeconds: 1 } };
		const { session } = await activateTrigger(bed, parameters);
		sim.freezeClock();
		const group = sim.createRecords('employees', 40_000);
		sim.unfreezeClock();
		const later = sim.createRecords('employees', 5);
		const requestsBefore = sim.stats().requests;
		const sent: string[] = [];
		let polls = 0;
		let largestState = 0;
		while (sent.length < 40_005 && polls < 200) {
			polls++;
			const result = await session.poll();
			if (result.error) throw new Error(`poll ${polls} failed: ${result.error.message}`);
			sent.push(...emittedPairs(result.records));
			largestState = Math.max(largestState, stateBytes(bed));
		}
		expect(duplicates(sent)).toEqual([]);
		expect(new Set(sent)).toEqual(new Set(changePairs([...group, ...later])));
		expect(largestState).toBeLessThan(60_000);
		// 401 pages, and per poll at most a probe and a count besides them.
		expect(sim.stats().requests - requestsBefore).toBeLessThanOrEqual(401 + 3 * polls);
	}, 300_000);
});
