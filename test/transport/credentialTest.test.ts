import { readdirSync, readFileSync, statSync } from 'node:fs';
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

import { expectNoSecrets } from '../helpers/secrets';
import { useTestBed } from '../nodes/setup';
import { CREDENTIAL, provisioningCalls, secretsOf } from './support';

/**
 * The credential's Test, as n8n's credentials tester runs it (harness), says which of the three
 * things is wrong: the JTI or refresh token, the address, or the role (the token works).
 */

/** A server that is not the API: a web application answering every path with a page or a 404 page. */
async function startWebServer(status: 200 | 404): Promise<{ baseUrl: string; paths: string[]; close: () => Promise<void> }> {
	const paths: string[] = [];
	const server: Server = createServer((request, response) => {
		paths.push(String(request.url));
		request.resume();
		response.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
		response.end(`<!doctype html><html><body><h1>${status === 200 ? 'Welcome to HR Portal' : 'Not Found'}</h1></body></html>`);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return { baseUrl: `http://127.0.0.1:${port}`, paths, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('credential Test: what failed', () => {
	const bed = useTestBed();

	function setCredential(overrides: Record<string, string>): void {
		const admin = bed.simulator.credentials.admin;
		bed.runtime.setCredentials(CREDENTIAL, {
			baseUrl: bed.simulator.baseUrl,
			authMode: 'refreshToken',
			jti: admin.jti,
			refreshToken: admin.refreshToken,
			...overrides,
		});
	}

	it('the simulator with a good JTI and refresh token: Connection successful', async () => {
		setCredential({});
		expect(await bed.runtime.testCredential(CREDENTIAL)).toEqual({ status: 'OK', message: 'Connection successful!' });
	});

	it.each([
		['refresh token', { refreshToken: 'rt_wrong_but_long_enough_to_check' }, 'refresh failed (HTTP 401, invalid_signature)'],
		['JTI', { jti: '00000000-0000-4000-8000-000000000000' }, 'begin failed (HTTP 401, unknown_jti)'],
	])('a wrong %s: provisioning failed, says to check the JTI and refresh token', async (_label, overrides, step) => {
		setCredential(overrides);
		const result = await bed.runtime.testCredential(CREDENTIAL);
		expect(result.status).toBe('Error');
		expect(result.message).toContain(step);
		expect(result.message).toContain('The service refused the JTI or the refresh token');
		expect(result.message).not.toContain('Base URL');
		expectNoSecrets(result, [...secretsOf(bed), 'rt_wrong_but_long_enough_to_check']);
	});

	it('a role that may not list employees: the token works, the role is named as the cause', async () => {
		setCredential({});
		bed.simulator.sim.queueFault({ pathPrefix: '/v1/org/employees', status: 403, count: 1 });
		const before = provisioningCalls(bed);
		const result = await bed.runtime.testCredential(CREDENTIAL);
		expect(result).toEqual({ status: 'Error', message: expect.stringMatching(/^The token works, but its role may not list employees \(HTTP 403/) });
		// A fresh token was provisioned (the JTI and refresh token work) before the listing was refused.
		expect(provisioningCalls(bed) - before).toBe(2);
	});

	it('a legacy token the API refuses: the 401 says to check the token', async () => {
		setCredential({ authMode: 'legacyToken', legacyToken: 'not-a-token-the-api-issued' });
		const before = provisioningCalls(bed);
		const result = await bed.runtime.testCredential(CREDENTIAL);
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/^The API refused the access token \(HTTP 401 listing employees\): with a Legacy Token, check the token/);
		expect(provisioningCalls(bed)).toBe(before);
	});

	describe('a Base URL that is not the API', () => {
		it.each([200, 404] as const)('a web server answering HTML with %i: the address is named, not the JTI', async (status) => {
			const web = await startWebServer(status);
			try {
				setCredential({ baseUrl: web.baseUrl });
				const result = await bed.runtime.testCredential(CREDENTIAL);
				expect(result.status).toBe('Error');
				expect(result.message).toContain(`begin failed (HTTP ${status}`);
				expect(result.message).toContain("The credential's Base URL did not answer as the Personnel Data API");
				expect(result.message).not.toContain('refused the JTI');
				// One token request: an answer that is not the API's is not retried.
				expect(web.paths).toEqual(['/provisioning/refresh-token/begin']);
				expectNoSecrets(result, secretsOf(bed));
			} finally {
				await web.close();
			}
		});

		it('with a legacy token (no token requests): the 404 of the listing names Base URL', async () => {
			const web = await startWebServer(404);
			try {
				setCredential({ baseUrl: web.baseUrl, authMode: 'legacyToken', legacyToken: bed.simulator.credentials.admin.legacyToken });
				const result = await bed.runtime.testCredential(CREDENTIAL);
				expect(result.status).toBe('Error');
				expect(result.message).toMatch(/^The credential's Base URL did not answer as the Personnel Data API's employee list/);
				expect(web.paths).toEqual([expect.stringMatching(/^\/v1\/org\/employees\?/)]);
			} finally {
				await web.close();
			}
		});
	});

	it('nothing listening at the Base URL (a closed port): the message names Base URL, not n8n\'s generic refusal', async () => {
		const closed = createServer();
		await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
		const { port } = closed.address() as AddressInfo;
		await new Promise<void>((resolve) => closed.close(() => resolve()));
		setCredential({ baseUrl: `http://127.0.0.1:${port}` });
		const result = await bed.runtime.testCredential(CREDENTIAL);
		expect(result.status).toBe('Error');
		expect(result.message).toContain('begin failed (nothing accepted the connection)');
		expect(result.message).toContain("Nothing answered at the credential's Base URL");
		expect(result.message).not.toMatch(/perhaps it is offline|ECONNREFUSED/i);
	});

	describe('credentials saved before 0.2', () => {
		const refusedNamingBaseUrl = async (environment: string, label: string): Promise<void> => {
			bed.runtime.setCredentials(CREDENTIAL, { environment, authMode: 'refreshToken', jti: 'j', refreshToken: 'rt_x' });
			const before = bed.simulator.sim.requests().length;
			const result = await bed.runtime.testCredential(CREDENTIAL);
			expect(result.status).toBe('Error');
			expect(result.message).toContain(`Base URL (credential) is empty: this credential was saved with Environment "${label}"`);
			expect(result.message).toContain('enter the address of your organisation\'s Personnel Data API');
			expect(result.message).not.toMatch(/personnel-data\.example/);
			expect(bed.simulator.sim.requests().length).toBe(before);

			const run = await bed.runtime.execute({ nodeType: 'personnelData', parameters: { resource: 'employee', operation: 'getMany', returnAll: false, limit: 1 } });
			expect(run.error?.message).toContain(`saved with Environment "${label}"`);
			expect(bed.simulator.sim.requests().length).toBe(before);
		};

		it('Environment Production without a Base URL: refused naming Base URL, nothing sent', async () => {
			await refusedNamingBaseUrl('production', 'Production');
		});

		it('Environment Staging without a Base URL: refused naming Base URL, nothing sent', async () => {
			await refusedNamingBaseUrl('staging', 'Staging');
		});

		it('Environment "Custom Base URL" with its address: works unchanged', async () => {
			setCredential({ environment: 'custom' });
			expect(await bed.runtime.testCredential(CREDENTIAL)).toEqual({ status: 'OK', message: 'Connection successful!' });
		});
	});
});

describe('no address of its own', () => {
	const ROOT = join(__dirname, '../..');
	const sources = (dir: string): string[] =>
		readdirSync(join(ROOT, dir)).flatMap((name) => (statSync(join(ROOT, dir, name)).isDirectory() ? sources(`${dir}/${name}`) : name.endsWith('.ts') ? [`${dir}/${name}`] : []));

	it('the product names no API host: only the placeholder (never contacted), docs links and n8n\'s docs', () => {
		const hosts = ['credentials', 'nodes']
			.flatMap(sources)
			.flatMap((file) => [...readFileSync(join(ROOT, file), 'utf8').matchAll(/https?:\/\/([a-z0-9.-]+)/gi)].map((match) => match[1]));
		expect(new Set(hosts)).toEqual(new Set(['personnel-api.your-company.com', 'github.com', 'docs.n8n.io']));
	});
});
