/**
 * A Base URL where nothing answers: the token request's message says so in words n8n keeps (it
 * replaces a message holding ECONNREFUSED, ENOTFOUND… with its own text), and the transport still
 * reads the network code back from those words (to retry as before).
 */
import { NodeApiError, type INode, type JsonObject } from 'n8n-workflow';

import { ProvisioningError, provisioningFailureOf, UNREACHABLE } from '../../nodes/shared/transport/provisioningError';

const node: INode = { id: '1', name: 'Personnel Data', type: 'n8n-nodes-personnel-data.personnelData', typeVersion: 2, position: [0, 0], parameters: {} };

describe('a token request that reached nothing', () => {
	it.each(Object.keys(UNREACHABLE))('%s: Base URL named, n8n keeps the message, the code read back', (code) => {
		const error = new ProvisioningError('begin', code, 'unreachable');
		expect(error.message).toContain("Nothing answered at the credential's Base URL");
		expect(error.message.toUpperCase()).not.toContain(code);
		expect(new NodeApiError(node, { message: error.message } as JsonObject).message).toBe(error.message);
		expect(provisioningFailureOf(error.message)).toEqual({ code });
	});

	it('other network failures keep their code and their advice', () => {
		const error = new ProvisioningError('refresh', 'ECONNRESET', 'transient');
		expect(provisioningFailureOf(error.message)).toEqual({ status: undefined, code: 'ECONNRESET' });
		expect(error.message).toContain('The service did not answer the token request; try again later.');
	});
});
