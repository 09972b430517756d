/**
 * The one owner of a token request's error message: it is written here and read back here. n8n
 * wraps a credential's preAuthentication error in its own NodeApiError and keeps only the
 * message, so the message is what carries the failed step, its status or network code and
 * whether it was transient from the credential (provisioning.ts) to the transport (failure.ts).
 * No imports of the transport: both sides depend on this file, never on each other.
 */
const PROVISIONING_ERROR_PREFIX = 'Personnel Data API credential:';

/** The two token requests of the spec's flow, named as the messages name them. */
export type ProvisioningStep = 'begin' | 'refresh';

/** What bounded.ts says of an exchange that ran out of time; read back as ETIMEDOUT. */
const OUT_OF_TIME = 'no complete answer';

/**
 * Errors from `helpers.httpRequest` carry the request (JTI, signature) and sometimes the response;
 * only the status and the API's reasons are kept so that no secret reaches a message or a log.
 */
export class ProvisioningError extends Error {
	constructor(step: ProvisioningStep, detail: string, transient = false) {
		super(
			`${PROVISIONING_ERROR_PREFIX} ${step} failed (${detail}). ` +
				(transient
					? 'The service did not answer the token request; try again later.'
					: 'Check the credential\'s environment, JTI and refresh token, or create a new refresh token in the back office.'),
		);
		this.name = 'ProvisioningError';
	}
}

const MESSAGE_SHAPE = new RegExp(
	`${PROVISIONING_ERROR_PREFIX} (?:begin|refresh) failed \\((?:HTTP (\\d{3})|([A-Z][A-Z_]+)|(${OUT_OF_TIME}))?`,
);

/**
 * Recognises a ProvisioningError's message after n8n has wrapped it: n8n's NodeApiError keeps the
 * message (or moves it to `messages`) but not the error object, so the message is the carrier.
 * Returns the HTTP status or network code of the failed call, or undefined for other messages.
 */
export function provisioningFailureOf(text: string): { status?: number; code?: string } | undefined {
	const match = MESSAGE_SHAPE.exec(text);
	if (!match) return undefined;
	return { status: match[1] === undefined ? undefined : Number(match[1]), code: match[3] ? 'ETIMEDOUT' : match[2] };
}

