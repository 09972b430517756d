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

function stopOf(deadline: AbortSignal, ms: number): ExchangeStopped {
	return deadline.aborted
		? new ExchangeStopped('deadline', `no complete answer within ${ms / 1000} s`)
		: new ExchangeStopped('cancelled', 'the execution was cancelled');
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
 * with the execution's cancel signal, so until the headers arrive the deadline can only stop the
 * waiting; the socket then ends through the idle `timeout` and a late answer is discarded.
 */
export async function boundedExchange(
	send: (signal: AbortSignal) => Promise<IN8nHttpFullResponse>,
	cancel?: AbortSignal,
	/** Exchanges the send includes before its own (a token's begin and refresh), each with its own deadline. */
	exchangesBefore = 0,
): Promise<RawAnswer> {
	const deadline = AbortSignal.timeout(transportLimits.deadlineMs * (1 + exchangesBefore));
	const signal = cancel ? AbortSignal.any([deadline, cancel]) : deadline;
	const stop = () => stopOf(deadline, transportLimits.deadlineMs * (1 + exchangesBefore));
	if (signal.aborted) throw stop();
	const aborted = whenAborted(signal, stop);
	const sending = send(signal);
	let response: IN8nHttpFullResponse | undefined;
	try {
		response = await Promise.race([sending, aborted.promise]);
		const length = Number(response.headers?.['content-length']);
		if (Number.isFinite(length) && length > transportLimits.maxBodyBytes) {
			discard(response);
			throw tooLarge();
		}
		const body = await Promise.race([readBody(response.body, signal, stop), aborted.promise]);
		return { status: response.statusCode, headers: (response.headers ?? {}) as Record<string, unknown>, body };
	} catch (error) {
		if (response === undefined) void sending.then(discard, () => undefined);
		else discard(response);
		throw signal.aborted && !(error instanceof ExchangeStopped) ? stop() : error;
	} finally {
		aborted.dispose();
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
