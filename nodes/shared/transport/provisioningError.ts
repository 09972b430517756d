/**
 * The one owner of a token request's error message: it is written here and read back here. n8n
 * wraps a credential's preAuthentication error in its own NodeApiError and keeps only the
 * message, so the message is what carries the failed step, its status or network code and
 * whether it was transient from the credential (provisioning.ts) to the transport (failure.ts).
 * Both sides depend on this file, never on each other; it reads only bounded.ts's wording.
 */
import { NO_ANSWER_IN_TIME } from './bounded';

const PROVISIONING_ERROR_PREFIX = 'Personnel Data API credential:';

/** The two token requests of the spec's flow, named as the messages name them. */
export type ProvisioningStep = 'begin' | 'refresh';

/**
 * How a token request failed, for the advice the message gives and for the transport's retry:
 * `refused` (a 4xx with the API's own error object: the JTI or the refresh token is wrong),
 * `notThisApi` (an answer the API would not give: HTML, a 404 without its error object, JSON
 * without a salt or token: the Base URL is not the API), `transient` (429, 5xx, network, no
 * answer in time: worth another try), `tooSlow` (the answer was still arriving at the deadline:
 * a server or proxy that trickles would do it again, so no retry), `unreachable` (no connection:
 * nothing listens at the Base URL, or its host name is unknown).
 */
export type ProvisioningFailureKind = 'refused' | 'notThisApi' | 'transient' | 'tooSlow' | 'unreachable';

/**
 * Network codes of a Base URL where nothing answers, in words: n8n replaces any error message that
 * holds such a code (in any case) with its own text, which does not name Base URL. The transport
 * reads the code back from the words (provisioningFailureOf).
 */
export const UNREACHABLE: Readonly<Record<string, string>> = {
	ECONNREFUSED: 'nothing accepted the connection',
	ENOTFOUND: 'the host name is unknown',
	EAI_AGAIN: 'the host name could not be resolved',
	EHOSTUNREACH: 'no route to the host',
};

const ADVICE: Record<ProvisioningFailureKind, string> = {
	refused:
		'The service refused the JTI or the refresh token: check both in the credential (the back office shows them together), or create a new refresh token there.',
	notThisApi:
		'The credential\'s Base URL did not answer as the Personnel Data API: check that it is your service\'s API address (not its web application or another server).',
	transient: 'The service did not answer the token request; try again later.',
	tooSlow: 'The service did not answer the token request in time; try again later.',
	unreachable:
		"Nothing answered at the credential's Base URL: check that it is your service's API address (its host and port) and that n8n can reach it.",
};

/**
 * Errors from `helpers.httpRequest` carry the request (JTI, signature) and sometimes the response;
 * only the status and the API's reasons are kept so that no secret reaches a message or a log.
 */
export class ProvisioningError extends Error {
	constructor(step: ProvisioningStep, detail: string, kind: ProvisioningFailureKind = 'refused') {
		super(`${PROVISIONING_ERROR_PREFIX} ${step} failed (${kind === 'unreachable' ? (UNREACHABLE[detail] ?? detail) : detail}). ${ADVICE[kind]}`);
		this.name = 'ProvisioningError';
	}
}

const MESSAGE_SHAPE = new RegExp(`${PROVISIONING_ERROR_PREFIX} (?:begin|refresh) failed \\((?:HTTP (\\d{3})|([A-Z][A-Z_]+)|(${NO_ANSWER_IN_TIME}))?`);

/** What the transport learns from a token request's failure (see TransportFailure). */
export interface ProvisioningFailure {
	status?: number;
	code?: string;
	trickled?: boolean;
}

/**
 * Recognises a ProvisioningError's message after n8n has wrapped it: n8n's NodeApiError keeps the
 * message (or moves it to `messages`) but not the error object, so the message is the carrier.
 * Returns the HTTP status or network code of the failed call, or undefined for other messages.
 */
export function provisioningFailureOf(text: string): ProvisioningFailure | undefined {
	const match = MESSAGE_SHAPE.exec(text);
	if (!match) return undefined;
	if (text.includes(ADVICE.tooSlow)) return { code: 'ETIMEDOUT', trickled: true };
	const unreachable = Object.entries(UNREACHABLE).find(([, words]) => text.includes(`failed (${words})`));
	if (unreachable) return { code: unreachable[0] };
	return { status: match[1] === undefined ? undefined : Number(match[1]), code: match[3] ? 'ETIMEDOUT' : match[2] };
}
