import type { ICredentialDataDecryptedObject, NodeApiError } from 'n8n-workflow';

import type { NodeRuntime } from '../../scripts/harness';
import { expectNoSecrets, textOf } from '../helpers/secrets';
import type { HostileServer as Server } from './hostileServer';
import { HostileServer, hostileSecrets, JTI, REFRESH_TOKEN, runtimeFor, sendJson } from './hostileServer';
import { jsonOf } from './support';

const ID = '00000000-0000-4000-8000-000000000001';
/** Not JWT-shaped, so only knowing it (not its shape) can redact it. */
const LEGACY_TOKEN = 'legacy_token_kept_in_the_hidden_field_0123';
const getOne = { resource: 'employee', operation: 'get', id: { __rl: true, mode: 'id', value: ID } };

/** A 400 whose message and every inner error echo `secret`, as a careless server or proxy might. */
function echoing(secret: string) {
	return {
		code: 400,
		message: `Bad Request: ${secret} is not allowed here`,
		errors: [
			{ domain: 'auth', reason: 'echo', message: `you own ${secret}` },
			{ domain: 'auth', reason: `reason ${secret}`, message: 'and again' },
		],
	};
}

describe('every token the credential holds is redacted, whichever authentication mode is active', () => {
	let server: Server;
	let runtime: NodeRuntime;

	beforeEach(async () => {
		server = await new HostileServer().start();
		runtime = runtimeFor(server);
	});
	afterEach(async () => server.close());

	function credential(data: ICredentialDataDecryptedObject): void {
		runtime.setCredentials('personnelDataApi', { baseUrl: server.baseUrl, ...data });
	}

	async function stopAndContinue() {
		const stopped = await runtime.execute({ nodeType: 'personnelData', parameters: getOne });
		const continued = await runtime.execute({ nodeType: 'personnelData', parameters: getOne, continueOnFail: true });
		return { stopped, continued };
	}

	function expectRedacted(error: Error | undefined, item: Record<string, unknown> | undefined): void {
		expect(error?.message).toContain('The Personnel Data API answered 400 Bad Request: [redacted] is not allowed here');
		expect((error as NodeApiError | undefined)?.description).toContain('auth/echo: you own [redacted]');
		expect((error as NodeApiError | undefined)?.description).toContain('auth/reason [redacted]: and again');
		expect(textOf(item)).toContain('you own [redacted]');
	}

	it('a legacy token kept in the hidden field of a refresh-token credential, echoed by the API: not in the error, its description, the error item or the logs', async () => {
		credential({ authMode: 'refreshToken', jti: JTI, refreshToken: REFRESH_TOKEN, legacyToken: LEGACY_TOKEN });
		server.api = (_request, response) => sendJson(response, 400, echoing(LEGACY_TOKEN));

		const { stopped, continued } = await stopAndContinue();

		expect(server.provisioningCalls('refresh')).toBeGreaterThan(0); // the refresh-token mode really was the one in use
		expectRedacted(stopped.error, jsonOf(continued.items)[0]);
		expectNoSecrets([stopped.error, stopped.logs, continued.items, continued.logs, runtime.logs], [LEGACY_TOKEN, ...hostileSecrets(server)]);
	});

	it('the reverse: a refresh token kept in the hidden field of a legacy-token credential, echoed by the API', async () => {
		credential({ authMode: 'legacyToken', legacyToken: LEGACY_TOKEN, jti: JTI, refreshToken: REFRESH_TOKEN });
		server.api = (request, response) =>
			request.authorization === `Bearer ${LEGACY_TOKEN}` ? sendJson(response, 400, echoing(REFRESH_TOKEN)) : sendJson(response, 401, { code: 401 });

		const { stopped, continued } = await stopAndContinue();

		expect(server.provisioningCalls('begin')).toBe(0); // the legacy mode really was the one in use
		expectRedacted(stopped.error, jsonOf(continued.items)[0]);
		expectNoSecrets([stopped.error, stopped.logs, continued.items, continued.logs, runtime.logs], [REFRESH_TOKEN, LEGACY_TOKEN]);
	});

	it('a token request whose error reasons echo the legacy token kept beside the refresh token', async () => {
		credential({ authMode: 'refreshToken', jti: JTI, refreshToken: REFRESH_TOKEN, legacyToken: LEGACY_TOKEN });
		server.begin = (_request, response) => sendJson(response, 400, echoing(LEGACY_TOKEN));

		const { stopped, continued } = await stopAndContinue();

		expect(stopped.error?.message).toContain('Personnel Data API credential: begin failed (HTTP 400, echo, reason [redacted])');
		expect(textOf(jsonOf(continued.items)[0])).toContain('begin failed (HTTP 400, echo, reason [redacted])');
		expectNoSecrets([stopped.error, stopped.logs, continued.items, continued.logs, runtime.logs], [LEGACY_TOKEN, ...hostileSecrets(server)]);
	});
});
