import { compareTimestamps, minusMs, timestampKey } from '../../nodes/shared/timestamps';

describe('timestamps', () => {
	it('orders microseconds that a Date would lose', () => {
		expect(compareTimestamps('2026-11-23T07:38:50.123456Z', '2026-11-23T07:38:50.123457Z')).toBe(-1);
		expect(compareTimestamps('2026-11-23T07:38:50.123457Z', '2026-11-23T07:38:50.123456Z')).toBe(1);
	});

	it('treats different fraction lengths and offsets as the same instant', () => {
		expect(compareTimestamps('2026-11-23T07:38:50Z', '2026-11-23T07:38:50.000000Z')).toBe(0);
		expect(compareTimestamps('2026-11-23T08:38:50.5+01:00', '2026-11-23T07:38:50.500Z')).toBe(0);
		expect(compareTimestamps('2026-11-23T07:38:50Z', '2026-11-23T07:38:50.1Z')).toBe(-1);
	});

	it('builds sortable keys', () => {
		expect(timestampKey('2026-11-23T07:38:50.12Z')).toBe('2026-11-23T07:38:50.120000000');
	});

	it('moves a timestamp back for a look-back window', () => {
		expect(minusMs('2026-11-23T07:38:50.123456Z', 60_000)).toBe('2026-11-23T07:37:50.123Z');
	});
});
