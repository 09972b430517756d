import type { IDataObject } from 'n8n-workflow';

import type { RawAnswer } from './bounded';
import { describeBody, isJsonContentType } from './bounded';
import type { TransportFailure } from './failure';
import { failureOfResponse } from './failure';
import { parseUtf8Json } from './utf8Json';

/**
 * What a successful answer must hold: `record` a `data` object (Get, writes), `list` a `data` array
 * of objects (list endpoints; the paginator checks `pagination` itself).
 */
export type Expectation = 'record' | 'list';

/** `serverDate`: the answer's Date header (the server's clock when it answered, to the second), if it had one. */
export type Checked = { body: IDataObject; serverDate?: string; failure?: undefined } | { failure: TransportFailure };

function kindOf(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'an array';
	return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function isPlainObject(value: unknown): value is IDataObject {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

type Parsed = { json: unknown; problem?: undefined } | { problem: string };

function parseJson(answer: RawAnswer): Parsed {
	if (answer.body.length === 0) return { problem: 'expected JSON, got an empty body' };
	if (!isJsonContentType(answer)) return { problem: `expected JSON, got ${describeBody(answer)}` };
	try {
		return { json: parseUtf8Json(answer.body) };
	} catch {
		return { problem: `expected JSON, got malformed JSON (${describeBody(answer)})` };
	}
}

function shapeProblem(json: unknown, expect: Expectation): string | undefined {
	if (!isPlainObject(json)) return `expected a JSON object, got ${kindOf(json)}`;
	const { data } = json;
	if (expect === 'record') return isPlainObject(data) ? undefined : `expected "data" to be an object, got ${kindOf(data)}`;
	if (!Array.isArray(data)) return `expected "data" to be an array of records, got ${kindOf(data)}`;
	const stray = data.findIndex((record) => !isPlainObject(record));
	return stray === -1 ? undefined : `expected "data" to be an array of records, got ${kindOf(data[stray])} at data[${stray}]`;
}

/** A few words of a non-JSON error body, for the description (redacted later with the rest). */
function excerpt(answer: RawAnswer): string {
	const text = answer.body.toString('utf8').replace(/\s+/g, ' ').trim();
	return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/**
 * The one place a received answer is believed: a 2xx must be JSON of the expected shape, anything
 * else is a failure that says what came instead. Error statuses keep their parsed body (the
 * spec's error object) or, when it is not JSON, a short excerpt.
 */
export function checkAnswer(answer: RawAnswer, expect: Expectation): Checked {
	const parsed = parseJson(answer);
	if (answer.status < 200 || answer.status > 299) {
		const body = parsed.problem === undefined ? parsed.json : undefined;
		const failure = failureOfResponse(answer.status, answer.headers, body);
		if (parsed.problem !== undefined && answer.body.length > 0) failure.bodyExcerpt = `${describeBody(answer)}: ${excerpt(answer)}`;
		return { failure };
	}
	const problem = parsed.problem ?? shapeProblem(parsed.json, expect);
	if (problem !== undefined) {
		return { failure: { status: answer.status, message: problem, badAnswer: problem } };
	}
	const date = answer.headers.date;
	return { body: (parsed as { json: IDataObject }).json, ...(typeof date === 'string' && date !== '' ? { serverDate: date } : {}) };
}
