import type { INodeParameters } from 'n8n-workflow';

import { MAX_IN_FLIGHT_DEFAULT, rangeTiming, RANGES_START } from '../../../../nodes/shared/rangeWorth';
import { HTTP } from '../../../../nodes/shared/apiChoices';
import { backoffTiming, REFUSALS_RETRIED_ON_A_SLOT } from '../../../../nodes/shared/transport/retryPolicy';
import { useTestBed } from '../../setup';
import { apiRequests, idsOf, jsonOf, maxInFlight, queryValues, run } from '../helpers';

/**
 * Return All at the defaults, read in ranges with an adaptive number of requests in flight: it
 * starts at RANGES_START, grows while the answers come as quickly, never passes Options › Max
 * Requests in Flight, and backs off before a server that refuses with 429.
 */
const atDefaults: INodeParameters = { resource: 'employee', operation: 'getMany', returnAll: true, simplify: false };
const oneCursor: INodeParameters = { ...atDefaults, options: { maxInFlight: 1 } };
const LATENCY_MS = 20;
const sortedIds = (records: Parameters<typeof idsOf>[0]) => idsOf(records).sort();

describe('Personnel Data: Return All with an adaptive number of ranges in flight', () => {
	const bed = useTestBed();
	const sim = () => bed.simulator.sim;
	// Ranges whatever this machine's load makes of the first pages (the choice: hostileRanges.test.ts).
	beforeAll(() => (rangeTiming.worthWaitingShare = 0));
	afterAll(() => (rangeTiming.worthWaitingShare = Number.POSITIVE_INFINITY));

	beforeAll(() => {
		// 4,000 employees inserted over a span (a long listing, 40 pages).
		const missing = 4_000 - sim().getRecords('employees').length;
		if (missing > 0) sim().createRecords('employees', missing, { restricted: false });
	});
	beforeEach(() => sim().setFaults({ latencyMs: LATENCY_MS, applyToProvisioning: false }));

	it(`${LATENCY_MS} ms away, at the defaults: ranges, from ${RANGES_START} in flight to more, never above ${MAX_IN_FLIGHT_DEFAULT}; the same employees as one cursor, oldest first`, async () => {
		const reference = jsonOf(await run(bed, oneCursor));
		const single = apiRequests(bed);
		expect(maxInFlight(single)).toBe(1);
		const ranged = jsonOf(await run(bed, atDefaults));
		const sent = apiRequests(bed);
		expect(sortedIds(ranged)).toEqual(sortedIds(reference));
		expect(idsOf(ranged)).toEqual(idsOf(reference));
		expect(maxInFlight(sent)).toBeGreaterThan(4);
		expect(maxInFlight(sent)).toBeLessThanOrEqual(MAX_IN_FLIGHT_DEFAULT);
		// Round trips: well under one cursor's (one per page).
		expect(sent.length).toBeLessThan(single.length * 1.5);
	});

	it('Options › Max Requests in Flight is the ceiling: 3 means never more than 3 requests at once', async () => {
		const result = jsonOf(await run(bed, { ...atDefaults, options: { maxInFlight: 3 } }));
		expect(result.length).toBeGreaterThan(3_000);
		expect(maxInFlight(apiRequests(bed))).toBeLessThanOrEqual(3);
		expect(maxInFlight(apiRequests(bed))).toBeGreaterThan(1);
	});

	it('a server that answers 429 above 3 requests at once: the same employees, few refusals, never more than 3 at once', async () => {
		sim().setFaults({ latencyMs: LATENCY_MS, applyToProvisioning: false, maxInFlight: 3, retryAfterSeconds: 0 });
		const reference = jsonOf(await run(bed, oneCursor));
		const ranged = jsonOf(await run(bed, atDefaults));
		const sent = apiRequests(bed);
		expect(idsOf(ranged)).toEqual(idsOf(reference));
		const refused = sent.filter((entry) => entry.status === 429);
		// Halving on each refusal: a few refusals, not one per page.
		expect(refused.length).toBeLessThan(10);
		expect(maxInFlight(sent.filter((entry) => entry.status < 300))).toBeLessThanOrEqual(3);
		// Its time against one cursor's is a benchmark's question (npm run bench), not a timed test's.
	});

	it('a server that takes one request at a time (429 beyond it): the same employees, one cursor\'s pages plus the probe, no pause', async () => {
		// Its time is the benchmark's; what makes it one cursor's is asserted: the refused request
		// goes again as soon as the other ends (no backoff pausing the run), the limit stays at 1, so
		// no range is cut and no boundary page read twice.
		sim().setFaults({ latencyMs: LATENCY_MS, applyToProvisioning: false, maxInFlight: 1, retryAfterSeconds: 0 });
		const reference = jsonOf(await run(bed, oneCursor));
		const single = apiRequests(bed).length;
		const ranged = jsonOf(await run(bed, atDefaults));
		const sent = apiRequests(bed);
		expect(idsOf(ranged)).toEqual(idsOf(reference));
		const refused = sent.filter((entry) => entry.status === 429);
		expect(refused.length).toBeGreaterThanOrEqual(1);
		expect(refused.length).toBeLessThanOrEqual(2);
		// One cursor's pages, the probe for the other end, and the refused requests sent again.
		expect(sent.length).toBeLessThanOrEqual(single + 1 + refused.length);
		// Sent again at once: no refusal is followed by a pause of the backoff's length (250 ms or more).
		for (const entry of refused) {
			const next = sent.find((later) => Date.parse(later.at) >= Date.parse(entry.at) + entry.durationMs);
			expect(next && Date.parse(next.at) - (Date.parse(entry.at) + entry.durationMs)).toBeLessThan(backoffTiming.baseMs / 2);
		}
	});

	it('a server that refuses every later page with 429 and no delay: each request sent again on a slot at most twice, then backed off, and the read ends with the 429', async () => {
		const saved = { ...backoffTiming };
		Object.assign(backoffTiming, { baseMs: 10, maxMs: 40 });
		try {
			sim().queueFault({ pathPrefix: '/v1/org/employees', method: 'GET', status: 429, count: 100_000, queryIncludes: 'pagination%5Bafter%5D', retryAfterSeconds: 0 });
			const result = await run(bed, atDefaults);
			expect(result.error?.message).toMatch(/429|too many/i);
			const refused = apiRequests(bed).filter((entry) => entry.status === 429);
			// Every walk's next page is refused: per walk at most the attempts plus the slot retries.
			const walks = new Set(apiRequests(bed).filter((entry) => entry.status === 200).map((entry) => queryValues(entry.rawQuery, 'filters[inserted_at][value]').join())).size;
			expect(refused.length).toBeGreaterThan(0);
			expect(refused.length).toBeLessThanOrEqual(walks * (HTTP.maxAttempts + REFUSALS_RETRIED_ON_A_SLOT));
		} finally {
			Object.assign(backoffTiming, saved);
			sim().clearFaults();
		}
	});
});
