/**
 * Personnel Data Trigger on the change feed (changeFeed.ts), over HTTP against the simulator: each
 * sequence issue 42 saw lose or repeat a change, as a named regression test, and what a poll costs.
 */
import type { INodeParameters } from 'n8n-workflow';

import { useTestBed } from '../setup';
import { changePairs, duplicates, emittedPairs, failNthRequest, lastSeq, listRequestsSince, NODE_NAME, poll, pollOk, reshapingProxy, stateBytes, useServer } from './helpers';

const EMPLOYEES: INodeParameters = { resource: 'employee', event: 'createdOrUpdated', simplify: false };
const withOptions = (options: INodeParameters): INodeParameters => ({ ...EMPLOYEES, options });

describe('Personnel Data Trigger: the change feed', () => {
	const bed = useTestBed({}, { per: 'test' });
	const sim = () => bed.simulator.sim;

	/** Polls until `count` polls in a row send nothing; returns every pair sent. */
	async function drain(parameters: INodeParameters, quiet = 2, max = 60): Promise<string[]> {
		const sent: string[] = [];
		let empty = 0;
		for (let i = 0; i < max && empty < quiet; i++) {
			const records = (await pollOk(bed, parameters)).records;
			sent.push(...emittedPairs(records));
			empty = records.length === 0 ? empty + 1 : 0;
		}
		return sent;
	}

	it('a record changed twice in one second with a poll in between, on a server that keeps seconds: both changes are sent, the creation once as created, the change after it as updated', async () => {
		sim().setVariation({ timestampPrecision: 'seconds' });
		expect((await pollOk(bed, EMPLOYEES)).items).toBeNull();
		sim().freezeClock();
		const [record] = sim().createRecords('employees', 1);
		const first = (await pollOk(bed, EMPLOYEES)).records;
		const [again] = sim().touchRecords('employees', [record.id], { changes: { email: 'second@example.com' } });
		sim().unfreezeClock();
		const second = (await pollOk(bed, EMPLOYEES)).records;
		expect(again.updated_at).toBe(record.updated_at);
		expect(first.map((r) => r.email)).toEqual([record.email]);
		expect(second.map((r) => r.email)).toEqual(['second@example.com']);
		// The second version carries inserted_at = updated_at too: the feed knows it is not the first.
		expect(again.inserted_at).toBe(again.updated_at);
		expect(first.map((r) => r._event.type)).toEqual(['created']);
		expect(second.map((r) => r._event.type)).toEqual(['updated']);
	});

	it('a server release that writes records differently (fields added, empty fields left out, ids in capitals) between two polls sends nothing again', async () => {
		expect((await pollOk(bed, EMPLOYEES)).items).toBeNull();
		const created = sim().createRecords('employees', 40);
		expect((await pollOk(bed, EMPLOYEES)).records).toHaveLength(40);
		sim().setVariation({ unknownFields: 'present', emptyOptionalFields: 'absent', uuidCase: 'upper' });
		// Within the settle window every poll reads the 40 again: none of them is a change.
		for (let i = 0; i < 3; i++) expect((await pollOk(bed, EMPLOYEES)).items).toBeNull();
		const [changed] = sim().touchRecords('employees', [created[0].id], { changes: { phone1: '+46 70 999 99 99' } });
		const after = (await pollOk(bed, EMPLOYEES)).records;
		expect(after.map((record) => String(record.id).toLowerCase())).toEqual([changed.id.toLowerCase()]);
	});

	it('a bulk import in one second that a capped poll reads part of, while the rest is written at that second: each record once', async () => {
		sim().setVariation({ timestampPrecision: 'seconds' });
		const parameters = withOptions({ maxChangesPerPoll: 150 });
		expect((await pollOk(bed, parameters)).items).toBeNull();
		sim().freezeClock();
		const early = sim().createRecords('employees', 400);
		const cut = (await pollOk(bed, parameters)).records;
		const late = sim().createRecords('employees', 400);
		// Records sent already change again in the same second.
		const touched = sim().touchRecords('employees', early.slice(0, 20).map((r) => r.id), { changes: { phone1: '+46 70 111 11 11' } });
		sim().unfreezeClock();
		const sentBefore = new Set(emittedPairs(cut));
		const sent = [...sentBefore, ...(await drain(parameters))];
		// Pairs as the API lists them (seconds): ids are what tell the records apart here.
		const idOf = (pair: string) => pair.slice(0, pair.indexOf('@'));
		const expected = [...early, ...late].map((r) => r.id);
		// Those of the 20 touched that were sent before their touch come again with it (same id and second, other content).
		const cutIds = new Set(cut.map((r) => r.id));
		const again = touched.filter((r) => cutIds.has(r.id));
		expect(again.length).toBeGreaterThan(0);
		expect(sent.length).toBe(expected.length + again.length);
		expect(new Set(sent.map(idOf))).toEqual(new Set(expected));
	});

	it('with a Condition: a new record at the second of the last one sent, while a record the Condition rejects changes again, comes once', async () => {
		sim().setVariation({ timestampPrecision: 'seconds' });
		const parameters: INodeParameters = { ...EMPLOYEES, condition: { __rl: true, mode: 'id', value: sim().conditionId('North office staff') } };
		expect((await pollOk(bed, parameters)).items).toBeNull();
		sim().freezeClock();
		const [passing, rejected, later] = sim().createRecords('employees', 3);
		sim().touchRecords('employees', [passing.id], { changes: { email: 'passing@north.example' } });
		sim().touchRecords('employees', [rejected.id, later.id], { changes: { email: 'elsewhere@south.example' } });
		const first = (await pollOk(bed, parameters)).records;
		// The same second: the rejected record changes again, and another record now passes.
		sim().touchRecords('employees', [rejected.id], { changes: { phone1: '+46 70 222 22 22' } });
		sim().touchRecords('employees', [later.id], { changes: { email: 'later@north.example' } });
		sim().unfreezeClock();
		const rest = await drain(parameters);
		expect(first.map((r) => r.id)).toEqual([passing.id]);
		expect(rest.map((pair) => pair.slice(0, pair.indexOf('@')))).toEqual([later.id]);
	});

	it('activation over a large newest group whose cursor the server refuses: the activation completes, sends nothing old, and later changes come once', async () => {
		sim().freezeClock();
		sim().createRecords('employees', 1_200);
		sim().unfreezeClock();
		// A request of the activation's listing that carries a cursor is refused (as expired).
		const restore = failNthRequest(sim(), '/v1/org/employees', 3, { status: 410, count: 1 });
		expect((await pollOk(bed, EMPLOYEES)).items).toBeNull();
		const old = await drain(EMPLOYEES);
		restore();
		const later = sim().createRecords('employees', 5);
		const sent = await drain(EMPLOYEES);
		expect(old).toEqual([]);
		expect(sent).toHaveLength(later.length);
		expect(new Set(sent)).toEqual(new Set(changePairs(later)));
	});

	it('ties in a new order on every walk, a group of 500 cut by Max Changes per Poll 50, records added to the group meanwhile: each once', async () => {
		sim().setVariation({ timestampPrecision: 'seconds', sameValueOrder: 'randomPerWalk' });
		const parameters = withOptions({ maxChangesPerPoll: 50 });
		expect((await pollOk(bed, parameters)).items).toBeNull();
		sim().freezeClock();
		const group = sim().createRecords('employees', 500);
		const sent = emittedPairs((await pollOk(bed, parameters)).records);
		const added = sim().createRecords('employees', 100);
		sim().unfreezeClock();
		sent.push(...(await drain(parameters, 2, 80)));
		expect(duplicates(sent)).toEqual([]);
		// The API lists seconds: ids tell the records apart.
		expect(new Set(sent.map((pair) => pair.slice(0, pair.indexOf('@'))))).toEqual(new Set([...group, ...added].map((r) => r.id)));
	});

	it('the server refuses the cursor in the middle of a large group: the rest of the group still comes, each once', async () => {
		const parameters = withOptions({ maxChangesPerPoll: 300 });
		expect((await pollOk(bed, parameters)).items).toBeNull();
		sim().freezeClock();
		const group = sim().createRecords('employees', 1_200);
		sim().unfreezeClock();
		const first = emittedPairs((await pollOk(bed, parameters)).records);
		expect(first).toHaveLength(300);
		// The next poll's first request carries the stored cursor: refused as expired.
		const restore = failNthRequest(sim(), '/v1/org/employees', 1, { status: 410, count: 1 });
		const rest = await drain(parameters);
		restore();
		const sent = [...first, ...rest];
		expect(duplicates(sent)).toEqual([]);
		expect(new Set(sent)).toEqual(new Set(changePairs(group)));
	});

	it('Fields to Return, a filter or the condition edited while a large group is delivered: the rest of the group comes, nothing twice', async () => {
		const capped = withOptions({ maxChangesPerPoll: 500 });
		expect((await pollOk(bed, capped)).items).toBeNull();
		sim().freezeClock();
		// Every record of the group passes the filter and the condition set below: what changes is the query.
		const group = sim().createRecords('employees', 2_000, { overrides: { email: 'staff@north.example' } });
		sim().unfreezeClock();
		const sent = emittedPairs((await pollOk(bed, capped)).records);
		const edited = withOptions({ maxChangesPerPoll: 500, select: ['first_name', 'email'] });
		sent.push(...emittedPairs((await pollOk(bed, edited)).records));
		const filtered: INodeParameters = { ...edited, filters: { filter: [{ field: 'last_name', operator: 'ilike', value: '%' }] } };
		sent.push(...emittedPairs((await pollOk(bed, filtered)).records));
		expect(sent.length).toBeLessThan(group.length);
		const conditioned: INodeParameters = { ...filtered, condition: { __rl: true, mode: 'id', value: sim().conditionId('North office staff') } };
		sent.push(...(await drain(conditioned)));
		expect(duplicates(sent)).toEqual([]);
		expect(new Set(sent)).toEqual(new Set(changePairs(group)));
	});

	it('a late commit inside the settle window is sent once; with Settle Window 0 it is not seen', async () => {
		for (const [minutes, sent] of [
			[10, 3],
			[0, 0],
		] as const) {
			const parameters = withOptions({ lookbackMinutes: minutes });
			await pollOk(bed, parameters);
			sim().createRecords('employees', 2);
			const past = new Date(Date.parse(sim().clock.now()) - 120_000).toISOString();
			const late = sim().createLateRecords('employees', 3, past);
			expect((await pollOk(bed, parameters)).records).toHaveLength(2);
			sim().revealRecords('employees');
			const after = await drain(parameters);
			expect(after).toEqual(minutes === 0 ? [] : expect.arrayContaining(changePairs(late)));
			expect(after).toHaveLength(sent);
			bed.runtime.setStaticData('Personnel Data Trigger', {});
		}
	});

	it('records that change during a multi-page walk are changes, not a hostile server: the poll sends them, nothing fails', async () => {
		expect((await pollOk(bed, EMPLOYEES)).items).toBeNull();
		const created = sim().createRecords('employees', 350);
		// While the walk is on its second page, records of its first page change (they move to its end).
		let touched = false;
		const original = sim().faults.decide.bind(sim().faults);
		let seen = 0;
		sim().faults.decide = (method: string, path: string) => {
			if (path.startsWith('/v1/org/employees') && ++seen === 2 && !touched) {
				touched = true;
				sim().touchRecords('employees', created.slice(0, 30).map((r) => r.id));
			}
			return original(method, path);
		};
		const result = await poll(bed, EMPLOYEES);
		sim().faults.decide = original;
		expect(result.error).toBeUndefined();
		const sent = [...emittedPairs(result.records), ...(await drain(EMPLOYEES))];
		expect(duplicates(sent)).toEqual([]);
		const latest = sim().getRecords('employees', created.map((r) => r.id));
		expect(sent).toEqual(expect.arrayContaining(changePairs(latest)));
	});

	it('a server that sends the same record twice in one listing (a cursor that is a position): each change is sent once, and nothing fails', async () => {
		expect((await pollOk(bed, EMPLOYEES)).items).toBeNull();
		const created = sim().createRecords('employees', 150);
		// Every page repeats its first record: the same version twice in one walk.
		const proxy = await reshapingProxy(bed.simulator.baseUrl, (body) => {
			if (Array.isArray(body.data) && body.data.length > 0) body.data.splice(1, 0, body.data[0]);
		});
		try {
			useServer(bed, proxy.baseUrl);
			const sent = await drain(EMPLOYEES);
			expect(duplicates(sent)).toEqual([]);
			expect(new Set(sent)).toEqual(new Set(changePairs(created)));
		} finally {
			await proxy.close();
			useServer(bed, bed.simulator.baseUrl);
		}
	});

	it('a server that does not list oldest first is named in an error (not oldest first); the poll sends nothing and the next one reads the same changes', async () => {
		expect((await pollOk(bed, EMPLOYEES)).items).toBeNull();
		sim().createRecords('employees', 5);
		sim().advanceClock(1000);
		const created = [...sim().createRecords('employees', 5)];
		const proxy = await reshapingProxy(bed.simulator.baseUrl, (body) => {
			if (Array.isArray(body.data)) body.data.reverse();
		});
		try {
			useServer(bed, proxy.baseUrl);
			const result = await poll(bed, EMPLOYEES);
			expect(result.error?.message).toMatch(/^GET \/v1\/org\/employees: the API listed a record changed at \S+ after one changed at \S+: not oldest first$/);
			expect(result.items ?? null).toBeNull();
		} finally {
			await proxy.close();
			useServer(bed, bed.simulator.baseUrl);
		}
		const sent = await drain(EMPLOYEES);
		expect(sent).toHaveLength(10);
		expect(sent).toEqual(expect.arrayContaining(changePairs(created)));
	});

	it('a server whose cursors expire within seconds, inside a group larger than a page: named in an error after 3 refusals in one poll; the poll sends nothing, and once the cursors live the group comes, each once', async () => {
		expect((await pollOk(bed, EMPLOYEES)).items).toBeNull();
		sim().freezeClock();
		const group = sim().createRecords('employees', 250);
		sim().unfreezeClock();
		// Every request that carries a cursor is refused: the walk starts again inside the group and gets no further.
		sim().faults.enqueue({ pathPrefix: '/v1/org/employees', queryIncludes: 'after', status: 410, count: 1_000 });
		const before = JSON.stringify(bed.runtime.staticData(NODE_NAME));
		const result = await poll(bed, EMPLOYEES);
		expect(result.error?.message).toMatch(/^GET \/v1\/org\/employees: the API refused this listing's cursor 3 times in one poll at \S+ without the listing getting further; its cursors expire within seconds$/);
		expect(result.items ?? null).toBeNull();
		expect(JSON.stringify(bed.runtime.staticData(NODE_NAME))).toBe(before);
		sim().faults.clear();
		const sent = await drain(EMPLOYEES);
		expect(duplicates(sent)).toEqual([]);
		expect(sent.sort()).toEqual(changePairs(group).sort());
	});

	it('costs: an idle poll is one request; after a burst the settle window is read again until it has passed, then one request again', async () => {
		expect((await pollOk(bed, EMPLOYEES)).items).toBeNull();
		let from = lastSeq(sim());
		expect((await pollOk(bed, EMPLOYEES)).items).toBeNull();
		expect(listRequestsSince(sim(), from)).toHaveLength(1);
		sim().createRecords('employees', 250);
		expect((await pollOk(bed, EMPLOYEES)).records).toHaveLength(250);
		from = lastSeq(sim());
		expect((await pollOk(bed, EMPLOYEES)).items).toBeNull();
		expect(listRequestsSince(sim(), from)).toHaveLength(3);
		// Eleven minutes on, a new change shows the server's time: the burst has settled (two passes).
		sim().advanceClock(11 * 60);
		sim().createRecords('employees', 1);
		expect((await pollOk(bed, EMPLOYEES)).records).toHaveLength(1);
		await pollOk(bed, EMPLOYEES);
		from = lastSeq(sim());
		expect((await pollOk(bed, EMPLOYEES)).items).toBeNull();
		expect(listRequestsSince(sim(), from)).toHaveLength(1);
		// Nothing can change any more inside the window: the state keeps nothing of the burst.
		expect(stateBytes(bed)).toBeLessThan(1_000);
	});
});
