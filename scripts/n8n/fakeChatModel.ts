/**
 * A scripted stand-in for OpenAI's chat-completions API (`POST <base>/chat/completions`), for n8n's
 * OpenAI Chat Model node (credential `openAiApi`, its Base URL pointed here). It records every
 * request as sent and answers each with what the script decides from the conversation so far:
 * tool calls, or a final text. Non-streaming JSON answers only; a streaming request gets a 400
 * that names the problem, so a change in n8n shows.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';

export interface ChatMessage {
	role: 'system' | 'user' | 'assistant' | 'tool';
	content: string | null;
	tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
	tool_call_id?: string;
}

export interface ChatTool {
	type: 'function';
	function: { name: string; description: string; parameters: { properties?: Record<string, unknown>; required?: string[] } };
}

export interface ChatRequest {
	model: string;
	messages: ChatMessage[];
	tools?: ChatTool[];
	stream?: boolean;
	[extra: string]: unknown;
}

/** What the model "says" next: call these tools, or answer with this text. */
export type ChatReply = { toolCalls: Array<{ name: string; args: Record<string, unknown> }> } | { text: string };

export interface FakeChatModel {
	/** Base URL for the credential, e.g. http://127.0.0.1:1234/v1 */
	baseUrl: string;
	requests: ChatRequest[];
	close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
	return new Promise((resolve, reject) => {
		let body = '';
		req.setEncoding('utf8');
		req.on('data', (chunk: string) => (body += chunk));
		req.on('end', () => resolve(body));
		req.on('error', reject);
	});
}

export async function startFakeChatModel(script: (request: ChatRequest) => ChatReply): Promise<FakeChatModel> {
	const requests: ChatRequest[] = [];
	let callCounter = 0;
	const server: Server = createServer((req, res) => {
		const send = (status: number, body: unknown) => {
			res.writeHead(status, { 'content-type': 'application/json' });
			res.end(JSON.stringify(body));
		};
		void (async () => {
			if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
				return send(404, { error: { message: `fake chat model: no ${req.method} ${req.url}` } });
			}
			const request = JSON.parse(await readBody(req)) as ChatRequest;
			requests.push(request);
			if (request.stream) return send(400, { error: { message: 'fake chat model: streaming is not scripted' } });
			let reply: ChatReply;
			try {
				reply = script(request);
			} catch (error) {
				return send(500, { error: { message: `fake chat model script: ${(error as Error).message}` } });
			}
			const message =
				'text' in reply
					? { role: 'assistant', content: reply.text }
					: {
							role: 'assistant',
							content: null,
							tool_calls: reply.toolCalls.map((call) => ({
								id: `call_${++callCounter}`,
								type: 'function',
								function: { name: call.name, arguments: JSON.stringify(call.args) },
							})),
						};
			send(200, {
				id: `chatcmpl-${requests.length}`,
				object: 'chat.completion',
				created: Math.floor(Date.now() / 1000),
				model: request.model,
				choices: [{ index: 0, message, finish_reason: 'text' in reply ? 'stop' : 'tool_calls' }],
				usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
			});
		})();
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const address = server.address();
	const port = typeof address === 'object' && address ? address.port : 0;
	return {
		baseUrl: `http://127.0.0.1:${port}/v1`,
		requests,
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}
