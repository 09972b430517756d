import type { WatchState } from '../../nodes/PersonnelDataTrigger/watchFields';
import { Baseline, compareWatched, readWatchSetup, WATCH_RECORDS_MAX } from '../../nodes/PersonnelDataTrigger/watchFields';

const watch = readWatchSetup(['email'], false);
if (!watch) throw new Error('a watch setup was expected');

const CAP_MESSAGE = /Options › Watch Fields: the trigger keeps the watched fields of every record and can keep at most 100,000; more match the filters \(100,001 seen\)/;

describe('Watch Fields: the hard cap on kept records', () => {
	it('a baseline of more than 100,000 records stops with an error naming the option', () => {
		const baseline = new Baseline(watch);
		for (let i = 0; i < WATCH_RECORDS_MAX; i++) baseline.add({ id: `r${i}`, email: `${i}@example.com` });
		expect(Object.keys(baseline.state.records)).toHaveLength(WATCH_RECORDS_MAX);
		// A record seen again replaces its entry and does not count twice.
		baseline.add({ id: 'r0', email: 'again@example.com' });
		expect(() => baseline.add({ id: 'one-more', email: 'x@example.com' })).toThrow(CAP_MESSAGE);
	});

	it('a poll that would make the state pass the cap stops with the same error, before anything is sent', () => {
		const records: WatchState['records'] = {};
		for (let i = 0; i < WATCH_RECORDS_MAX; i++) records[`r${i}`] = ['0000000000000000'];
		const state: WatchState = { key: watch.key, records };
		// Changes of known records are fine at the cap.
		const known = compareWatched(watch, state, [{ id: 'r1', email: 'changed@example.com' }]);
		expect(known.emitted.map((entry) => entry.note.changedFields)).toEqual([['email']]);
		expect(() => compareWatched(watch, state, [{ id: 'new', email: 'new@example.com' }])).toThrow(CAP_MESSAGE);
	});
});

describe('Watch Fields: names', () => {
	it.each([
		[['email'], 'email'],
		['email, properties.title ,custom_properties.badge_number', 'email|properties.title|custom_properties.badge_number'],
		[['email', 'email'], 'email'],
	])('%j watches %s', (given, fields) => {
		expect(readWatchSetup(given, true)?.fields.join('|')).toBe(fields);
	});

	it.each([[''], [[]], [undefined]])('%j watches nothing', (given) => {
		expect(readWatchSetup(given, false)).toBeUndefined();
	});

	it.each(['properties.', 'e mail', 'custom_properties.', 'name;drop'])('"%s" is refused, naming the option and what is expected', (name) => {
		expect(() => readWatchSetup([name], false)).toThrow(`Options › Watch Fields: "${name}" is not a field name; expected a field (email), properties.<name> or custom_properties.<key>`);
	});
});
