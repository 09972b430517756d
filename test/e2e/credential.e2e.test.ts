/**
 * The credential's Test button in real n8n (one jest project per n8n version): n8n's own
 * `POST /rest/credentials/test` with the stored credential, as the editor sends it, against the
 * API simulator. Good data passes in both auth modes; a wrong refresh token and a server that
 * does not answer fail with a message that names the problem and leaks no secret. (n8n keeps only
 * the message of the error; for a refused connection it puts its own words in place of the
 * package's, on every version tested.)
 */
import { startSimulator, type RunningSimulator } from '../../scripts/simulator/server';
import {
	assertPackageBuilt,
	importCredentials,
	loadProblems,
	prepareUserFolder,
	startServer,
	type CredentialFile,
	type N8nServer,
	type N8nUserFolder,
} from '../../scripts/n8n/driver';

declare const N8N_KEY: string;
const key = N8N_KEY;

assertPackageBuilt();

interface TestResult {
	status: string;
	message: string;
}

describe(`the credential test on ${key}`, () => {
	let sim: RunningSimulator;
	let folder: N8nUserFolder;
	let server: N8nServer | undefined;
	let credentials: Record<'refresh' | 'legacy' | 'wrongToken' | 'noServer' | 'legacyNoServer', CredentialFile>;

	beforeAll(async () => {
		sim = await startSimulator({ seed: 11 });
		folder = await prepareUserFolder(key);
		const { jti, refreshToken, legacyToken } = sim.credentials.admin;
		const base = { environment: 'custom', baseUrl: sim.baseUrl };
		const credential = (id: string, data: Record<string, unknown>): CredentialFile => ({
			id,
			name: `Personnel Data ${id}`,
			type: 'personnelDataApi',
			data: { ...base, ...data },
		});
		credentials = {
			refresh: credential('pdCtRefresh01', { authMode: 'refreshToken', jti, refreshToken }),
			legacy: credential('pdCtLegacy01', { authMode: 'legacyToken', legacyToken }),
			wrongToken: credential('pdCtWrong01', { authMode: 'refreshToken', jti, refreshToken: `${refreshToken.slice(0, -4)}AAAA` }),
			// A port nothing listens on: the simulator's, once it is closed, is not known to be free; 9 (discard) is.
			noServer: credential('pdCtNoServer01', { authMode: 'refreshToken', jti, refreshToken, baseUrl: 'http://127.0.0.1:9' }),
			legacyNoServer: credential('pdCtLegNoSrv01', { authMode: 'legacyToken', legacyToken, baseUrl: 'http://127.0.0.1:9' }),
		};
		await importCredentials(folder, Object.values(credentials));
		server = await startServer(folder);
		expect(loadProblems(server.logs())).toEqual([]);
	}, 200_000);

	afterAll(async () => {
		await server?.stop();
		folder?.cleanup();
		await sim?.close();
	});

	/** What the editor's Test button sends: the stored credential by id with the form's values. */
	const test = (credential: CredentialFile) =>
		(server as N8nServer).rest<TestResult>('POST', '/rest/credentials/test', { credentials: credential });

	const secretsOf = (credential: CredentialFile) =>
		['refreshToken', 'legacyToken'].map((field) => credential.data[field]).filter((v): v is string => typeof v === 'string' && v !== '');

	it('passes with a refresh token and with a legacy token', async () => {
		expect(await test(credentials.refresh)).toEqual({ status: 'OK', message: 'Connection successful!' });
		expect(await test(credentials.legacy)).toEqual({ status: 'OK', message: 'Connection successful!' });
	});

	it('fails on a wrong refresh token, saying so without the token', async () => {
		const result = await test(credentials.wrongToken);
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/refresh failed \(HTTP 401/);
		for (const secret of secretsOf(credentials.wrongToken)) expect(result.message).not.toContain(secret);
	});

	it('fails when nothing answers at the Base URL, naming Base URL', async () => {
		const result = await test(credentials.noServer);
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/nothing accepted the connection.*Nothing answered at the credential's Base URL/);
		for (const secret of secretsOf(credentials.noServer)) expect(result.message).not.toContain(secret);
	});

	it("with a legacy token (no token request) nothing answering at the Base URL gets n8n's own refusal message, not naming Base URL", async () => {
		const result = await test(credentials.legacyNoServer);
		expect(result.status).toBe('Error');
		// n8n's words for a refused connection: its message up to 2.8.4, the bare error code in 2.41.
		const newer = folder.install.n8nVersion.localeCompare('2.41.0', undefined, { numeric: true }) >= 0;
		expect(result.message).toBe(newer ? 'ECONNREFUSED' : 'The service refused the connection - perhaps it is offline');
		for (const secret of secretsOf(credentials.legacyNoServer)) expect(result.message).not.toContain(secret);
	});
});
