/**
 * n8n 2.41 activates ("publishes") a workflow in the background: the REST call queues it (the
 * publication outbox) and returns; a polling trigger's activation poll runs later. What was
 * changed before the activation finished is, to the trigger, from before it was active.
 * `GET /rest/workflows/:id/publication-status` says when it is done. n8n 2.8 activates within
 * the REST call and has no such route.
 */
import type { N8nServer } from './server';

export interface PublicationStatus {
	/** in_progress | not_published | published | partial | failed; 'synchronous' where n8n has no publication service. */
	status: string;
	triggers?: Array<{ nodeId: string; status: string; errorMessage?: string | null }>;
}

const PENDING = new Set(['in_progress', 'not_published']);

/** Waits until n8n has finished activating the workflow; returns how it ended. */
export async function waitForPublication(server: N8nServer, workflowId: string, timeoutMs = 180_000): Promise<PublicationStatus> {
	const until = Date.now() + timeoutMs;
	for (;;) {
		const response = await server.request('GET', `/rest/workflows/${workflowId}/publication-status`);
		if (response.status === 404) return { status: 'synchronous' };
		const text = await response.text();
		if (!response.ok) throw new Error(`publication status of ${workflowId}: ${response.status} ${text}`);
		const parsed = JSON.parse(text) as { data?: PublicationStatus } & PublicationStatus;
		const status = parsed.data ?? parsed;
		if (!PENDING.has(status.status)) return status;
		if (Date.now() > until) throw new Error(`workflow ${workflowId} still ${status.status} after ${timeoutMs} ms`);
		await new Promise<void>((resolve) => setTimeout(resolve, 250));
	}
}

/**
 * Waits until n8n serves the production webhook `webhookPath` for `method` (after activation;
 * 2.41 registers webhooks in the background, and a call before then is answered 404). Asks n8n
 * without running the workflow: a CORS preflight (OPTIONS with an Origin) is answered from the
 * registered webhooks, 204 with the path's methods in Access-Control-Allow-Methods, or 404 while
 * none is registered (n8n's webhook request handler, 1.x and 2.x).
 */
export async function waitForWebhook(server: N8nServer, webhookPath: string, method = 'POST', timeoutMs = 120_000): Promise<void> {
	const until = Date.now() + timeoutMs;
	let last = '';
	for (;;) {
		const response = await fetch(`${server.baseUrl}/webhook/${webhookPath}`, {
			method: 'OPTIONS',
			headers: { origin: server.baseUrl, 'access-control-request-method': method },
		}).catch((error: unknown) => error as Error);
		if (!(response instanceof Error)) {
			const allowed = (response.headers.get('access-control-allow-methods') ?? '').split(',').map((m) => m.trim());
			await response.arrayBuffer();
			if (response.status === 204 && allowed.includes(method)) return;
			last = `${response.status}, allowed methods: ${allowed.join(' ') || 'none'}`;
		} else last = response.message;
		if (Date.now() > until) throw new Error(`webhook ${method} /webhook/${webhookPath} not served after ${timeoutMs} ms (last answer: ${last})`);
		await new Promise<void>((resolve) => setTimeout(resolve, 250));
	}
}
