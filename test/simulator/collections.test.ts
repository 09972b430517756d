import { WATCHABLE } from '../../nodes/PersonnelDataTrigger/description';
import type { ResourcePaths } from '../../nodes/shared/registry';
import { RESOURCES } from '../../nodes/shared/registry';
import { API_ROUTES } from '../../scripts/simulator/api';
import { COLLECTION_OF, collectionOf } from '../../scripts/simulator/collections';
import { Router } from '../../scripts/simulator/routing';
import { Simulator } from '../../scripts/simulator/simulator';
import { Collection, MAX_CACHED_VIEWS } from '../../scripts/simulator/store';
import { RESOURCE_NAMES } from '../../scripts/simulator/types';

/** The HTTP method of each kind of path in the registry (a new kind of path must say its method here). */
const METHOD_OF: Record<keyof ResourcePaths, string> = {
	list: 'GET',
	get: 'GET',
	shape: 'POST',
	create: 'POST',
	update: 'PATCH',
	replace: 'PUT',
	createOrUpdate: 'POST',
};

const router = new Router(API_ROUTES);
let simulator: Simulator | undefined;
/** A freshly seeded simulator (in process: its records, not its HTTP server). */
const seeded = (): Simulator => (simulator ??= new Simulator());
const SOME_ID = '00000000-0000-4000-8000-000000000001';

describe('the simulator serves every resource of the registry', () => {
	it('maps each resource of RESOURCES to a collection, and nothing else', () => {
		const missing = RESOURCES.map((resource) => resource.value).filter((value) => COLLECTION_OF[value] === undefined);
		expect(missing).toEqual([]);
		expect(Object.keys(COLLECTION_OF).sort()).toEqual(RESOURCES.map((resource) => resource.value).sort());
		expect(Object.values(COLLECTION_OF).every((collection) => (RESOURCE_NAMES as readonly string[]).includes(collection))).toBe(true);
	});

	it('a resource without a collection is an error that says where to add it', () => {
		expect(() => collectionOf('payslip')).toThrow('scripts/simulator/collections.ts');
	});

	it.each(WATCHABLE.map((resource) => [resource.value, resource] as const))(
		'%s: the records the trigger watches carry the registry\'s change timestamps',
		(_value, resource) => {
			const records = seeded().getRecords(collectionOf(resource.value));
			expect(records.length).toBeGreaterThan(0);
			const { deleted, ...always } = resource.changeFields ?? { created: '' };
			const fields = Object.values(always);
			expect(fields.length).toBeGreaterThan(0);
			const timestamp = /^\d{4}-\d\d-\d\dT/;
			for (const record of records) for (const field of fields) expect(record[field]).toMatch(timestamp);
			if (deleted === undefined) return;
			// Only deleted records carry the deletion time, and the seed has some.
			for (const record of records) if (record[deleted] !== null) expect(record[deleted]).toMatch(timestamp);
			expect(records.some((record) => record[deleted] !== null)).toBe(true);
		},
	);

	const paths = RESOURCES.flatMap((resource) =>
		(Object.entries(resource.paths) as Array<[keyof ResourcePaths, string]>).map(
			([kind, path]) => [resource.value, kind, `${METHOD_OF[kind]} ${path}`] as const,
		),
	);

	it.each(paths)('%s: the %s path (%s) is a route of its collection', (resource, kind, request) => {
		const [method, template] = request.split(' ');
		const match = router.match(method, template.replace('{id}', SOME_ID));
		if (match.kind !== 'found') throw new Error(`The simulator does not serve ${request} (${resource}.${kind}): ${match.kind}`);
		expect(match.route.kind.startsWith(`${collectionOf(resource)}.`)).toBe(true);
	});
});

describe('the simulator caches its views', () => {
	it('past its size, the least recently used view goes: the sorted view every filtered view is cut from is sorted once however many ranges ask', () => {
		const collection = new Collection('employees');
		let sorts = 0;
		const sorted = () =>
			collection.view('sorted', () => {
				sorts++;
				return [];
			});
		for (let index = 0; index < MAX_CACHED_VIEWS * 3; index++) collection.view(`filtered ${index}`, () => sorted());
		expect(sorts).toBe(1);
		let recomputed = 0;
		const computeAgain = () => {
			recomputed++;
			return [];
		};
		collection.view('filtered 0', computeAgain);
		collection.view(`filtered ${MAX_CACHED_VIEWS * 3 - 1}`, computeAgain);
		// The oldest filtered view was dropped, the newest kept.
		expect(recomputed).toBe(1);
	});
});
