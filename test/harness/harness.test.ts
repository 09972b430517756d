import type { IAuthenticateGeneric } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { HarnessAction } from './fixtures/HarnessAction.node';
import { HarnessPoll } from './fixtures/HarnessPoll.node';
import { HarnessTokenApi } from './fixtures/HarnessTokenApi.credentials';
import { TokenServer } from './fixtures/token-server';
import { NodeRuntime } from '../../scripts/harness/index';

const CREDENTIAL = 'harnessTokenApi';

describe('NodeRuntime (n8n-core 2.8 runtime + CLI-equivalent credentials helper)', () => {
	let server: TokenServer;
	let runtime: NodeRuntime;

	const getEmployee = (id: string) =>
		runtime.execute({
			nodeType: 'harnessAction',
			parameters: { operation: 'get', employee: { __rl: true, mode: 'id', value: id } },
		});

	beforeEach(async () => {
		server = new TokenServer();
		await server.start();
		runtime = new NodeRuntime({
			nodeTypes: [new HarnessAction(), new HarnessPoll()],
			credentialTypes: [new HarnessTokenApi()],
			packageName: 'n8n-nodes-harness',
		});
		runtime.setCredentials(CREDENTIAL, { baseUrl: server.baseUrl, username: 'alice', password: 'secret' });
	});

	afterEach(async () => {
		await server.stop();
	});

	describe('pre-authentication', () => {
		it('runs once when the expirable token is empty, then the stored token is reused', async () => {
			for (let run = 0; run < 3; run++) {
				const result = await getEmployee('e1');
				expect(result.error).toBeUndefined();
				expect(result.items).toEqual([[{ json: { id: 'e1', name: 'Ada' }, pairedItem: { item: 0 } }]]);
			}

			expect(server.tokenRequests()).toHaveLength(1);
			expect(server.apiRequests().map((r) => r.authorization)).toEqual([
				'Bearer token-1',
				'Bearer token-1',
				'Bearer token-1',
			]);
			expect(runtime.storedCredentials(CREDENTIAL)).toMatchObject({ accessToken: 'token-1' });
			expect(runtime.credentialUpdates(CREDENTIAL)).toHaveLength(1);
		});

		it('on a 401 re-runs pre-authentication, retries once and saves the new token', async () => {
			await getEmployee('e1');
			server.revokeAll();

			const result = await getEmployee('e2');

			expect(result.error).toBeUndefined();
			expect(result.items?.[0][0].json).toEqual({ id: 'e2', name: 'Grace' });
			expect(server.tokenRequests()).toHaveLength(2);
			expect(server.apiRequests().map((r) => [r.status, r.authorization])).toEqual([
				[200, 'Bearer token-1'],
				[401, 'Bearer token-1'],
				[200, 'Bearer token-2'],
			]);
			expect(runtime.storedCredentials(CREDENTIAL)).toMatchObject({ accessToken: 'token-2' });

			// The next execution uses the saved token without asking for another one.
			await getEmployee('e1');
			expect(server.tokenRequests()).toHaveLength(2);
		});

		it('does not retry a second 401 (no refresh loop) and fails with a NodeApiError', async () => {
			await getEmployee('e1');
			server.revokeAll();
			server.issueDeadTokens = true;

			const result = await getEmployee('e1');

			expect(result.items).toBeUndefined();
			expect(result.error).toBeInstanceOf(NodeApiError);
			expect((result.error as NodeApiError).httpCode).toBe('401');
			expect(server.tokenRequests()).toHaveLength(2);
			expect(server.apiRequests().map((r) => r.status)).toEqual([200, 401, 401]);
		});

		it('saves every key preAuthentication returns, but the node only sees declared properties', async () => {
			// preAuthentication only runs inside httpRequestWithAuthentication: make one request first.
			await getEmployee('e1');
			const result = await runtime.execute({
				nodeType: 'harnessAction',
				parameters: { operation: 'credentialKeys' },
			});

			expect(runtime.storedCredentials(CREDENTIAL)).toMatchObject({
				accessToken: 'token-1',
				expiresAt: '2030-01-01T00:00:00.000Z',
				tokenId: 'tid-1',
			});
			// getDecrypted re-applies the credential properties: undeclared `tokenId` is dropped.
			expect(result.items?.[0][0].json.keys).toEqual([
				'accessToken',
				'baseUrl',
				'expiresAt',
				'password',
				'username',
			]);
		});

		it('sends a generic authenticate value without a leading "=" literally, as n8n does', async () => {
			class NoEqualsSign extends HarnessTokenApi {
				authenticate: IAuthenticateGeneric = {
					type: 'generic',
					properties: { headers: { Authorization: 'Bearer {{$credentials.accessToken}}' } },
				};
			}
			const literal = new NodeRuntime({
				nodeTypes: [new HarnessAction()],
				credentialTypes: [new NoEqualsSign()],
			});
			literal.setCredentials(CREDENTIAL, { baseUrl: server.baseUrl, username: 'alice', password: 'secret' });

			const result = await literal.execute({
				nodeType: 'harnessAction',
				parameters: { employee: { __rl: true, mode: 'id', value: 'e1' } },
			});

			expect(result.error).toBeInstanceOf(NodeApiError);
			expect(server.apiRequests()[0].authorization).toBe('Bearer {{$credentials.accessToken}}');
		});
	});

	describe('execute', () => {
		it('continueOnFail turns failing items into error items (with pairedItem)', async () => {
			const parameters = {
				operation: 'get',
				employee: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
			};
			const items = [{ json: { id: 'e1' } }, { json: { id: 'missing' } }];

			const continued = await runtime.execute({ nodeType: 'harnessAction', parameters, items, continueOnFail: true });
			expect(continued.error).toBeUndefined();
			expect(continued.items?.[0]).toEqual([
				{ json: { id: 'e1', name: 'Ada' }, pairedItem: { item: 0 } },
				{
					// NodeApiError's generic message for a 404 (the server's body is in `description`).
					json: { error: 'The resource you are requesting could not be found' },
					pairedItem: { item: 1 },
				},
			]);

			const stopped = await runtime.execute({ nodeType: 'harnessAction', parameters, items });
			expect(stopped.items).toBeUndefined();
			expect(stopped.error).toBeInstanceOf(NodeApiError);
			expect((stopped.error as NodeApiError).httpCode).toBe('404');
		});

		it('applies description defaults and serialises fixedCollection values into qs like n8n', async () => {
			await runtime.execute({
				nodeType: 'n8n-nodes-harness.harnessAction',
				parameters: {
					operation: 'search',
					filters: { values: [{ field: 'department', value: 'd1' }] },
				},
			});

			const search = server.apiRequests().find((r) => r.path === '/employees');
			expect(search?.query).toEqual({ limit: '50', 'filters[department]': 'd1' });
		});
	});

	describe('poll', () => {
		it('keeps node static data between trigger polls, and not for manual runs', async () => {
			server.changes = [
				{ id: 'c1', updatedAt: '2024-01-01T00:00:00.000Z' },
				{ id: 'c2', updatedAt: '2024-01-02T00:00:00.000Z' },
			];

			const first = await runtime.poll({ nodeType: 'harnessPoll' });
			expect(first.error).toBeUndefined();
			expect(first.items?.[0].map((i) => i.json.id)).toEqual(['c1', 'c2']);
			expect(first.staticData).toEqual({ lastUpdatedAt: '2024-01-02T00:00:00.000Z', polls: 1 });

			const second = await runtime.poll({ nodeType: 'harnessPoll' });
			expect(second.items).toBeNull();
			expect(server.requests.at(-1)?.query).toEqual({ since: '2024-01-02T00:00:00.000Z' });

			const manual = await runtime.poll({ nodeType: 'harnessPoll', mode: 'manual' });
			expect(manual.items?.[0].map((i) => i.json.id)).toEqual(['c2']);
			expect(runtime.staticData('Harness Poll')).toEqual({ lastUpdatedAt: '2024-01-02T00:00:00.000Z', polls: 2 });

			server.changes.push({ id: 'c3', updatedAt: '2024-01-03T00:00:00.000Z' });
			const third = await runtime.poll({ nodeType: 'harnessPoll' });
			expect(third.items?.[0].map((i) => i.json.id)).toEqual(['c3']);
			expect(runtime.staticData('Harness Poll')).toEqual({ lastUpdatedAt: '2024-01-03T00:00:00.000Z', polls: 3 });

			// Static data is per node name: a renamed node starts over.
			const renamed = await runtime.poll({ nodeType: 'harnessPoll', nodeName: 'Renamed' });
			expect(renamed.items?.[0]).toHaveLength(3);
		});
	});

	describe('listSearch / loadOptions', () => {
		it('runs the methods in a LoadOptionsContext with authentication', async () => {
			const page1 = await runtime.listSearch({ nodeType: 'harnessAction', method: 'searchEmployees' });
			expect(page1).toEqual({ results: [{ name: 'Ada', value: 'e1' }], paginationToken: '1' });

			const page2 = await runtime.listSearch({
				nodeType: 'harnessAction',
				method: 'searchEmployees',
				paginationToken: page1.paginationToken as string,
			});
			expect(page2).toEqual({ results: [{ name: 'Grace', value: 'e2' }], paginationToken: undefined });

			const filtered = await runtime.listSearch({ nodeType: 'harnessAction', method: 'searchEmployees', filter: 'gra' });
			expect(filtered.results).toEqual([{ name: 'Grace', value: 'e2' }]);

			const departments = await runtime.loadOptions({
				nodeType: 'harnessAction',
				method: 'getDepartments',
				parameters: { operation: 'search' },
			});
			expect(departments).toEqual([{ name: 'Research', value: 'd1' }]);
			expect(server.tokenRequests()).toHaveLength(1);
		});
	});

	describe('credential test', () => {
		it('runs pre-authentication for a new credential, then the test request', async () => {
			const result = await runtime.testCredential(CREDENTIAL);

			expect(result).toEqual({ status: 'OK', message: 'Connection successful!' });
			expect(server.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
				'POST /token 200',
				'GET /me 200',
			]);
			expect(runtime.storedCredentials(CREDENTIAL)).toMatchObject({ accessToken: 'token-1' });
		});

		it('reuses a stored token; on 401 refreshes once; reports bad logins', async () => {
			await runtime.testCredential(CREDENTIAL);
			await runtime.testCredential(CREDENTIAL);
			expect(server.tokenRequests()).toHaveLength(1);

			server.revokeAll();
			expect(await runtime.testCredential(CREDENTIAL)).toMatchObject({ status: 'OK' });
			expect(server.tokenRequests()).toHaveLength(2);

			runtime.setCredentials(CREDENTIAL, { baseUrl: server.baseUrl, username: 'alice', password: 'wrong' });
			const bad = await runtime.testCredential(CREDENTIAL);
			expect(bad.status).toBe('Error');
		});

		it('forces a new token only when the tester node is named n8n-nodes-base.noOp', async () => {
			await runtime.testCredential(CREDENTIAL);
			await runtime.testCredential(CREDENTIAL, { testNodeTypeName: 'n8n-nodes-base.noOp' });
			expect(server.tokenRequests()).toHaveLength(2);
		});
	});

	describe('logs', () => {
		it('does not run preAuthentication for a bare getCredentials (the token stays empty)', async () => {
			const result = await runtime.execute({ nodeType: 'harnessAction', parameters: { operation: 'credentialKeys' } });
			expect(result.items?.[0][0].json.keys).toContain('accessToken');
			expect(server.requests).toHaveLength(0);
			expect(runtime.storedCredentials(CREDENTIAL)?.accessToken).toBeUndefined();
		});

		it('captures n8n log lines and never contains the password or a token', async () => {
			await getEmployee('e1');
			server.revokeAll();
			server.issueDeadTokens = true;
			await getEmployee('e1');
			await runtime.testCredential(CREDENTIAL);

			await runtime.poll({ nodeType: 'harnessPoll', mode: 'manual' });

			// The context's `this.logger` (n8n-core, via its DI container) writes to the runtime.
			expect(runtime.logs).toContainEqual(expect.stringContaining('debug: Harness poll {"mode":"manual"}'));
			const text = runtime.logs.join('\n');
			expect(text).not.toContain('secret');
			expect(text).not.toMatch(/token-\d/);
		});
	});
});
