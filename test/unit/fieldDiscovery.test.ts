import { observeRecords } from '../../nodes/shared/fields/discover';

describe('what a page of records shows about its fields', () => {
	it('top-level keys and dated properties, each with the one type its values showed', () => {
		const observed = observeRecords([
			{
				id: '3f2b8c1e-5d4a-4e7b-9c1d-2a6f8e0b7c9d',
				start: '2021-03-01',
				seen_at: '2026-01-02T03:04:05.123456Z',
				hours: 40,
				note: null,
				mixed: 'text',
				properties: { custom_properties: { a: 1 }, level: [{ valid_from: null, value: 3 }], tags: ['x'] },
			},
			{ id: '0b7c9d3f-2b8c-4e7b-9c1d-2a6f8e0b7c9d', start: '2019-12-31', mixed: 5, extra: true, properties: { level: [{ valid_from: '2024-01-01', value: null }] } },
		]);
		expect(observed.sampled).toBe(true);
		expect(Object.fromEntries(observed.fields)).toEqual({
			id: 'uuid',
			start: 'date',
			seen_at: 'dateTime',
			hours: 'number',
			note: undefined, // only nulls: nothing known
			mixed: undefined, // text and a number: nothing known
			extra: 'boolean',
			properties: 'object',
		});
		// A list that is not of {valid_from, value} entries is not a dated property.
		expect(Object.fromEntries(observed.datedProperties)).toEqual({ level: 'number' });
	});

	it.each([
		['no records', []],
		['not a list', { data: [] }],
		['a list with a non-object', [{ id: 'a' }, 'b']],
		['nothing', undefined],
	])('%s: nothing is discovered', (_what, page) => {
		const observed = observeRecords(page);
		expect(observed.sampled).toBe(false);
		expect(observed.fields.size + observed.datedProperties.size).toBe(0);
	});
});
