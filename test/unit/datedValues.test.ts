import { flattenDatedProperties, sortNewestFirst, valueInForce } from '../../nodes/shared/datedValues';

describe('valueInForce', () => {
	const history = [
		{ valid_from: '2027-01-01', value: 'future' },
		{ valid_from: '2025-06-01', value: 'current' },
		{ valid_from: null, value: 'original' },
		{ valid_from: '2024-01-01', value: 'older' },
	];

	it('takes the latest entry that has started, whatever the input order', () => {
		expect(valueInForce(history, '2026-11-23')).toBe('current');
		expect(valueInForce([...history].reverse(), '2026-11-23')).toBe('current');
	});

	it('counts an entry as in force from its valid_from day on', () => {
		expect(valueInForce(history, '2025-06-01')).toBe('current');
		expect(valueInForce(history, '2025-05-31')).toBe('older');
		expect(valueInForce(history, '2027-01-01')).toBe('future');
	});

	it('falls back to the null (beginning of time) entry before every dated one', () => {
		expect(valueInForce(history, '2020-01-01')).toBe('original');
	});

	it('is null when every entry starts later', () => {
		expect(valueInForce([{ valid_from: '2030-01-01', value: 'x' }], '2026-11-23')).toBeNull();
		expect(valueInForce([], '2026-11-23')).toBeNull();
	});
});

describe('sortNewestFirst', () => {
	it('orders newest first and puts the null entry last', () => {
		const sorted = sortNewestFirst([
			{ valid_from: null, value: 0 },
			{ valid_from: '2024-01-01', value: 1 },
			{ valid_from: '2026-01-01', value: 2 },
		]);
		expect(sorted.map((entry) => entry.valid_from)).toEqual(['2026-01-01', '2024-01-01', null]);
	});
});

describe('flattenDatedProperties', () => {
	it('flattens only dated arrays and keeps the rest of the record', () => {
		const record = {
			id: 'a',
			properties: {
				custom_properties: { shoe: 42 },
				title: [
					{ valid_from: '2026-01-01', value: 'Lead' },
					{ valid_from: null, value: 'Engineer' },
				],
				tags: ['x', 'y'],
			},
		};
		expect(flattenDatedProperties(record, '2025-12-31')).toEqual({
			id: 'a',
			properties: { custom_properties: { shoe: 42 }, title: 'Engineer', tags: ['x', 'y'] },
		});
		expect(record.properties.title).toHaveLength(2);
	});

	it('leaves records without properties alone', () => {
		expect(flattenDatedProperties({ id: 'b' }, '2026-01-01')).toEqual({ id: 'b' });
	});
});
