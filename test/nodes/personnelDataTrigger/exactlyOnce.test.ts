/**
 * Exactly once across polls: a seeded random run of creates, updates, same-timestamp bursts larger
 * than a page, failures in the middle of a poll and expiring tokens. The emitted (id, timestamp)
 * pairs must be exactly the changes made, none twice.
 *
 * "Changes made" are read back from the simulator's own records after each mutation. A record is
 * mutated at most once between two successful polls, so that no change is overwritten before the
 * trigger could see it (the API only shows a record's latest state).
 */
import type { TriggerState } from '../../../nodes/PersonnelDataTrigger/triggerState';
import type { INodeParameters } from 'n8n-workflow';

import { compareTimestamps } from '../../../nodes/shared/timestamps';
import { evaluateRule } from '../../../scripts/simulator/conditions';
import { Rng } from '../../../scripts/simulator/rng';
import type { SimRecord } from '../../../scripts/simulator/types';
import type { TestBed } from '../setup';
import { useTestBed } from '../setup';
import { changePairs, duplicates, emittedPairs, failNthRequest, poll, pollOk, stateBytes, stateOf } from './helpers';

const SEED = Number(process.env.TRIGGER_SEED ?? 20261123);
const POLLS = 30;
const PAGE = 100;
const PARAMETERS = { resource: 'employee', event: 'createdOrUpdated', simplify: false };
const LIST_PATH = '/v1/org/employees';

type FatalFault = { status: 429 | 500 | 'drop'; label: string };

interface RandomRun {
	seed: number;
	polls: number;
	parameters: INodeParameters;
	/** Whether a change of this record is to be emitted (the condition); default all. */
	passes?: (record: SimRecord) => boolean;
	/** Records made visible late, inside the look-back window. */
	lateRecords?: boolean;
	/** Rounds whose poll fails on every retry of a 500 or a dropped connection (slow: backoff). */
	slowFatal?: Record<number, FatalFault>;
	/** Chance of a poll failing on every retry of a 429 with Retry-After 0. */
	fatalChance: number;
	minFatal: number;
	/** Each round's poll overlaps a second one of the same trigger (a slow server, a fast schedule). */
	overlapping?: boolean;
}

async function randomRun(bed: TestBed, run: RandomRun): Promise<{ laterPageFailures: number; emitted: number }> {
	const { parameters } = run;
	const passes = run.passes ?? (() => true);
	const cap = (parameters.options as { maxChangesPerPoll?: number } | undefined)?.maxChangesPerPoll;
	const rng = new Rng(run.seed);
	const { sim } = bed.simulator;
	const expected = new Set<string>();
	const emitted: string[] = [];
	/** Records changed since the last successful poll: not touched again until it has run. */
	const pending = new Set<string>();
	const log: string[] = [];

	const record = (records: readonly SimRecord[]) => {
		for (const pair of changePairs(records.filter(passes))) expected.add(pair);
		for (const r of records) pending.add(r.id);
	};
	const untouched = (count: number): string[] => {
		const hidden = new Set(sim.hiddenIds().employees);
		const candidates = sim.getRecords('employees').filter((r) => !pending.has(r.id) && !hidden.has(r.id));
		const picked: string[] = [];
		while (picked.length < count && candidates.length > 0) {
			picked.push(candidates.splice(rng.int(0, candidates.length - 1), 1)[0].id);
		}
		return picked;
	};

	expect((await pollOk(bed, parameters)).items).toBeNull();

	// One slow (backed-off) fatal failure of each kind; 429 with Retry-After 0 otherwise.
	const slowFatal = run.slowFatal ?? {};
	let fatalPolls = 0;
	let burstPolls = 0;
	let tokenExpiries = 0;
	let laterPageFailures = 0;
	let lateCount = 0;
	/** Late records that became visible behind the watermark: only the window finds them. */
	let lateBehind = 0;

	for (let round = 1; round <= run.polls; round++) {
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
		if (run.lateRecords) {
			// Replication lag: written up to a minute ago (often before the watermark the next poll
			// leaves), hidden until the round after; the ten-minute window still covers it then.
			const watermark = (stateOf(bed).changes as unknown as TriggerState).feed.clock?.at ?? null;
			const revealed = sim.getRecords('employees', sim.revealRecords('employees'));
			lateBehind += revealed.filter((r) => watermark !== null && compareTimestamps(String(r.updated_at), watermark) < 0).length;
			if (rng.chance(0.4)) {
				const now = sim.clock.now();
				const at = new Date(Date.parse(now) - rng.int(1, 60) * 1000).toISOString().slice(0, 19) + now.slice(19);
				const late = sim.createLateRecords('employees', rng.int(1, 5), at);
				record(late);
				lateCount += late.length;
			}
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
			slowFatal[round] ?? (rng.chance(run.fatalChance) ? { status: 429, label: '429 Retry-After 0' } : undefined);
		// Requests the poll makes at least (under a condition, or cut by Max Changes per Poll: one page).
		const pages = run.passes || cap !== undefined ? 1 : Math.max(1, Math.ceil(pending.size / PAGE));
		if (fatal) {
			// A page, a later one when there are several, fails on every attempt: the poll fails
			// after reading earlier pages, and emits nothing.
			const nth = pages > 1 ? rng.int(2, pages) : 1;
			const before = stateOf(bed);
			const restore = failNthRequest(sim, LIST_PATH, nth, { status: fatal.status, count: 5, retryAfterSeconds: 0 });
			const failed = await poll(bed, parameters);
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
		let result: Awaited<ReturnType<typeof poll>>;
		if (run.overlapping) {
			sim.faults.configure({ latencyMs: rng.int(0, 30) });
			const both = await Promise.all([poll(bed, parameters), poll(bed, parameters)]);
			sim.faults.configure({ latencyMs: 0 });
			// At most one of them emits; the other finds the first running and returns nothing.
			expect(both.filter((one) => one.items !== null && one.items !== undefined).length).toBeLessThanOrEqual(1);
			const failed = both.find((one) => one.error !== undefined);
			result = failed ?? both.find((one) => one.items !== null) ?? both[0];
			if (!failed) for (const other of both.filter((one) => one !== result)) emitted.push(...emittedPairs(other.records));
		} else {
			result = await poll(bed, parameters);
		}
		restore();
		sim.clearFaults();
		for (let again = 0; result.error && again < 3; again++) {
			log.push(`round ${round}: poll failed (${result.error.message}); polling again`);
			expect(result.items).toBeUndefined();
			result = await poll(bed, parameters);
		}
		if (result.error) throw new Error(`${log.join('\n')}\npoll failed: ${result.error.message}`);
		emitted.push(...emittedPairs(result.records));
		// A poll cut by Max Changes per Poll leaves changes for the next: those records stay pending.
		if (cap === undefined || result.records.length < cap) pending.clear();
		log.push(`round ${round}: ${result.records.length} emitted in ${Date.now() - started} ms`);
	}
	if (sim.clockState().frozen) sim.unfreezeClock();
	sim.revealRecords('employees');
	// What cut polls left over comes with the next polls, then nothing.
	for (let drained = 0; ; drained++) {
		if (drained > 200) throw new Error('still sending after 200 polls');
		const last = await pollOk(bed, parameters);
		emitted.push(...emittedPairs(last.records));
		if (last.items === null) break;
	}

	expect(duplicates(emitted)).toEqual([]);
	const missing = [...expected].filter((pair) => !emitted.includes(pair));
	const unexpected = emitted.filter((pair) => !expected.has(pair));
	expect({ missing, unexpected }).toEqual({ missing: [], unexpected: [] });
	expect(emitted.length).toBe(expected.size);

	// The run did exercise what it is meant to.
	expect(fatalPolls).toBeGreaterThanOrEqual(run.minFatal);
	expect(burstPolls).toBeGreaterThanOrEqual(1);
	expect(tokenExpiries).toBeGreaterThanOrEqual(1);
	expect(sim.stats().provisioning.refresh).toBeGreaterThanOrEqual(2);
	if (run.lateRecords) expect(lateBehind).toBeGreaterThan(0);
	if (process.env.TRIGGER_VERBOSE) console.log([`${emitted.length} changes emitted, ${lateCount} made visible late (${lateBehind} behind the watermark)`, ...log].join('\n'));
	return { laterPageFailures, emitted: emitted.length };
}

describe('Personnel Data Trigger: exactly once across polls', () => {
	const bed = useTestBed({ seed: SEED, tokenTtlSeconds: 300 }, { per: 'test' });

	it(`emits every change exactly once over ${POLLS} random polls (seed ${SEED})`, async () => {
		const { laterPageFailures } = await randomRun(bed, {
			seed: SEED,
			polls: POLLS,
			parameters: PARAMETERS,
			slowFatal: { 9: { status: 500, label: '500' }, 19: { status: 'drop', label: 'drop' } },
			fatalChance: 0.12,
			minFatal: 3,
		});
		expect(laterPageFailures).toBeGreaterThanOrEqual(1);
		// State does not grow with the history: once the settle window has passed (a new change shows
		// the server's time, two passes settle), nothing of the run is kept.
		const { sim } = bed.simulator;
		sim.advanceClock(11 * 60);
		sim.createRecords('employees', 1);
		await pollOk(bed, PARAMETERS);
		await pollOk(bed, PARAMETERS);
		expect(stateBytes(bed)).toBeLessThan(2_000);
	}, 240_000);

	it('with a condition: exactly the passing changes, once, and the watermark passes the rejected ones', async () => {
		const { sim } = bed.simulator;
		// A generated condition: hash of the id modulo a small number, so a touch does not change it.
		const [condition] = sim.createRecords('conditions', 1);
		const rule = condition.data_engine;
		const { emitted } = await randomRun(bed, {
			seed: SEED + 1,
			polls: 15,
			parameters: { ...PARAMETERS, condition: { __rl: true, mode: 'id', value: condition.id } },
			passes: (record) => evaluateRule(rule, record, sim.clock.today()),
			fatalChance: 0.15,
			minFatal: 1,
		});
		expect(emitted).toBeGreaterThan(0);
	}, 240_000);

	it('cut by Max Changes per Poll and gone on from the server\'s cursor: each change once', async () => {
		await randomRun(bed, {
			seed: SEED + 4,
			polls: 25,
			parameters: { ...PARAMETERS, options: { maxChangesPerPoll: 40 } },
			fatalChance: 0.15,
			minFatal: 1,
		});
	}, 240_000);

	it('cut by Max Changes per Poll under a condition: exactly the passing changes, once', async () => {
		const { sim } = bed.simulator;
		const [condition] = sim.createRecords('conditions', 1);
		const rule = condition.data_engine;
		await randomRun(bed, {
			seed: SEED + 5,
			polls: 25,
			parameters: { ...PARAMETERS, condition: { __rl: true, mode: 'id', value: condition.id }, options: { maxChangesPerPoll: 25 } },
			passes: (record) => evaluateRule(rule, record, sim.clock.today()),
			fatalChance: 0.15,
			minFatal: 1,
		});
	}, 240_000);

	it('with every poll overlapping another one of the same trigger: each change once', async () => {
		await randomRun(bed, {
			seed: SEED + 3,
			polls: 15,
			parameters: PARAMETERS,
			fatalChance: 0.15,
			minFatal: 1,
			overlapping: true,
		});
	}, 240_000);

	it('with a look-back window and records made visible late: each change once', async () => {
		await randomRun(bed, {
			seed: SEED + 2,
			polls: 15,
			parameters: { ...PARAMETERS, options: { lookbackMinutes: 10 } },
			lateRecords: true,
			fatalChance: 0.15,
			minFatal: 1,
		});
		// The window holds the pairs emitted in its last ten minutes, not the history.
		expect(stateBytes(bed)).toBeLessThan(150_000);
	}, 240_000);
});
