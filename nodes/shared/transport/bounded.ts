import type { IN8nHttpFullResponse } from 'n8n-workflow';

import { HTTP } from '../apiChoices';

/**
 * The limits of one HTTP exchange. Production always uses HTTP's values; tests may lower them (and
 * must restore them) so that a stalling or trickling server fails within a test's patience.
 */
export const transportLimits = { deadlineMs: HTTP.deadlineMs as number, maxBodyBytes: HTTP.maxBodyBytes as number };

export type ExchangeStop = 'deadline' | 'tooLarge' | 'cancelled';

/** An exchange this side ended: out of time, too large, or the execution was cancelled. */
export class ExchangeStopped extends Error {
	constructor(
		readonly reason: ExchangeStop,
		message: string,
		/** Out of time while the body was still arriving: the server answers, too slowly to wait for again. */
		readonly trickled = false,
	) {
		super(message);
		this.name = 'ExchangeStopped';
	}
}

/** A complete answer, its body still raw bytes: nothing is believed before it is checked. */
export interface RawAnswer {
	status: number;
	headers: Record<string, unknown>;
	body: Buffer;
}

interface BodyStream extends AsyncIterable<Buffer | string> {
	destroy(error?: Error): void;
}

function isStream(value: unknown): value is BodyStream {
	return (
		value !== null &&
		typeof value === 'object' &&
		typeof (value as BodyStream).destroy === 'function' &&
		typeof (value as BodyStream)[Symbol.asyncIterator] === 'function'
	);
}

function sizeOf(bytes: number): string {
	return bytes >= 1024 * 1024 ? `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB` : `${Math.round(bytes / 1024)} kB`;
}

function tooLarge(): ExchangeStopped {
	return new ExchangeStopped('tooLarge', `the answer was larger than ${sizeOf(transportLimits.maxBodyBytes)}`);
}

/**
 * The time one exchange has left. AbortSignal.timeout, not a timer of our own: its timer never
 * keeps the process alive, and one that fires after the exchange ended only aborts a signal
 * nobody listens to any more. `restart` starts a fresh deadline (see boundedExchange).
 */
class Deadline {
	private readonly controller = new AbortController();
	private timer?: AbortSignal;
	private readonly expire = () => this.controller.abort();

	constructor(public ms: number) {
		this.restart(ms);
	}

	get signal(): AbortSignal {
		return this.controller.signal;
	}

	restart(ms: number): void {
		if (this.signal.aborted) return;
		this.dispose();
		this.ms = ms;
		this.timer = AbortSignal.timeout(ms);
		this.timer.addEventListener('abort', this.expire, { once: true });
	}

	dispose(): void {
		this.timer?.removeEventListener('abort', this.expire);
	}
}

/** How a deadline stop before the answer began reads; provisioningError.ts recognises it. */
export const NO_ANSWER_IN_TIME = 'no complete answer';

function stopOf(deadline: Deadline, bodyArriving: boolean): ExchangeStopped {
	if (!deadline.signal.aborted) return new ExchangeStopped('cancelled', 'the execution was cancelled');
	const seconds = deadline.ms / 1000;
	return bodyArriving
		? new ExchangeStopped('deadline', `the answer was still arriving after ${seconds} s`, true)
		: new ExchangeStopped('deadline', `${NO_ANSWER_IN_TIME} within ${seconds} s`);
}

/** Settles (rejects) when `signal` aborts; `dispose` detaches it once the race is over. */
function whenAborted(signal: AbortSignal, reason: () => Error): { promise: Promise<never>; dispose: () => void } {
	let dispose = () => {};
	const promise = new Promise<never>((_resolve, reject) => {
		const onAbort = () => reject(reason());
		signal.addEventListener('abort', onAbort, { once: true });
		dispose = () => signal.removeEventListener('abort', onAbort);
	});
	return { promise, dispose };
}

async function readBody(body: unknown, signal: AbortSignal, stop: () => Error): Promise<Buffer> {
	if (Buffer.isBuffer(body)) return body;
	if (typeof body === 'string') return Buffer.from(body, 'utf8');
	if (!isStream(body)) return Buffer.from(body === undefined || body === null ? '' : JSON.stringify(body), 'utf8');
	const onAbort = () => body.destroy(stop());
	signal.addEventListener('abort', onAbort, { once: true });
	const chunks: Buffer[] = [];
	let size = 0;
	try {
		for await (const chunk of body) {
			const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
			size += bytes.length;
			if (size > transportLimits.maxBodyBytes) {
				body.destroy();
				throw tooLarge();
			}
			chunks.push(bytes);
		}
	} finally {
		signal.removeEventListener('abort', onAbort);
	}
	return Buffer.concat(chunks, size);
}

function discard(response: IN8nHttpFullResponse | undefined): void {
	if (isStream(response?.body)) response.body.destroy();
}

/**
 * One HTTP exchange, connection to last body byte, within `transportLimits.deadlineMs` and
 * `maxBodyBytes`. `send` must ask n8n's helper for a streamed full response
 * (`encoding: 'stream'`, `returnFullResponse`) so that the body is read here, under the deadline.
 *
 * Why a race as well as the signal: n8n's `httpRequestWithAuthentication` replaces any abort signal
 * with the execution's cancel signal (n8n-core 2.8 and 2.41 alike), so the helper never sees the
 * deadline. The race ends the wait at the deadline whatever the helper does; the body stream is
 * then destroyed (its socket closed) here, and an answer whose headers arrive later is destroyed
 * as it comes. A body trickled byte by byte (never idle, so n8n's idle `timeout` never fires) ends
 * at the deadline like a silent one.
 *
 * `exchangesBefore`: token requests the helper makes before this one (begin and refresh, each
 * under its own deadline in provisioning.ts). Until `send` calls `startOwnDeadline` (when the
 * token is in, see exchange.ts) the wait may last that many deadlines more; from then on this
 * exchange has one deadline of its own, as if the token had been there from the start.
 * `until` (epoch ms) ends every deadline earlier where it comes first.
 */
export async function boundedExchange(
	send: (signal: AbortSignal, startOwnDeadline: () => void) => Promise<IN8nHttpFullResponse>,
	cancel?: AbortSignal,
	exchangesBefore = 0,
	until?: number,
): Promise<RawAnswer> {
	// `until`: the caller's own end (a poll's budget) cuts every deadline below short.
	const within = (ms: number) => (until === undefined ? ms : Math.max(1, Math.min(ms, until - Date.now())));
	const deadline = new Deadline(within(transportLimits.deadlineMs * (1 + exchangesBefore)));
	const signal = cancel ? AbortSignal.any([deadline.signal, cancel]) : deadline.signal;
	let bodyArriving = false;
	const stop = () => stopOf(deadline, bodyArriving);
	if (signal.aborted) throw stop();
	const aborted = whenAborted(signal, stop);
	let response: IN8nHttpFullResponse | undefined;
	const sending = send(signal, () => deadline.restart(within(transportLimits.deadlineMs)));
	try {
		response = await Promise.race([sending, aborted.promise]);
		const length = Number(response.headers?.['content-length']);
		if (Number.isFinite(length) && length > transportLimits.maxBodyBytes) {
			discard(response);
			throw tooLarge();
		}
		bodyArriving = true;
		const body = await Promise.race([readBody(response.body, signal, stop), aborted.promise]);
		return { status: response.statusCode, headers: (response.headers ?? {}) as Record<string, unknown>, body };
	} catch (error) {
		if (response === undefined) void sending.then(discard, () => undefined);
		else discard(response);
		throw signal.aborted && !(error instanceof ExchangeStopped) ? stop() : error;
	} finally {
		aborted.dispose();
		deadline.dispose();
	}
}

/** What a body is, for messages: "text/html, 312 bytes", "an empty body". */
export function describeBody(answer: RawAnswer): string {
	if (answer.body.length === 0) return 'an empty body';
	const type = String(answer.headers['content-type'] ?? 'no content type').split(';')[0].trim();
	return `${type}, ${answer.body.length} bytes`;
}

export function isJsonContentType(answer: RawAnswer): boolean {
	const type = answer.headers['content-type'];
	if (type === undefined) return true;
	return /^application\/(?:[\w.+-]+\+)?json\b/i.test(String(type).trim());
}
