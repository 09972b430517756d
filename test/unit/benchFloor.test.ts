import { floorRoundTrips } from '../../bench/latency';

describe('the latency benchmark\'s floor column', () => {
	it('Return All at the defaults: the pages 32 at once plus one to learn the end; one cursor: one a page; Get by ID: its list requests 10 at once', () => {
		expect(floorRoundTrips('pdSimplifyOn', 10_000)).toBe(1 + 4);
		expect(floorRoundTrips('pdOrdered', 100_000)).toBe(1 + 32);
		expect(floorRoundTrips('pdOrderedByName', 10_000)).toBe(100);
		expect(floorRoundTrips('pdGetById', 1_000)).toBe(1);
		expect(floorRoundTrips('http', 10_000)).toBeUndefined();
	});
});
