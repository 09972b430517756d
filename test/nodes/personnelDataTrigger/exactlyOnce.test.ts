/**
 * Exactly once across polls: a seeded random run of creates, updates, same-timestamp bursts larger
 * than a page, failures in the middle of a poll and expiring tokens. The emitted (id, timestamp)
 * pairs must be exactly the changes made, none twice.
 *
 * "Changes made" are read back from the simulator's own records after each mutation. A record is
 * mutated at most once between two successful polls, so that no change is overwritten before the
 * trigger could see it (the API only shows a record's latest state).
 */
import type { ChangeState } from '../../../nodes/PersonnelDataTrigger/changeState';
import { Rng } from '../../simulator/rng';
import type { SimRecord } from '../../simulator/types';
import type { TestBed } from '../setup';
import { startTestBed } from '../setup';
import { changePairs, duplicates, emittedPairs, failNthRequest, poll, pollOk, stateBytes, stateOf } from './helpers';

const SEED = Number(process.env.TRIGGER_SEED ?? 20261123);
const POLLS = 30;
const PAGE = 100;
const PARAMETERS = { resource: 'employee', event: 'createdOrUpdated', simplify: false };
const LIST_PATH = '/v1/org/employees';

type FatalFault = { status: 429 | 500 | 'drop'; label: string };

describe('Personnel Data Trigger: exactly once across polls', () => {
	let bed: TestBed;

	beforeEach(async () => {
		bed = await startTestBed({ seed: SEED, tokenTtlSeconds: 300 });
	});
	afterEach(async () => {
		await bed.simulator.close();
	});

	it(`emits every change exactly once over ${POLLS} random polls (seed ${SEED})`, async () => {
		const { sim } = bed.simulator;
		const rng = new Rng(SEED);
		const expected = new Set<string>();
		const emitted: string[] = [];
		/** Records changed since the last successful poll: not touched again until it has run. */
		const pending = new Set<string>();
		const log: string[] = [];

		const record = (records: readonly SimRecord[]) => {
			for (const pair of changePairs(records)) expected.add(pair);
			for (const r of records) pending.add(r.id);
		};
		const untouched = (count: number): string[] => {
			const candidates = sim.getRecords('employees').filter((r) => !pending.has(r.id));
			const picked: string[] = [];
			while (picked.length < count && candidates.length > 0) {
				picked.push(candidates.splice(rng.int(0, candidates.length - 1), 1)[0].id);
			}
			return picked;
		};

		expect((await pollOk(bed, PARAMETERS)).items).toBeNull();

		// One slow (backed-off) fatal failure of each kind; 429 with Retry-After 0 otherwise.
		const slowFatal: Record<number, FatalFault> = { 9: { status: 500, label: '500' }, 19: { status: 'drop', label: 'drop' } };
		let fatalPolls = 0;
		let burstPolls = 0;
		let tokenExpiries = 0;
		let laterPageFailures = 0;

		for (let round = 1; round <= POLLS; round++) {
			const started = Date.now();
			// ---- changes
			if (rng.chance(0.25)) {
				// A frozen clock: everything until it thaws shares one timestamp, across polls.
				if (sim.clockState().frozen) sim.unfreezeClock();
				else sim.freezeClock();
			}
			const creates = rng.int(0, 40);
			if (creates > 0) record(sim.createRecords('employees', creates));
			const touches = rng.int(0, 40);
			if (touches > 0) record(sim.touchRecords('employees', untouched(touches)));
			if (rng.chance(0.2)) {
				// A burst larger than a page: several hundred records with one identical updated_at.
				const ids = untouched(rng.int(PAGE * 2, PAGE * 4));
				record(sim.touchRecords('employees', ids, { sameTimestamp: true }));
				burstPolls++;
				log.push(`round ${round}: burst of ${ids.length}`);
			}
			sim.advanceClock(rng.int(0, 3));
			// ---- the access token expires between polls
			if (rng.chance(0.2)) {
				tokenExpiries++;
				if (rng.chance(0.5)) sim.advanceClock(301);
				else sim.revokeTokens();
			}

			// ---- failures inside the poll
			const fatal: FatalFault | undefined =
				slowFatal[round] ?? (rng.chance(0.12) ? { status: 429, label: '429 Retry-After 0' } : undefined);
			const pages = Math.max(1, Math.ceil(pending.size / PAGE));
			if (fatal) {
				// A page, a later one when there are several, fails on every attempt: the poll fails
				// after reading earlier pages, and emits nothing.
				const nth = pages > 1 ? rng.int(2, pages) : 1;
				const before = stateOf(bed);
				const restore = failNthRequest(sim, LIST_PATH, nth, { status: fatal.status, count: 5, retryAfterSeconds: 0 });
				const failed = await poll(bed, PARAMETERS);
				restore();
				sim.clearFaults();
				expect(failed.error).toBeDefined();
				expect(failed.items).toBeUndefined();
				expect(stateOf(bed)).toEqual(before);
				fatalPolls++;
				if (nth > 1) laterPageFailures++;
				log.push(`round ${round}: ${fatal.label} on page ${nth}/${pages}: ${failed.error?.message ?? ''}`);
			}
			let restore = () => {};
			if (!fatal && rng.chance(0.3)) {
				// A transient failure on some page: the transport retries it within the poll.
				const status = rng.pick([429, 500, 'drop'] as const);
				restore = failNthRequest(sim, LIST_PATH, rng.int(1, pages), { status, count: rng.int(1, 2), retryAfterSeconds: 0 });
				log.push(`round ${round}: transient ${status}`);
			}

			// The next scheduled poll fetches the same changes again. Whether a transient failure is
			// retried inside the poll is the transport's business: either way nothing may be lost.
			let result = await poll(bed, PARAMETERS);
			restore();
			sim.clearFaults();
			for (let again = 0; result.error && again < 3; again++) {
				log.push(`round ${round}: poll failed (${result.error.message}); polling again`);
				expect(result.items).toBeUndefined();
				result = await poll(bed, PARAMETERS);
			}
			if (result.error) throw new Error(`${log.join('\n')}\npoll failed: ${result.error.message}`);
			emitted.push(...emittedPairs(result.records));
			pending.clear();
			log.push(`round ${round}: ${result.records.length} emitted in ${Date.now() - started} ms`);
		}
		if (sim.clockState().frozen) sim.unfreezeClock();
		const last = await pollOk(bed, PARAMETERS);
		emitted.push(...emittedPairs(last.records));

		expect(duplicates(emitted)).toEqual([]);
		const missing = [...expected].filter((pair) => !emitted.includes(pair));
		const unexpected = emitted.filter((pair) => !expected.has(pair));
		expect({ missing, unexpected }).toEqual({ missing: [], unexpected: [] });
		expect(emitted.length).toBe(expected.size);

		// The run did exercise what it is meant to.
		expect(fatalPolls).toBeGreaterThanOrEqual(2);
		expect(laterPageFailures).toBeGreaterThanOrEqual(1);
		expect(burstPolls).toBeGreaterThanOrEqual(1);
		expect(tokenExpiries).toBeGreaterThanOrEqual(1);
		expect(sim.stats().provisioning.refresh).toBeGreaterThanOrEqual(2);
		// State does not grow with the history: a few hundred ids at most (one burst).
		expect(stateBytes(bed)).toBeLessThan(20_000);
		const state = stateOf(bed).changes as ChangeState;
		expect(state.recent).toEqual([]);
		if (process.env.TRIGGER_VERBOSE) console.log([`${emitted.length} changes emitted`, ...log].join('\n'));
	}, 240_000);
});
