import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { PAGE_SIZE_MAX } from '../../../../nodes/shared/apiChoices';
import { PAGES_BEFORE_RANGES } from '../../../../nodes/shared/rangedWalk';
import { rangeTiming } from '../../../../nodes/shared/rangeWorth';
import { useTestBed } from '../../setup';
import { apiRequests, idsOf, jsonOf, queryValues, run } from '../helpers';

/**
 * Return All ordered by Inserted At reads several inserted_at ranges at once, and must give what one
 * cursor gives: Limit never uses ranges, so a Limit above the count is the single-cursor reference.
 */
const ordered = (direction: 'asc' | 'desc', more: INodeParameters = {}): INodeParameters => ({
	resource: 'employee',
	operation: 'getMany',
	returnAll: true,
	options: { orderBy: 'inserted_at', orderDirection: direction },
	...more,
});
const oneCursor = (direction: 'asc' | 'desc'): INodeParameters => ordered(direction, { returnAll: false, limit: 1_000_000 });
const rangeRequests = (entries: ReturnType<typeof apiRequests>) => entries.filter((entry) => entry.rawQuery.includes('filters%5Binserted_at%5D'));
/** The ranges a read was cut into: the first (no filter) and one per boundary sent. */
const rangesOf = (entries: ReturnType<typeof apiRequests>) => 1 + new Set(rangeRequests(entries).map((entry) => queryValues(entry.rawQuery, 'filters[inserted_at][value]').join())).size;

describe('Personnel Data: Return All in inserted_at ranges', () => {
	const bed = useTestBed();
	const sim = () => bed.simulator.sim;
	// Ranges even on loopback, where they would not pay (rangedWalk.ts).
	beforeAll(() => (rangeTiming.worthWaitingShare = 0));
	afterAll(() => (rangeTiming.worthWaitingShare = Number.POSITIVE_INFINITY));

	beforeAll(() => {
		// At least 1,500 employees: well past the pages read with one cursor before ranges start.
		const missing = 1_500 - sim().getRecords('employees').length;
		if (missing > 0) sim().createRecords('employees', missing, { restricted: false });
	});

	it.each(['asc', 'desc'] as const)('%s: the same records in the same order as one cursor, with ranges in flight together', async (direction) => {
		const reference = jsonOf(await run(bed, oneCursor(direction)));
		const referenceRequests = apiRequests(bed).length;
		const ranged = await run(bed, ordered(direction));
		expect(ranged.error).toBeUndefined();
		expect(jsonOf(ranged)).toEqual(reference);
		const sent = apiRequests(bed);
		expect(rangeRequests(sent).length).toBeGreaterThan(0);
		// The pages, one probe of the other end, and at most one page per boundary more.
		expect(sent.length).toBeLessThanOrEqual(referenceRequests + 1 + (rangesOf(sent) - 1));
	});

	/** A listing of `pages` pages, read at the defaults (ranges wherever they may be used): its pages. */
	async function readShortListing(pages: number): Promise<ReturnType<typeof apiRequests>> {
		const employees = sim().getRecords('employees').filter((record) => !record.deleted_at);
		const wanted = employees.slice(0, PAGE_SIZE_MAX * pages - 1).map((record) => String(record.id));
		const few = ordered('asc', { filters: { filter: [{ field: 'id', operator: 'in', value: wanted.join(',') }] } });
		const reference = jsonOf(await run(bed, ordered('asc', { ...few, returnAll: false, limit: 1_000_000 })));
		expect(apiRequests(bed)).toHaveLength(pages);
		sim().setFaults({ latencyMs: 30, applyToProvisioning: false });
		const result = await run(bed, few);
		expect(result.error).toBeUndefined();
		expect(jsonOf(result)).toEqual(reference);
		return apiRequests(bed);
	}

	it('a listing of two pages costs exactly its pages: no probe, no range', async () => {
		expect(PAGES_BEFORE_RANGES).toBe(2);
		expect(await readShortListing(2)).toHaveLength(2);
	});

	/**
	 * Reads with `parameters` while the simulator adds, hides and touches employees: each employee
	 * at most once, every untouched one there, oldest first, read in ranges.
	 */
	async function readWhileChanging(parameters: INodeParameters): Promise<void> {
		sim().setFaults({ latencyMs: 15, applyToProvisioning: false });
		const before = sim().getRecords('employees').filter((record) => !record.deleted_at);
		const hidden = new Set(before.filter((_, index) => index % 97 === 5).map((record) => record.id));
		const touched = before.filter((_, index) => index % 89 === 3).map((record) => record.id);
		let step = 0;
		const mutating = setInterval(() => {
			step++;
			sim().createRecords('employees', 3, { restricted: false });
			if (step === 2) sim().deleteRecords('employees', [...hidden]);
			if (step === 3) sim().touchRecords('employees', touched);
		}, 20);
		try {
			const result = await run(bed, parameters);
			expect(result.error).toBeUndefined();
			const records = jsonOf(result);
			const ids = idsOf(records);
			expect(new Set(ids).size).toBe(ids.length);
			const times = records.map((record) => Date.parse(String(record.inserted_at)));
			expect(times).toEqual([...times].sort((a, b) => a - b));
			const seen = new Set(ids);
			const untouched = before.filter((record) => !hidden.has(record.id));
			expect(untouched.filter((record) => !seen.has(record.id))).toEqual([]);
			expect(rangeRequests(apiRequests(bed)).length).toBeGreaterThan(0);
		} finally {
			clearInterval(mutating);
		}
	}

	it('a server that adds, changes and hides employees during the read: each employee at most once, the untouched ones all there, in order', async () => {
		await readWhileChanging(ordered('asc'));
	});

	it('a server that refuses the range filter (400): read again with one cursor, the same answer', async () => {
		const reference = jsonOf(await run(bed, oneCursor('asc')));
		sim().queueFault({ pathPrefix: '/v1/org/employees', method: 'GET', status: 400, count: 1, queryIncludes: 'filters%5Binserted_at%5D' });
		const result = await run(bed, ordered('asc'));
		expect(result.error).toBeUndefined();
		expect(idsOf(jsonOf(result))).toEqual(idsOf(reference));
	});

	it('one cursor where ranges cannot keep the answer: a filter on inserted_at given by the user, another order, a select without inserted_at', async () => {
		const cases: INodeParameters[] = [
			ordered('asc', { filters: { filter: [{ field: 'inserted_at', operator: 'gte', value: '2000-01-01T00:00:00Z' }] } }),
			{ ...ordered('asc'), options: { orderBy: 'last_name', orderDirection: 'asc' } },
			{ ...ordered('asc'), options: { orderBy: 'inserted_at', orderDirection: 'asc', select: ['first_name'] } },
		];
		for (const parameters of cases) {
			const result = await run(bed, parameters);
			expect(result.error?.message).toBeUndefined();
			expect(rangeRequests(apiRequests(bed)).filter((entry) => (entry.query as IDataObject)?.filters !== undefined && !String(entry.rawQuery).includes('%5Bop%5D=gte&filters%5Binserted_at%5D%5Bvalue%5D=2000'))).toHaveLength(0);
		}
	});

	describe('without an order (the default): the node chooses inserted_at', () => {
		const atDefaults: INodeParameters = { resource: 'employee', operation: 'getMany', returnAll: true, simplify: false };
		const unorderedCursor: INodeParameters = { ...atDefaults, returnAll: false, limit: 1_000_000 };
		const sortedIds = (records: IDataObject[]) => idsOf(records).sort();
		const oldestFirst = (records: IDataObject[]) => {
			const times = records.map((record) => Date.parse(String(record.inserted_at)));
			return times.every((time, index) => index === 0 || times[index - 1] <= time);
		};

		it('the same employees as one cursor, each once, oldest first, read in ranges in flight together', async () => {
			const reference = jsonOf(await run(bed, unorderedCursor));
			const referenceRequests = apiRequests(bed).length;
			const ranged = await run(bed, atDefaults);
			expect(ranged.error).toBeUndefined();
			const records = jsonOf(ranged);
			expect(sortedIds(records)).toEqual(sortedIds(reference));
			expect(new Set(idsOf(records)).size).toBe(records.length);
			expect(oldestFirst(records)).toBe(true);
			const sent = apiRequests(bed);
			expect(rangeRequests(sent).length).toBeGreaterThan(0);
			expect(sent.every((entry) => queryValues(entry.rawQuery, 'order[field]').join() === 'inserted_at')).toBe(true);
			expect(sent.length).toBeLessThanOrEqual(referenceRequests + 1 + (rangesOf(sent) - 1));
		});

		it('a Limit without an order sends no order: the API\'s own order, one cursor', async () => {
			await run(bed, { ...atDefaults, returnAll: false, limit: 250 });
			const sent = apiRequests(bed);
			expect(sent.length).toBeGreaterThan(0);
			expect(sent.flatMap((entry) => queryValues(entry.rawQuery, 'order[field]'))).toEqual([]);
			expect(rangeRequests(sent)).toEqual([]);
		});

		it('while the simulator adds, changes and hides employees: each at most once, the untouched ones all there, oldest first', async () => {
			await readWhileChanging(atDefaults);
		});

		it('a server that refuses the order or the range filter (400): one cursor without an order, as asked', async () => {
			const reference = jsonOf(await run(bed, unorderedCursor));
			sim().queueFault({ pathPrefix: '/v1/org/employees', method: 'GET', status: 400, count: 1, queryIncludes: 'filters%5Binserted_at%5D' });
			const result = await run(bed, atDefaults);
			expect(result.error).toBeUndefined();
			expect(idsOf(jsonOf(result))).toEqual(idsOf(reference));
			const last = apiRequests(bed).at(-1);
			expect(queryValues(last?.rawQuery ?? '', 'order[field]')).toEqual([]);
		});

		it('Max Requests bounds the ranged read as it bounds one cursor', async () => {
			const result = await run(bed, { ...atDefaults, options: { maxRequests: 4 } });
			expect(result.error?.message).toMatch(/Max Requests is 4/);
			expect(apiRequests(bed).length).toBeLessThanOrEqual(4);
		});
	});
});
