import { createHash } from 'node:crypto';
import { Agent, get } from 'node:http';

import { SimulatorClient } from '../../scripts/simulator/client';
import { evaluateRule } from '../../scripts/simulator/conditions';
import { startSimulator, type RunningSimulator } from '../../scripts/simulator/server';
import type { Json, JsonObject, SimRecord } from '../../scripts/simulator/types';

interface Answer {
	status: number;
	body: JsonObject;
	headers: Headers;
}

interface Page {
	data: SimRecord[];
	pagination: { end_cursor: string | null; start_cursor: string | null; has_next_page: boolean; has_previous_page: boolean; total_count?: number };
}

let running: RunningSimulator;
let control: SimulatorClient;
let admin: string;
let limited: string;

async function call(path: string, init: { method?: string; token?: string | null; body?: Json | string } = {}): Promise<Answer> {
	const headers: Record<string, string> = { 'content-type': 'application/json' };
	const token = init.token === undefined ? admin : init.token;
	if (token) headers.authorization = `Bearer ${token}`;
	const body = init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
	const res = await fetch(`${running.baseUrl}${path}`, { method: init.method ?? 'GET', headers, body });
	return { status: res.status, body: (await res.json()) as JsonObject, headers: res.headers };
}

async function page(path: string, token = admin): Promise<Page> {
	const answer = await call(path, { token });
	if (answer.status !== 200) throw new Error(`${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
	return answer.body as unknown as Page;
}

function firstError(answer: Answer): { domain: string; reason: string; message: string } {
	const errors = answer.body.errors as Array<{ domain: string; reason: string; message: string }>;
	return errors[0];
}

async function provision(jti: string, refreshToken: string): Promise<string> {
	const begin = await call('/provisioning/refresh-token/begin', { method: 'POST', token: null, body: { jti } });
	const salt = (begin.body.data as JsonObject).salt as string;
	const signature = createHash('sha256').update(`${salt}:${refreshToken}`).digest('hex');
	const refresh = await call('/provisioning/refresh-token/refresh', { method: 'POST', token: null, body: { jti, signature } });
	return (refresh.body.data as JsonObject).access_token as string;
}

/** Follows end_cursor until has_next_page is false; returns all ids and the number of requests. */
async function collect(path: string, token = admin, startAfter: string | null = null): Promise<{ ids: string[]; requests: number; pages: Page[] }> {
	const ids: string[] = [];
	const pages: Page[] = [];
	let after: string | null = startAfter;
	for (let requests = 1; ; requests++) {
		const sep = path.includes('?') ? '&' : '?';
		const result: Page = await page(after ? `${path}${sep}pagination[after]=${encodeURIComponent(after)}` : path, token);
		pages.push(result);
		ids.push(...result.data.map((r) => r.id));
		if (!result.pagination.has_next_page) return { ids, requests, pages };
		after = result.pagination.end_cursor;
	}
}

beforeAll(async () => {
	running = await startSimulator({ seed: 7, clockStart: '2026-11-23T07:38:50.123456Z', sizes: { employees: 300 } });
	control = new SimulatorClient(running.baseUrl);
	admin = await provision(running.credentials.admin.jti, running.credentials.admin.refreshToken);
	limited = running.credentials.limited.legacyToken;
});

afterAll(() => running.close());

afterEach(async () => {
	await control.clearFaults();
	running.sim.unfreezeClock();
});

describe('authentication', () => {
	test('provisioned token carries role, ttl and works', async () => {
		const claims = JSON.parse(Buffer.from(admin.split('.')[1], 'base64url').toString()) as JsonObject;
		expect(claims).toMatchObject({ sub: running.credentials.admin.jti, role: 'admin' });
		expect(Number(claims.exp) - Number(claims.iat)).toBe(3600);
		expect((await call('/v1/org/employees')).status).toBe(200);
		const stats = await control.stats();
		expect(stats.provisioning.begin).toBeGreaterThanOrEqual(1);
		expect(stats.provisioning.refresh).toBeGreaterThanOrEqual(1);
	});

	test('bad signature, reused salt, expired salt and unknown jti are 401 with reasons', async () => {
		const { jti, refreshToken } = running.credentials.admin;
		const begin = await call('/provisioning/refresh-token/begin', { method: 'POST', token: null, body: { jti } });
		const salt = (begin.body.data as JsonObject).salt as string;
		const bad = await call('/provisioning/refresh-token/refresh', { method: 'POST', token: null, body: { jti, signature: 'ab'.repeat(32) } });
		expect([bad.status, firstError(bad).reason]).toEqual([401, 'invalid_signature']);
		const signature = createHash('sha256').update(`${salt}:${refreshToken}`).digest('hex');
		const good = await call('/provisioning/refresh-token/refresh', { method: 'POST', token: null, body: { jti, signature } });
		expect(good.status).toBe(200);
		const reused = await call('/provisioning/refresh-token/refresh', { method: 'POST', token: null, body: { jti, signature } });
		expect([reused.status, firstError(reused).reason]).toEqual([401, 'invalid_salt']);
		const unknown = await call('/provisioning/refresh-token/begin', { method: 'POST', token: null, body: { jti: 'nope' } });
		expect([unknown.status, firstError(unknown).reason, unknown.body.message]).toEqual([401, 'unknown_jti', 'Unauthorized']);
		const begin2 = await call('/provisioning/refresh-token/begin', { method: 'POST', token: null, body: { jti } });
		const salt2 = (begin2.body.data as JsonObject).salt as string;
		running.sim.advanceClock(61);
		const late = createHash('sha256').update(`${salt2}:${refreshToken}`).digest('hex');
		const expired = await call('/provisioning/refresh-token/refresh', { method: 'POST', token: null, body: { jti, signature: late } });
		expect(firstError(expired).reason).toBe('invalid_salt');
	});

	test('expired, missing, revoked and legacy tokens', async () => {
		running.sim.setTokenTtl(60);
		const token = await provision(running.credentials.admin.jti, running.credentials.admin.refreshToken);
		running.sim.setTokenTtl(3600);
		expect((await call('/v1/org/jobs/' + running.sim.getRecords('jobs')[0].id, { token })).status).toBe(200);
		running.sim.advanceClock(61);
		const expired = await call('/v1/org/employees', { token });
		expect([expired.status, firstError(expired).reason]).toEqual([401, 'token_expired']);
		const missing = await call('/v1/org/employees', { token: null });
		expect([missing.status, firstError(missing).reason]).toEqual([401, 'invalid_token']);
		const fresh = await control.issueToken('admin');
		await control.revokeTokens();
		expect(firstError(await call('/v1/org/employees', { token: fresh })).reason).toBe('invalid_token');
		expect((await call('/v1/org/employees', { token: running.credentials.admin.legacyToken })).status).toBe(200);
		admin = await provision(running.credentials.admin.jti, running.credentials.admin.refreshToken);
	});
});

describe('errors', () => {
	test('unknown route, wrong method and bad JSON carry the error body', async () => {
		expect((await call('/v1/org/nothing')).body).toMatchObject({ code: 404, message: 'Not Found' });
		const wrong = await call('/v1/org/employees/shape');
		expect([wrong.status, wrong.body.message, wrong.headers.get('allow')]).toEqual([405, 'Method Not Allowed', 'POST']);
		const bad = await call('/v1/org/employees', { method: 'POST', body: '{"data": ' });
		expect([bad.status, firstError(bad).reason]).toEqual([400, 'invalid_json']);
	});
});

describe('pagination', () => {
	test('forward and backward walks return every record once', async () => {
		const forward = await collect('/v1/org/employees?pagination[first]=37&order[field]=last_name&order[direction]=desc');
		const total = forward.pages[0].pagination.total_count;
		expect(new Set(forward.ids).size).toBe(forward.ids.length);
		expect(forward.ids.length).toBe(total);
		const backward: string[] = [];
		let before: string | null = null;
		for (;;) {
			const q: string = before ? `&pagination[before]=${encodeURIComponent(before)}` : '';
			const result = await page(`/v1/org/employees?pagination[last]=37&order[field]=last_name&order[direction]=desc${q}`);
			backward.unshift(...result.data.map((r) => r.id));
			if (!result.pagination.has_previous_page) break;
			before = result.pagination.start_cursor;
		}
		expect(backward).toEqual(forward.ids);
	});

	test('page size is capped at 100 and defaults to 20', async () => {
		expect((await page('/v1/org/employees?pagination[first]=500')).data).toHaveLength(100);
		expect((await page('/v1/org/employees')).data).toHaveLength(20);
	});

	test('a tampered cursor is a 400 naming pagination[after]', async () => {
		const cursor = (await page('/v1/org/employees?pagination[first]=2')).pagination.end_cursor ?? '';
		const text = Buffer.from(cursor, 'base64url').toString().replace('employees', 'employeez');
		const answer = await call(`/v1/org/employees?pagination[after]=${Buffer.from(text).toString('base64url')}`);
		expect(answer.status).toBe(400);
		expect(firstError(answer)).toMatchObject({ domain: 'pagination', reason: 'invalid_cursor' });
		expect(firstError(answer).message).toContain('pagination[after]');
	});

	test('paging continues after the cursor when records are inserted before it', async () => {
		const first = await page('/v1/org/employees?pagination[first]=50');
		running.sim.createRecords('employees', 20);
		const rest = await collect('/v1/org/employees?pagination[first]=100', admin, first.pagination.end_cursor);
		const seen = [...first.data.map((r) => r.id), ...rest.ids];
		expect(new Set(seen).size).toBe(seen.length);
		expect(rest.ids.every((id) => id > (first.data[49].id))).toBe(true);
	});
});

describe('conditions', () => {
	test('bounded scans give short or empty pages and skip nothing', async () => {
		running.sim.setScanLimit(40);
		const ids = await control.conditionIds();
		const rare = running.sim.getRecords('conditions', [ids.rare])[0];
		const result = await collect(`/v1/org/employees?pagination[first]=100&condition_id=${ids.rare}`);
		const today = running.sim.clock.today();
		const expected = running.sim.getRecords('employees').filter((e) => evaluateRule(rare.data_engine, e, today)).map((e) => e.id);
		expect(result.ids).toEqual(expected);
		expect(result.pages.some((p) => p.data.length === 0 && p.pagination.has_next_page)).toBe(true);
		expect(result.pages.every((p) => p.pagination.total_count === undefined)).toBe(true);
		const nobody = await collect(`/v1/org/employees?pagination[first]=100&condition_id=${ids.nobody}`);
		expect(nobody.ids).toEqual([]);
		expect(nobody.requests).toBe(Math.ceil(running.sim.counts().employees / 40));
		running.sim.setScanLimit(250);
	});

	test('backward pagination, other domains and unknown conditions are 400', async () => {
		const ids = await control.conditionIds();
		const last = await call(`/v1/org/employees?pagination[last]=10&condition_id=${ids.north}`);
		expect([last.status, firstError(last).message]).toEqual([400, expect.stringContaining('pagination[last]')]);
		const other = await call(`/v1/org/employees?condition_id=${ids.teams}`);
		expect([other.status, firstError(other).reason]).toEqual([400, 'domain_mismatch']);
		const unknown = await call('/v1/org/employees?condition_id=00000000-0000-4000-8000-000000000000');
		expect([unknown.status, firstError(unknown).reason]).toEqual([400, 'unknown_condition']);
		expect((await call(`/v1/org/organizational-units?condition_id=${ids.teams}`)).status).toBe(200);
	});
});

describe('filters, order and select', () => {
	test.each([
		['filters[email][op]=gt&filters[email][value]=x', 'invalid_operator', 'filters[email][op]: operator "gt" is not allowed; expected one of eq, ilike'],
		['filters[email][value]=x', 'missing_operator', 'filters[email][op]'],
		['filters[email][op]=eq', 'missing_value', 'filters[email][value]'],
		['filters[nope][op]=eq&filters[nope][value]=1', 'unknown_field', 'filters[nope]'],
		['filters[id][op]=eq&filters[id][value]=12', 'invalid_value', 'filters[id][value]'],
		['filters[id][op]=in&filters[id][value]=12', 'invalid_value', 'filters[id][value][]'],
		['filters[updated_at][op]=gt&filters[updated_at][value]=yesterday', 'invalid_value', 'filters[updated_at][value]'],
		['order[field]=email&order[direction]=asc', 'invalid_order_field', 'order[field]'],
		['order[field]=last_name', 'missing_direction', 'order[direction]'],
		['select[]=salary', 'unknown_field', 'select[]'],
	])('%s → 400 %s', async (query, reason, message) => {
		const answer = await call(`/v1/org/employees?${query}`);
		expect(answer.status).toBe(400);
		expect(firstError(answer).reason).toBe(reason);
		expect(firstError(answer).message).toContain(message);
	});

	test('enum, in, ilike and select', async () => {
		expect(firstError(await call('/v1/org/organizational-units?filters[tier][op]=eq&filters[tier][value]=squad')).reason).toBe('invalid_value');
		const two = running.sim.getRecords('employees').slice(0, 2).map((e) => e.id);
		const inList = await page(`/v1/org/employees?filters[id][op]=in&filters[id][value][]=${two[0]}&filters[id][value][]=${two[1]}`);
		expect(inList.data.map((e) => e.id).sort()).toEqual([...two].sort());
		const north = await page('/v1/org/employees?pagination[first]=100&filters[email][op]=ilike&filters[email][value]=%25@NORTH.example');
		expect(north.data.length).toBeGreaterThan(0);
		expect(north.data.every((e) => String(e.email).endsWith('@north.example'))).toBe(true);
		const selected = await page('/v1/org/employees?select[]=email');
		expect(Object.keys(selected.data[0]).sort()).toEqual(['email', 'id']);
	});

	test('timestamp filters compare microseconds', async () => {
		const [a, b] = running.sim.getRecords('employees').slice(0, 2).map((e) => e.id);
		running.sim.touchRecords('employees', [a], { timestamp: '2030-01-01T00:00:00.123456Z' });
		running.sim.touchRecords('employees', [b], { timestamp: '2030-01-01T00:00:00.123457Z' });
		const gt = await page('/v1/org/employees?filters[updated_at][op]=gt&filters[updated_at][value]=2030-01-01T00:00:00.123456Z');
		expect(gt.data.map((e) => e.id)).toEqual([b]);
		const eq = await page('/v1/org/employees?filters[updated_at][op]=eq&filters[updated_at][value]=2030-01-01T01:00:00.123456%2B01:00');
		expect(eq.data.map((e) => e.id)).toEqual([a]);
	});

	test('late records stay hidden until revealed', async () => {
		const [late] = running.sim.createLateRecords('employees', 1, '2020-05-05T05:05:05.000005Z');
		const query = '/v1/org/employees?filters[updated_at][op]=eq&filters[updated_at][value]=2020-05-05T05:05:05.000005Z';
		expect((await page(query)).data).toEqual([]);
		expect((await call(`/v1/org/employees/${late.id}`)).status).toBe(404);
		await control.revealRecords('employees', [late.id]);
		expect((await page(query)).data.map((e) => e.id)).toEqual([late.id]);
	});
});

describe('limited role', () => {
	test('restricted records: 403 on get, omitted from lists; no conditions, no writes', async () => {
		const restricted = (await control.restrictedIds()).employees;
		expect(restricted.length).toBeGreaterThan(0);
		expect((await call(`/v1/org/employees/${restricted[0]}`, { token: limited })).status).toBe(403);
		const seen = await collect('/v1/org/employees?pagination[first]=100', limited);
		const all = await collect('/v1/org/employees?pagination[first]=100');
		expect(seen.ids.some((id) => restricted.includes(id))).toBe(false);
		expect(seen.ids.length).toBe(all.ids.length - restricted.length);
		expect((await call('/v1/org/conditions', { token: limited })).status).toBe(403);
		const create = await call('/v1/org/employees', { method: 'POST', token: limited, body: { data: { first_name: 'A', last_name: 'B' } } });
		expect(create.status).toBe(403);
	});
});

describe('employee writes', () => {
	test.each([
		[{ data: { first_name: 'Ada' } }, 'data.last_name'],
		[{ data: { first_name: 'Ada', last_name: 'L', salary: 1 } }, 'data.salary'],
		[{ data: { first_name: 'Ada', last_name: 'L', id: 'x' } }, 'data.id'],
		[{ data: { first_name: 'Ada', last_name: 'L', properties: { title: [{ valid_from: '2024-01-01', value: 'a' }, { valid_from: '2025-01-01', value: 'b' }] } } }, 'data.properties.title[1].valid_from'],
		[{ data: { first_name: 'Ada', last_name: 'L', properties: { title: [{ valid_from: '2024-01-01', value: 'a' }, { valid_from: '2024-01-01', value: 'b' }] } } }, 'data.properties.title[1].valid_from'],
		[{ data: { first_name: 'Ada', last_name: 'L', properties: { title: [{ valid_from: null, value: 'a' }, { valid_from: null, value: 'b' }] } } }, 'data.properties.title[1].valid_from'],
		[{ data: { first_name: 'Ada', last_name: 'L', properties: { title: [{ valid_from: '2024-02-30', value: 'a' }] } } }, 'data.properties.title[0].valid_from'],
		[{ data: { first_name: 'Ada', last_name: 'L', properties: { work_percentage: [{ valid_from: null, value: 'full' }] } } }, 'data.properties.work_percentage[0].value'],
	])('POST %j → 400 naming %s', async (body, path) => {
		const answer = await call('/v1/org/employees', { method: 'POST', body });
		expect(answer.status).toBe(400);
		expect(firstError(answer).message).toContain(path);
	});

	test('create, patch and put', async () => {
		const title = [{ valid_from: '2026-01-01', value: 'Lead' }, { valid_from: null, value: 'Engineer' }];
		const created = await call('/v1/org/employees', { method: 'POST', body: { data: { first_name: 'Ada', last_name: 'Lovelace', properties: { title, custom_properties: { a: 1, b: 2 } } } } });
		expect(created.status).toBe(201);
		const employee = created.body.data as SimRecord;
		running.sim.advanceClock(1);
		const patched = await call(`/v1/org/employees/${employee.id}`, { method: 'PATCH', body: { data: { email: 'ada@north.example', properties: { custom_properties: { b: 3 } } } } });
		const after = patched.body.data as SimRecord;
		expect(after).toMatchObject({ first_name: 'Ada', email: 'ada@north.example', properties: { title, custom_properties: { a: 1, b: 3 } } });
		expect(String(after.updated_at) > String(employee.updated_at)).toBe(true);
		const put = await call(`/v1/org/employees/${employee.id}`, { method: 'PUT', body: { data: { first_name: 'Ada', last_name: 'King' } } });
		expect(put.body.data).toMatchObject({ last_name: 'King', email: null, properties: { title: [] } });
	});
});

describe('other resources', () => {
	test('file transfer is delivered after N reads', async () => {
		const transfer = await control.createFileTransfer({ deliverAfterReads: 2 });
		const read = async () => (await call(`/v1/org/file-transfers/${transfer.id}`)).body.data as SimRecord;
		expect((await read()).status).toBe('pending');
		expect((await read()).status).toBe('pending');
		const delivered = await read();
		expect(delivered.status).toBe('delivered');
		expect(delivered.remote_id).toEqual(expect.any(String));
		expect(delivered.delivered_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
	});

	test('org unit v1 wraps properties, v2 is flat', async () => {
		const unit = running.sim.getRecords('orgUnits')[0];
		const v1 = (await call(`/v1/org/organizational-units/${unit.id}`)).body.data as JsonObject;
		const v2 = (await call(`/v2/org/organizational-units/${unit.id}?select[]=name`)).body.data as JsonObject;
		expect(Object.keys(v1.properties as JsonObject)).toEqual(['__container__']);
		expect(v2).toEqual({ id: unit.id, name: unit.name });
	});

	test('system time types: create, update, read-only source_system, unknown integration', async () => {
		const integration = running.sim.getRecords('systemIntegrations')[1];
		const path = `/v1/org/time-reports/system-time-types/${integration.id}`;
		const body = { data: { type_name: 'Vacation', type_code: 'VAC-X', traits: { must_be_full_day: true } } };
		const created = await call(path, { method: 'POST', body });
		expect(created.status).toBe(201);
		expect(created.body.data).toMatchObject({ source_system: integration.source_system, system_integration_id: integration.id, traits: { unit: 'days' } });
		const updated = await call(path, { method: 'POST', body: { data: { ...body.data, type_name: 'Holiday' } } });
		expect([updated.status, (updated.body.data as JsonObject).id]).toEqual([200, (created.body.data as JsonObject).id]);
		const readOnly = await call(path, { method: 'POST', body: { data: { type_name: 'x', source_system: 'y' } } });
		expect([readOnly.status, firstError(readOnly).message]).toEqual([400, expect.stringContaining('data.source_system')]);
		expect((await call('/v1/org/time-reports/system-time-types/00000000-0000-4000-8000-000000000000', { method: 'POST', body })).status).toBe(404);
	});

	test('shape reshapes employees', async () => {
		const answer = await call('/v1/org/employees/shape?pagination[first]=3', { method: 'POST', body: { shape: { name: 'first_name', title: 'properties.title' } } });
		const first = (answer.body.data as JsonObject[])[0];
		expect(Object.keys(first).sort()).toEqual(['id', 'name', 'title']);
		expect(Array.isArray(first.title)).toBe(true);
	});
});

describe('faults and request log', () => {
	test('queued statuses, 429 Retry-After and dropped connections; control routes unaffected', async () => {
		await control.queueFault({ pathPrefix: '/v1/org/employees', status: 503, count: 2 });
		expect((await call('/v1/org/employees')).status).toBe(503);
		expect((await control.health()).ok).toBe(true);
		expect((await call('/v1/org/employees')).status).toBe(503);
		expect((await call('/v1/org/employees')).status).toBe(200);
		await control.setFaults({ rate429: 1, retryAfterSeconds: 0 });
		const limitedRate = await call('/v1/org/employees');
		expect([limitedRate.status, limitedRate.headers.get('retry-after')]).toEqual([429, '0']);
		await control.clearFaults();
		await control.queueFault({ pathPrefix: '/v1', status: 'drop', count: 1 });
		await expect(call('/v1/org/employees')).rejects.toThrow();
	});

	test('request log keeps raw queries and token kinds', async () => {
		await control.clearRequests();
		await call('/v1/org/employees?select[]=email&pagination[first]=1');
		const [entry] = await control.requests(1);
		expect(entry).toMatchObject({ method: 'GET', path: '/v1/org/employees', rawQuery: 'select[]=email&pagination[first]=1', status: 200, tokenKind: 'access', role: 'admin' });
		expect(entry.query).toEqual({ select: ['email'], pagination: { first: '1' } });
	});

	test('stats count the TCP connections that carried API requests, control calls aside', async () => {
		const fetchOnce = (agent: Agent) =>
			new Promise<number>((resolve, reject) => {
				get(`${running.baseUrl}/v1/org/employees?pagination[first]=1`, { agent, headers: { authorization: `Bearer ${admin}` } }, (res) => {
					res.resume();
					res.on('end', () => resolve(res.statusCode ?? 0));
				}).on('error', reject);
			});
		await control.resetStats();
		const shared = new Agent({ keepAlive: true, maxSockets: 1 });
		for (let i = 0; i < 3; i++) expect(await fetchOnce(shared)).toBe(200);
		for (let i = 0; i < 3; i++) expect(await fetchOnce(new Agent())).toBe(200);
		shared.destroy();
		const stats = await control.stats();
		expect([stats.requests, stats.connections]).toEqual([6, 1 + 3]);
	});
});
