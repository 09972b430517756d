import type { IDataObject } from 'n8n-workflow';

import { LIST_REQUESTS_IN_FLIGHT } from '../../../nodes/PersonnelData/actions/read/recordsWhere';
import { forgetRefusals } from '../../../nodes/PersonnelData/actions/read/refusals';
import { RESOURCES } from '../../../nodes/shared/registry';
import { collectionOf } from '../../../scripts/simulator/collections';
import type { ResourceName } from '../../../scripts/simulator/types';
import { useCredential, useTestBed } from '../setup';
import { apiRequests, byId, fromList, idsOf, jsonOf, outputOf, queryValues, run, UNKNOWN_UUID } from './helpers';

type ErrorWithDetails = Error & { description?: string | null; httpCode?: string | null };

describe('Personnel Data: Get and single records', () => {
	const bed = useTestBed();

	const sim = () => bed.simulator.sim;
	const first = (collection: ResourceName) => {
		const restricted = new Set(sim().restrictedIds()[collection]);
		return sim().getRecords(collection).find((record) => !restricted.has(record.id)) as IDataObject & { id: string };
	};

	describe('each resource with Get', () => {
		// Every resource with a Get path, served by its simulator collection (scripts/simulator/collections.ts).
		const cases = RESOURCES.flatMap((resource) =>
			resource.paths.get ? [[resource.value, resource.paths.get.replace('{id}', ''), collectionOf(resource.value)] as const] : [],
		);
		it.each(cases)('%s: GET %s{id} returns the record', async (resource, prefix, collection) => {
			const record = first(collection);
			const result = await run(bed, { resource, operation: 'get', id: byId(record.id), simplify: false });
			expect(jsonOf(result)).toEqual([record]);
			expect(apiRequests(bed).map((entry) => `${entry.method} ${entry.path}`)).toEqual([`GET ${prefix}${record.id}`]);
		});

		it('Organizational Unit: Get uses v2 and never the deprecated v1', async () => {
			const unit = first('orgUnits');
			const result = await run(bed, { resource: 'organizationalUnit', operation: 'get', id: byId(unit.id), simplify: false });
			const [record] = jsonOf(result);
			// The flat v2 shape: properties hold the dated arrays directly, no internal container.
			expect(record.properties).toEqual(unit.properties);
			expect(Object.keys(record.properties as IDataObject)).not.toContain('__container__');
			const requests = apiRequests(bed);
			expect(requests.some((entry) => entry.routeKind === 'orgUnits.getV1' || entry.path.startsWith('/v1/org/organizational-units/'))).toBe(false);
			expect(requests.map((entry) => entry.routeKind)).toEqual(['orgUnits.getV2']);
		});

		it('Employee: Get by the locator\'s "From List" mode, whose list search finds employees', async () => {
			const employee = first('employees');
			const search = await bed.runtime.listSearch({
				nodeType: 'personnelData',
				method: 'searchRecords',
				parameters: { resource: 'employee', operation: 'get' },
				filter: String(employee.last_name),
			});
			expect(search.results.length).toBeGreaterThan(0);
			const hit = search.results.find((result) => result.value === employee.id);
			expect(hit?.name).toContain(String(employee.first_name));
			expect(hit?.name).toContain(String(employee.last_name));
			const searchRequest = apiRequests(bed).at(-1);
			expect(searchRequest?.path).toBe('/v1/org/employees');
			expect(queryValues(searchRequest?.rawQuery ?? '', 'filters[last_name][op]')).toEqual(['ilike']);
			expect(queryValues(searchRequest?.rawQuery ?? '', 'filters[last_name][value]')).toEqual([`%${String(employee.last_name)}%`]);

			const result = await run(bed, { resource: 'employee', operation: 'get', id: fromList(employee.id), simplify: false });
			expect(idsOf(jsonOf(result))).toEqual([employee.id]);
		});

		it('the employee list search also takes an email or "First Last"', async () => {
			const employee = first('employees');
			const searchFor = async (filter: string) => {
				const search = await bed.runtime.listSearch({
					nodeType: 'personnelData',
					method: 'searchRecords',
					parameters: { resource: 'employee', operation: 'get' },
					filter,
				});
				return { values: search.results.map((result) => result.value), rawQuery: apiRequests(bed).at(-1)?.rawQuery ?? '' };
			};

			const byEmail = await searchFor(String(employee.email));
			expect(byEmail.values).toContain(employee.id);
			expect(queryValues(byEmail.rawQuery, 'filters[email][value]')).toEqual([`%${String(employee.email)}%`]);

			const byName = await searchFor(`${String(employee.first_name)} ${String(employee.last_name)}`);
			expect(byName.values).toContain(employee.id);
			expect(queryValues(byName.rawQuery, 'filters[first_name][value]')).toEqual([`%${String(employee.first_name)}%`]);
			expect(queryValues(byName.rawQuery, 'filters[last_name][value]')).toEqual([`%${String(employee.last_name)}%`]);
		});

		it('the list search pages with the API\'s cursor', async () => {
			const page1 = await bed.runtime.listSearch({ nodeType: 'personnelData', method: 'searchRecords', parameters: { resource: 'employee' } });
			expect(page1.results).toHaveLength(50);
			expect(page1.paginationToken).toBeTruthy();
			const page2 = await bed.runtime.listSearch({
				nodeType: 'personnelData',
				method: 'searchRecords',
				parameters: { resource: 'employee' },
				paginationToken: String(page1.paginationToken),
			});
			expect(page2.results).toHaveLength(50);
			const overlap = page2.results.filter((r) => page1.results.some((p) => p.value === r.value));
			expect(overlap).toEqual([]);
		});

		it('the Condition picker lists only conditions of the resource\'s domain', async () => {
			const search = await bed.runtime.listSearch({
				nodeType: 'personnelData',
				method: 'searchConditions',
				parameters: { resource: 'timeReport', operation: 'getMany' },
			});
			expect(search.results.map((result) => result.value)).toEqual([sim().conditionIds().sickLeave]);
		});
	});

	it('the Condition picker tells a role without the Conditions grant to use the ID instead', async () => {
		useCredential(bed, 'limited');
		const failure = await bed.runtime
			.listSearch({ nodeType: 'personnelData', method: 'searchConditions', parameters: { resource: 'employee', operation: 'getMany' } })
			.then(() => undefined, (error: unknown) => error as Error);
		expect(failure?.message).toContain('lacks the Conditions grant');
		expect(failure?.message).toContain('By ID');
		const conditionId = sim().conditionIds().north;
		const result = await run(bed, { resource: 'employee', operation: 'getMany', limit: 5, condition: byId(conditionId) });
		expect(result.error).toBeUndefined();
	});

	describe('Simplify', () => {
		const datedEmployee = (): IDataObject & { id: string } => {
			const [employee] = sim().createRecords('employees', 1, {
				restricted: false,
				overrides: {
					properties: {
						custom_properties: { shirt_size: 'M' },
						title: [
							{ valid_from: '2027-01-01', value: 'Director' },
							{ valid_from: '2025-06-01', value: 'Lead' },
							{ valid_from: null, value: 'Engineer' },
						],
						org_unit_id: [],
						manager_id: [{ valid_from: '2030-01-01', value: UNKNOWN_UUID }],
						employment_type: [{ valid_from: '2020-01-01', value: 'permanent' }],
						cost_center: [],
						work_percentage: [
							{ valid_from: '2026-11-23', value: 80 },
							{ valid_from: '2026-01-01', value: 100 },
						],
					},
				},
			});
			return employee;
		};

		it('flattens dated properties to the value in force on "Dated Values As Of"', async () => {
			const employee = datedEmployee();
			const asOf = async (asOfDate: string) =>
				jsonOf(await run(bed, { resource: 'employee', operation: 'get', id: byId(employee.id), simplify: true, options: { asOfDate } }))[0]
					.properties as IDataObject;

			expect(await asOf('2024-03-01')).toEqual({
				custom_properties: { shirt_size: 'M' },
				title: 'Engineer',
				org_unit_id: null, // an empty history: nothing in force
				manager_id: null,
				employment_type: 'permanent',
				cost_center: null,
				work_percentage: null,
			});
			expect(await asOf('2026-11-22')).toMatchObject({ title: 'Lead', work_percentage: 100 });
			expect(await asOf('2026-11-23T00:00:00')).toMatchObject({ title: 'Lead', work_percentage: 80 });
			expect(await asOf('2027-01-01')).toMatchObject({ title: 'Director' });
		});

		it('defaults to today and is on by default', async () => {
			const employee = datedEmployee();
			const today = new Date().toISOString().slice(0, 10);
			const [record] = jsonOf(await run(bed, { resource: 'employee', operation: 'get', id: byId(employee.id) }));
			const expectedTitle = today >= '2027-01-01' ? 'Director' : today >= '2025-06-01' ? 'Lead' : 'Engineer';
			expect((record.properties as IDataObject).title).toBe(expectedTitle);
		});

		it('returns the raw dated arrays when off, in Get and Get Many', async () => {
			const employee = datedEmployee();
			const [record] = jsonOf(await run(bed, { resource: 'employee', operation: 'get', id: byId(employee.id), simplify: false }));
			expect(record).toEqual(employee);
			const listed = jsonOf(
				await run(bed, {
					resource: 'employee',
					operation: 'getMany',
					simplify: false,
					filters: { filter: [{ field: 'id', operator: 'eq', value: employee.id }] },
				}),
			);
			expect(listed).toEqual([employee]);
			const simplified = jsonOf(
				await run(bed, {
					resource: 'employee',
					operation: 'getMany',
					filters: { filter: [{ field: 'id', operator: 'eq', value: employee.id }] },
					options: { asOfDate: '2025-07-01' },
				}),
			);
			expect((simplified[0].properties as IDataObject).title).toBe('Lead');
		});
	});

	describe('items', () => {
		it('processes every input item and sets pairedItem on every output item', async () => {
			const employees = sim().getRecords('employees').slice(0, 5);
			const result = await run(
				bed,
				{ resource: 'employee', operation: 'get', id: byId('={{ $json.employeeId }}'), simplify: false },
				{ items: employees.map((employee) => ({ json: { employeeId: employee.id } })) },
			);
			const items = outputOf(result).filter((item) => !item.json.error);
			// Limited records are none here: admin sees all.
			expect(items.map((item) => item.json.id)).toEqual(employees.map((employee) => employee.id));
			expect(items.map((item) => item.pairedItem)).toEqual(employees.map((_, index) => ({ item: index })));
		});

		it('Get Many runs once per input item with pairedItem on each record', async () => {
			const result = await run(
				bed,
				{ resource: 'competence', operation: 'getMany', limit: '={{ $json.n }}' },
				{ items: [{ json: { n: 2 } }, { json: { n: 3 } }] },
			);
			const items = outputOf(result);
			expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 0 }, { item: 1 }, { item: 1 }, { item: 1 }]);
		});

		it('the Concurrency option keeps the output in input order (one request per item)', async () => {
			const employees = sim().getRecords('employees').slice(0, 12);
			sim().setFaults({ latencyMs: 40 });
			const result = await run(
				bed,
				{ resource: 'employee', operation: 'get', id: byId('={{ $json.employeeId }}'), simplify: false, options: { concurrency: 6, readInBatches: false } },
				{ items: employees.map((employee) => ({ json: { employeeId: employee.id } })) },
			);
			const items = outputOf(result);
			expect(items.map((item) => item.json.id)).toEqual(employees.map((employee) => employee.id));
			expect(items.map((item) => item.pairedItem)).toEqual(employees.map((_, index) => ({ item: index })));
			// Requests really overlapped (each is held 40 ms by the simulator), never more than six.
			const spans = apiRequests(bed).map((entry) => {
				const start = Date.parse(entry.at);
				return [start, start + entry.durationMs] as const;
			});
			const inFlight = spans.map(([start]) => spans.filter(([s, e]) => s <= start && start < e).length);
			expect(Math.max(...inFlight)).toBeGreaterThan(1);
			expect(Math.max(...inFlight)).toBeLessThanOrEqual(6);
		});
	});

	describe('several items: read in batches through the list', () => {
		beforeEach(() => forgetRefusals());
		afterEach(() => forgetRefusals());

		const getEach = async (ids: readonly string[], more: IDataObject = {}, options: { continueOnFail?: boolean; resource?: string } = {}) =>
			await run(
				bed,
				{ resource: options.resource ?? 'employee', operation: 'get', id: byId('={{ $json.id }}'), simplify: false, ...more },
				{ items: ids.map((id) => ({ json: { id } })), continueOnFail: options.continueOnFail },
			);
		const describeRequests = () => apiRequests(bed).map((entry) => `${entry.method} ${entry.path}`);
		const employeeIds = (count: number) =>
			sim()
				.getRecords('employees')
				.slice(0, count)
				.map((record) => String(record.id));

		it('250 items in three list requests of at most 100 ids, each record to its item in input order', async () => {
			const employees = sim().getRecords('employees').slice(0, 250);
			const ids = employees.map((record) => String(record.id));
			// An id named by several items (once in another case) is read once.
			const asked = [...ids, ids[3], ids[200].toUpperCase()];
			const items = outputOf(await getEach(asked));
			expect(items.map((item) => item.json)).toEqual([...employees, employees[3], employees[200]]);
			expect(items.map((item) => item.pairedItem)).toEqual(asked.map((_, index) => ({ item: index })));
			// Items naming one record get their own copies.
			expect(items[250].json).not.toBe(items[3].json);

			expect(describeRequests()).toEqual(Array(3).fill('GET /v1/org/employees'));
			const sent = apiRequests(bed).map((entry) => queryValues(entry.rawQuery, 'filters[id][value][]'));
			// Several list requests at a time: they may arrive in any order.
			expect(sent.map((values) => values.length).sort((a, b) => a - b)).toEqual([50, 100, 100]);
			expect(new Set(sent.flat()).size).toBe(250);
			expect(apiRequests(bed).every((entry) => queryValues(entry.rawQuery, 'filters[id][op]').join() === 'in')).toBe(true);
		});

		it('the list requests go up to ten at a time, whatever the Concurrency', async () => {
			sim().reset({ sizes: { employees: 1_200 } });
			const ids = employeeIds(1_200);
			// Answers held 300 ms: the ten list requests are all out before the first answer comes,
			// also on a machine busy with other work (20 ms was not, under CI's parallel lanes).
			sim().setFaults({ latencyMs: 300, applyToProvisioning: false });
			const mostInFlight = () => {
				const spans = apiRequests(bed).map((entry) => [Date.parse(entry.at), Date.parse(entry.at) + entry.durationMs] as const);
				return Math.max(...spans.map(([start]) => spans.filter(([s, e]) => s <= start && start < e).length));
			};
			try {
				expect(outputOf(await getEach(ids)).map((item) => item.json.id)).toEqual(ids);
				expect(apiRequests(bed)).toHaveLength(12);
				expect(mostInFlight()).toBe(LIST_REQUESTS_IN_FLIGHT);
				expect(outputOf(await getEach(ids, { options: { concurrency: 5 } })).map((item) => item.json.id)).toEqual(ids);
				expect(mostInFlight()).toBe(LIST_REQUESTS_IN_FLIGHT);
			} finally {
				sim().setFaults({ latencyMs: 0 });
				sim().reset({ sizes: {} });
			}
		});

		it('Simplify and Dated Values As Of apply to each item as before', async () => {
			const ids = employeeIds(4);
			const asOf = ['2024-01-01', '2026-06-01', '2024-01-01', '2026-06-01'];
			const result = await run(
				bed,
				{ resource: 'employee', operation: 'get', id: byId('={{ $json.id }}'), simplify: true, options: { asOfDate: '={{ $json.asOf }}' } },
				{ items: ids.map((id, index) => ({ json: { id, asOf: asOf[index] } })) },
			);
			const batched = jsonOf(result);
			expect(describeRequests()).toEqual(['GET /v1/org/employees']);
			for (const [index, id] of ids.entries()) {
				const single = jsonOf(await run(bed, { resource: 'employee', operation: 'get', id: byId(id), simplify: true, options: { asOfDate: asOf[index] } }));
				expect(batched[index]).toEqual(single[0]);
			}
		});

		it.each([
			['timeReport', 'timeReports', '/v1/org/time-reports'],
			['competence', 'competences', '/v1/org/competences'],
		] as const)('%s: the same records as one Get each, in one list request', async (resource, collection, listPath) => {
			const records = sim().getRecords(collection).slice(0, 5);
			const items = jsonOf(await getEach(idsOf(records), {}, { resource }));
			expect(items).toEqual(records);
			expect(describeRequests()).toEqual([`GET ${listPath}`]);
		});

		it('Organizational Unit keeps one v2 request per item (its list is v1)', async () => {
			const units = sim().getRecords('orgUnits').slice(0, 3);
			expect(jsonOf(await getEach(idsOf(units), {}, { resource: 'organizationalUnit' }))).toEqual(units);
			expect(apiRequests(bed).map((entry) => entry.routeKind)).toEqual(Array(3).fill('orgUnits.getV2'));
		});

		it('one item, or several naming one record: one Get as before', async () => {
			const [id] = employeeIds(1);
			outputOf(await getEach([id, id, id.toUpperCase()]));
			expect(describeRequests()).toEqual([id, id, id.toUpperCase()].map((asked) => `GET /v1/org/employees/${asked}`));
		});

		describe('a record the list leaves out is asked for on its own: its item gets the exact error', () => {
			const mixed = () => {
				const restricted = sim().restrictedIds().employees;
				const allowed = sim()
					.getRecords('employees')
					.map((record) => String(record.id))
					.filter((id) => !restricted.includes(id))
					.slice(0, 4);
				// Items 2 and 4 fail: a record the role may not read (403), one that does not exist (404).
				return { ids: [allowed[0], restricted[0], allowed[1], UNKNOWN_UUID, allowed[2], restricted[1]], restricted, allowed };
			};

			it('Continue: error items where the records are missing, the rest from one list request', async () => {
				useCredential(bed, 'limited');
				const { ids } = mixed();
				const items = outputOf(await getEach(ids, {}, { continueOnFail: true }));
				expect(items.map((item) => item.pairedItem)).toEqual(ids.map((_, index) => ({ item: index })));
				expect(items.map((item) => item.json.id ?? null)).toEqual([ids[0], null, ids[2], null, ids[4], null]);
				expect(items[1].json.error).toBe(`Access to Employee ${ids[1]} is forbidden for this credential's role`);
				expect((items[1].error as ErrorWithDetails | undefined)?.httpCode).toBe('403');
				expect(items[3].json.error).toBe(`Employee ${UNKNOWN_UUID} was not found`);
				expect((items[3].error as ErrorWithDetails | undefined)?.httpCode).toBe('404');
				expect((items[5].error as ErrorWithDetails | undefined)?.httpCode).toBe('403');
				expect(describeRequests()).toEqual([
					'GET /v1/org/employees',
					`GET /v1/org/employees/${ids[1]}`,
					`GET /v1/org/employees/${ids[3]}`,
					`GET /v1/org/employees/${ids[5]}`,
				]);
			});

			it('Stop: the node fails on the first failing item in input order, asking for no later one', async () => {
				useCredential(bed, 'limited');
				const { ids } = mixed();
				const result = await getEach(ids);
				expect(result.error?.message).toBe(`Access to Employee ${ids[1]} is forbidden for this credential's role`);
				expect((result.error as ErrorWithDetails).httpCode).toBe('403');
				expect(describeRequests()).toEqual(['GET /v1/org/employees', `GET /v1/org/employees/${ids[1]}`]);
			});
		});

		it('Read in Batches off: one request per item, in input order', async () => {
			const ids = employeeIds(5);
			expect(idsOf(jsonOf(await getEach(ids, { options: { readInBatches: false } })))).toEqual(ids);
			expect(describeRequests()).toEqual(ids.map((id) => `GET /v1/org/employees/${id}`));
		});

		describe('a server that refuses filters[id]', () => {
			const refuseIdFilter = () => sim().queueFault({ pathPrefix: '/v1/org/employees', queryIncludes: 'filters%5Bid%5D', status: 400, count: 1_000 });

			it('falls back to one request per item (Concurrency applies) and remembers it for the credential', async () => {
				refuseIdFilter();
				const ids = employeeIds(150);
				// Answers held 300 ms: the ten list requests are all out before the first answer comes,
			// also on a machine busy with other work (20 ms was not, under CI's parallel lanes).
			sim().setFaults({ latencyMs: 300, applyToProvisioning: false });
				const first = outputOf(await getEach(ids, { options: { concurrency: 5 } }));
				expect(first.map((item) => item.json.id)).toEqual(ids);
				expect(first.map((item) => item.pairedItem)).toEqual(ids.map((_, index) => ({ item: index })));
				// The refused list requests (a 400 is not retried; the two chunks went out together under
				// Concurrency 5, no further one after the refusal), then one Get per item, five at a time.
				const lists = apiRequests(bed).filter((entry) => entry.path === '/v1/org/employees');
				expect(lists.map((entry) => entry.status)).toEqual([400, 400]);
				const requests = apiRequests(bed).filter((entry) => entry.path !== '/v1/org/employees');
				expect(requests.map((entry) => entry.path).sort()).toEqual(ids.map((id) => `/v1/org/employees/${id}`).sort());
				const spans = requests.map((entry) => [Date.parse(entry.at), Date.parse(entry.at) + entry.durationMs] as const);
				const inFlight = spans.map(([start]) => spans.filter(([s, e]) => s <= start && start < e).length);
				expect(Math.max(...inFlight)).toBeGreaterThan(1);
				expect(Math.max(...inFlight)).toBeLessThanOrEqual(5);

				// The next run with this credential does not ask again.
				const again = outputOf(await getEach(ids.slice(0, 10)));
				expect(again.map((item) => item.json.id)).toEqual(ids.slice(0, 10));
				expect(describeRequests()).toEqual(ids.slice(0, 10).map((id) => `GET /v1/org/employees/${id}`));
			});

			it('another server (another credential) still reads in batches', async () => {
				refuseIdFilter();
				outputOf(await getEach(employeeIds(3)));
				expect(apiRequests(bed)[0].status).toBe(400);
				await bed.restart();
				const ids = employeeIds(3);
				expect(idsOf(jsonOf(await getEach(ids)))).toEqual(ids);
				expect(describeRequests()).toEqual(['GET /v1/org/employees']);
			});
		});
	});

	describe('errors', () => {
		it('403 on one record with Continue On Fail keeps the other items', async () => {
			useCredential(bed, 'limited');
			const restrictedId = sim().restrictedIds().employees[0];
			const allowed = sim()
				.getRecords('employees')
				.filter((record) => !sim().restrictedIds().employees.includes(record.id))
				.slice(0, 2)
				.map((record) => record.id);
			const ids = [allowed[0], restrictedId, allowed[1]];
			const result = await run(
				bed,
				{ resource: 'employee', operation: 'get', id: byId('={{ $json.employeeId }}'), simplify: false },
				{ items: ids.map((employeeId) => ({ json: { employeeId } })), continueOnFail: true },
			);
			const items = outputOf(result);
			expect(items).toHaveLength(3);
			expect(items[0].json.id).toBe(allowed[0]);
			expect(items[2].json.id).toBe(allowed[1]);
			expect(items[1].pairedItem).toEqual({ item: 1 });
			expect(String(items[1].json.error)).toContain(restrictedId);
			expect(String(items[1].json.error)).toMatch(/forbidden/i);
			expect((items[1].error as { httpCode?: string } | undefined)?.httpCode).toBe('403');
		});

		it('403 without Continue On Fail fails naming the record', async () => {
			useCredential(bed, 'limited');
			const restrictedId = sim().restrictedIds().timeReports[0];
			const result = await run(bed, { resource: 'timeReport', operation: 'get', id: byId(restrictedId) });
			expect(result.error).toBeDefined();
			expect(result.error?.message).toContain(`Time Report ${restrictedId}`);
			expect((result.error as ErrorWithDetails).httpCode).toBe('403');
		});

		it('a list under the limited role leaves restricted records out', async () => {
			useCredential(bed, 'limited');
			const result = await run(bed, { resource: 'employee', operation: 'getMany', returnAll: true });
			const ids = idsOf(jsonOf(result));
			const restricted = sim().restrictedIds().employees;
			expect(ids.length).toBe(sim().counts().employees - restricted.length);
			expect(ids.filter((id) => restricted.includes(id))).toEqual([]);
		});

		it.each([
			['employee', 'Employee'],
			['competence', 'Competence'],
			['timeReport', 'Time Report'],
			['fileTransfer', 'File Transfer'],
		])('404 names the record (%s)', async (resource, label) => {
			const result = await run(bed, { resource, operation: 'get', id: byId(UNKNOWN_UUID) });
			expect(result.error?.message).toBe(`${label} ${UNKNOWN_UUID} was not found`);
			expect((result.error as ErrorWithDetails).httpCode).toBe('404');
		});
	});

	describe('File Transfer: Wait for Delivery', () => {
		it('polls until delivered, backing off between polls', async () => {
			const transfer = sim().createFileTransfer({ deliverAfterReads: 3 });
			const started = Date.now();
			const result = await run(bed, {
				resource: 'fileTransfer',
				operation: 'get',
				id: byId(transfer.id),
				options: { waitUntilDone: true, waitInterval: 0.1, waitTimeout: 10 },
			});
			const [record] = jsonOf(result);
			expect(record.status).toBe('delivered');
			expect(record.remote_id).toMatch(/^DOC-/);
			const polls = apiRequests(bed);
			expect(polls).toHaveLength(4);
			expect(polls.every((entry) => entry.path === `/v1/org/file-transfers/${transfer.id}`)).toBe(true);
			// Pauses of 0.1, 0.15 and 0.225 s: at least 0.475 s in all.
			expect(Date.now() - started).toBeGreaterThanOrEqual(450);
			const times = polls.map((entry) => Date.parse(entry.at));
			const gaps = times.slice(1).map((time, index) => time - times[index]);
			expect(gaps[2]).toBeGreaterThan(gaps[0]);
		});

		it('without waiting returns the pending transfer at once', async () => {
			const transfer = sim().createFileTransfer({ deliverAfterReads: 3 });
			const [record] = jsonOf(await run(bed, { resource: 'fileTransfer', operation: 'get', id: byId(transfer.id) }));
			expect(record.status).toBe('pending');
			expect(apiRequests(bed)).toHaveLength(1);
		});

		it('fails with a clear timeout error when it is not delivered in time', async () => {
			const transfer = sim().createFileTransfer({ deliverAfterReads: 1000 });
			const result = await run(bed, {
				resource: 'fileTransfer',
				operation: 'get',
				id: byId(transfer.id),
				options: { waitUntilDone: true, waitInterval: 0.1, waitTimeout: 0.5 },
			});
			expect(result.error?.message).toContain(transfer.id);
			expect(result.error?.message).toContain('"pending"');
			expect(result.error?.message).toContain('"delivered"');
			expect(result.error?.message).toContain('0.5 s');
			expect(apiRequests(bed).length).toBeGreaterThanOrEqual(3);
			expect(apiRequests(bed).length).toBeLessThanOrEqual(6);
		});
	});
});
