import { randomUUID } from 'node:crypto';

import { sleep } from 'n8n-workflow';

import type { Handler } from './hostileServer';
import { sendJson } from './hostileServer';

/** What a server that admits only `most` writes at once saw. */
export interface WriteCounts {
	accepted: number;
	refused: number;
	/** The most writes it was answering at one moment (never above `most`). */
	busiest: number;
	/** Milliseconds from the first write's arrival to the moment `most` were first in progress at once. */
	fullAfterMs?: number;
}

/**
 * Employee creates (POST /v1/org/employees) on a server that answers each after `latencyMs` and
 * admits at most `most` at once: a write beyond that is refused at once with 429 (Retry-After: 1),
 * what a server protecting itself with a concurrency limit does. Other requests answer 404.
 */
export function limitedWrites(most: number, latencyMs: number): { handler: Handler; counts: WriteCounts } {
	const counts: WriteCounts = { accepted: 0, refused: 0, busiest: 0 };
	let inProgress = 0;
	let firstAt: number | undefined;
	const handler: Handler = async (request, response) => {
		if (request.method !== 'POST' || request.path !== '/v1/org/employees') {
			sendJson(response, 404, { error: { message: 'not here' } });
			return;
		}
		firstAt ??= request.at;
		if (inProgress >= most) {
			counts.refused++;
			sendJson(response, 429, { error: { message: 'too many writes at once' } }, { 'retry-after': '1' });
			return;
		}
		inProgress++;
		counts.busiest = Math.max(counts.busiest, inProgress);
		if (inProgress === most) counts.fullAfterMs ??= Date.now() - firstAt;
		try {
			await sleep(latencyMs);
			const data = (JSON.parse(request.body) as { data: Record<string, unknown> }).data;
			counts.accepted++;
			sendJson(response, 201, { data: { ...data, id: randomUUID(), inserted_at: new Date().toISOString(), updated_at: new Date().toISOString() } });
		} finally {
			inProgress--;
		}
	};
	return { handler, counts };
}
