/**
 * The feed's memory is bounded (MEMORY_MAX versions): a window holding more degrades by settling
 * the oldest early, says so on the poll's items, and never makes a poll fail.
 */
import { FeedPoll } from '../../../nodes/PersonnelDataTrigger/changeFeed';
import type { FeedOptions, FeedRecord, FeedState } from '../../../nodes/PersonnelDataTrigger/feedState';
import { backfillState, MEMORY_MAX } from '../../../nodes/PersonnelDataTrigger/feedState';
import { compareTimestamps } from '../../../nodes/shared/timestamps';
import { memorySize } from './timeline';

const options: FeedOptions = { settleMs: 600_000, maxRequests: 100, view: 'all', contentView: 'all fields', atLeastOnce: false };
const start = Date.parse('2026-03-01T08:00:00Z');

/** `count` versions, one a millisecond, oldest first. */
function versions(count: number, firstMs: number): FeedRecord[] {
	return Array.from({ length: count }, (_, index) => ({
		id: `rec-${firstMs + index}`,
		at: new Date(firstMs + index).toISOString(),
		content: `v${index}`,
	}));
}

/**
 * One poll; the server's Date clock reads `serverNow` (epoch ms) when it answers. `confirmed`:
 * this process stored `state` (false: a restart in between).
 */
function poll(state: FeedState, records: FeedRecord[], serverNow: number, feedOptions: FeedOptions = options, confirmed = true) {
	const feed = new FeedPoll(state, feedOptions, confirmed);
	for (let read = feed.nextRead(); read !== null; read = feed.nextRead()) {
		const from = read.from;
		const serverTime = { atLeast: serverNow - 5, atMost: serverNow + 1000 };
		feed.page({ records: records.filter((record) => from === null || compareTimestamps(record.at, from) >= 0), hasNextPage: false, serverTime });
	}
	return { ...feed.finish(), settledEarly: feed.settledEarly, warnings: feed.warnings };
}

describe('change feed: the memory bound', () => {
	it("a window holding more versions than the memory's bound: the oldest settle early, the items say so, and the next poll goes on", () => {
		const extra = 1_000;
		const records = versions(MEMORY_MAX + extra, start);
		const first = poll(backfillState(new Date(start).toISOString(), options), records, start + 1_000);
		// Every version was sent once; the memory kept only the newest MEMORY_MAX of them.
		expect(first.deliveries).toHaveLength(records.length);
		expect(memorySize(first.state)).toBe(MEMORY_MAX);
		expect(compareTimestamps(first.settledEarly ?? '', records[extra].at)).toBe(0);
		expect(first.warnings.join(' ')).toMatch(/Settle Window \(Minutes\)/);

		// The next poll, with the same records and one new: only the new one is sent, and nothing is forgotten twice.
		const newer = versions(1, start + MEMORY_MAX + extra + 5);
		const second = poll(first.state, [...records, ...newer], start + 2_000);
		expect(second.deliveries.map((delivery) => delivery.record.id)).toEqual([newer[0].id]);
		expect(second.settledEarly).not.toBeNull();
		expect(memorySize(second.state)).toBeLessThanOrEqual(MEMORY_MAX);
	});

	it('On Restart: Send the Last Poll Again, with the bound reached by the last poll: after a restart nothing an earlier poll sent comes again unmarked, and the last poll comes again', () => {
		const atLeastOnce = { ...options, atLeastOnce: true };
		const older = versions(MEMORY_MAX - 100, start);
		const first = poll(backfillState(new Date(start).toISOString(), atLeastOnce), older, start + 1_000, atLeastOnce);
		expect(first.deliveries).toHaveLength(older.length);
		// The next poll, in the same process (it confirms the first), sends 10,000 more: the bound drops the oldest.
		const newer = versions(10_000, start + MEMORY_MAX + 5);
		const second = poll(first.state, [...older, ...newer], start + 2_000, atLeastOnce);
		expect(second.deliveries).toHaveLength(newer.length);
		expect(second.settledEarly).not.toBeNull();
		// A restart: the last poll is not known to have been taken, so it is read and sent again.
		const third = poll(second.state, [...older, ...newer], start + 3_000, atLeastOnce, false);
		const unmarked = third.deliveries.filter((delivery) => delivery.possiblyRepeated !== true).map((delivery) => delivery.record.id);
		expect(unmarked).toEqual([]);
		const again = new Set(third.deliveries.map((delivery) => delivery.record.id));
		expect(newer.filter((record) => !again.has(record.id))).toEqual([]);
	});

	it('a window within the bound settles nothing early', () => {
		const records = versions(1_000, start);
		const result = poll(backfillState(new Date(start).toISOString(), options), records, start + 1_000);
		expect(result.deliveries).toHaveLength(1_000);
		expect(result.settledEarly).toBeNull();
		expect(memorySize(result.state)).toBe(1_000);
	});
});
