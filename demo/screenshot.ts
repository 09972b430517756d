/**
 * Screenshots of the running demo's n8n editor, for the README (docs/images/).
 *   npm run demo                      # in another terminal; note the n8n URL it prints
 *   node --experimental-websocket --import tsx demo/screenshot.ts <n8n URL> [file.png …]
 * Uses Debian's chromium (apt-get install -y chromium) headless over the DevTools protocol; logs in
 * as the demo owner. Not part of `npm run demo`.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createInterface } from 'node:readline';

import { OWNER, ROOT } from '../test/e2e/n8n';
import { IDS } from './workflows';

const CHROMIUM = process.env.CHROMIUM ?? 'chromium';
const OUT_DIR = path.join(ROOT, 'docs/images');
const WIDTH = 1440;
const HEIGHT = 900;

interface Shot {
	file: string;
	/** Path of the editor to open, relative to the n8n URL. */
	urlPath: string;
	/** CSS selector that shows the page is ready. */
	ready: string;
}

const SHOTS: Shot[] = [
	{ file: 'demo-workflow.png', urlPath: `/workflow/${IDS.changed}`, ready: '[data-test-id="canvas-node"]' },
	{
		file: 'demo-node-get-many.png',
		urlPath: `/workflow/${IDS.changed}/d1000000-0000-4000-8000-000000000002`,
		ready: '[data-test-id="ndv"] [data-test-id="node-parameters"]',
	},
	{
		file: 'demo-node-update.png',
		urlPath: `/workflow/${IDS.title}/d3000000-0000-4000-8000-000000000003`,
		ready: '[data-test-id="ndv"] [data-test-id="node-parameters"]',
	},
	{
		file: 'demo-node-import.png',
		urlPath: `/workflow/${IDS.importFile}/d8000000-0000-4000-8000-000000000004`,
		ready: '[data-test-id="ndv"] [data-test-id="node-parameters"]',
	},
];

interface CdpReply {
	id?: number;
	result?: Record<string, unknown>;
	error?: { message: string };
}

class Cdp {
	private next = 1;
	private readonly pending = new Map<number, (reply: CdpReply) => void>();

	private constructor(private readonly socket: WebSocket) {
		socket.addEventListener('message', (event) => {
			const reply = JSON.parse(String(event.data)) as CdpReply;
			if (reply.id !== undefined) this.pending.get(reply.id)?.(reply);
		});
	}

	static async connect(url: string): Promise<Cdp> {
		const socket = new WebSocket(url);
		await new Promise<void>((resolve, reject) => {
			socket.addEventListener('open', () => resolve());
			socket.addEventListener('error', () => reject(new Error(`cannot connect to ${url}`)));
		});
		return new Cdp(socket);
	}

	send<T = Record<string, unknown>>(method: string, params: Record<string, unknown> = {}): Promise<T> {
		const id = this.next++;
		this.socket.send(JSON.stringify({ id, method, params }));
		return new Promise((resolve, reject) => {
			this.pending.set(id, (reply) => {
				this.pending.delete(id);
				if (reply.error) reject(new Error(`${method}: ${reply.error.message}`));
				else resolve((reply.result ?? {}) as T);
			});
		});
	}

	async evaluate(expression: string): Promise<unknown> {
		const res = await this.send<{ result: { value?: unknown }; exceptionDetails?: { text: string } }>('Runtime.evaluate', {
			expression,
			awaitPromise: true,
			returnByValue: true,
		});
		if (res.exceptionDetails) throw new Error(`evaluate: ${res.exceptionDetails.text}`);
		return res.result.value;
	}

	close(): void {
		this.socket.close();
	}
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until `selector` matches (the editor is slow to load on a small machine), then lets it settle. */
async function waitFor(cdp: Cdp, selector: string, timeoutMs = 120_000): Promise<void> {
	const until = Date.now() + timeoutMs;
	while (!(await cdp.evaluate(`!!document.querySelector(${JSON.stringify(selector)})`))) {
		if (Date.now() > until) throw new Error(`${selector} did not appear`);
		await sleep(500);
	}
	await sleep(3000);
}

async function main(): Promise<void> {
	const base = (process.argv[2] ?? '').replace(/\/$/, '');
	if (!base) throw new Error('usage: node --experimental-websocket --import tsx demo/screenshot.ts <n8n URL>');
	const profile = mkdtempSync(path.join(tmpdir(), 'demo-chromium-'));
	const browser = spawn(
		CHROMIUM,
		[
			'--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
			'--disable-background-networking', '--disable-component-update', '--disable-sync',
			`--user-data-dir=${profile}`, `--window-size=${WIDTH},${HEIGHT}`, '--hide-scrollbars',
			'--remote-debugging-port=0', 'about:blank',
		],
		{ stdio: ['ignore', 'ignore', 'pipe'] },
	);
	try {
		const wsUrl = await new Promise<string>((resolve, reject) => {
			const timer = setTimeout(() => reject(new Error('chromium did not start')), 30_000);
			createInterface({ input: browser.stderr as NodeJS.ReadableStream }).on('line', (line) => {
				const m = /DevTools listening on (ws:\/\/\S+)/.exec(line);
				if (m) {
					clearTimeout(timer);
					resolve(m[1]);
				}
			});
		});
		const port = new URL(wsUrl).port;
		const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as Array<{ type: string; webSocketDebuggerUrl: string }>;
		const page = targets.find((t) => t.type === 'page');
		if (!page) throw new Error('no page in chromium');
		const cdp = await Cdp.connect(page.webSocketDebuggerUrl);
		await cdp.send('Page.enable');
		await cdp.send('Emulation.setDeviceMetricsOverride', { width: WIDTH, height: HEIGHT, deviceScaleFactor: 1, mobile: false });

		// Log in as the owner from the page, with the browser ID the editor will send.
		await cdp.send('Page.navigate', { url: `${base}/signin` });
		await sleep(4000);
		const status = await cdp.evaluate(`(async () => {
			const id = localStorage.getItem('n8n-browserId') || 'demo-screenshot';
			localStorage.setItem('n8n-browserId', id);
			const r = await fetch('/rest/login', { method: 'POST', headers: { 'content-type': 'application/json', 'browser-id': id },
				body: JSON.stringify(${JSON.stringify({ emailOrLdapLoginId: OWNER.email, email: OWNER.email, password: OWNER.password })}) });
			return r.status;
		})()`);
		if (status !== 200) throw new Error(`login answered ${String(status)}`);

		mkdirSync(OUT_DIR, { recursive: true });
		// Names after the URL take only those pictures (the others stay as committed).
		const only = process.argv.slice(3);
		for (const shot of SHOTS.filter((s) => only.length === 0 || only.includes(s.file))) {
			await cdp.send('Page.navigate', { url: `${base}${shot.urlPath}` });
			await waitFor(cdp, shot.ready);
			const { data } = await cdp.send<{ data: string }>('Page.captureScreenshot', { format: 'png' });
			writeFileSync(path.join(OUT_DIR, shot.file), Buffer.from(data, 'base64'));
			console.log(`saved docs/images/${shot.file}`);
		}
		cdp.close();
	} finally {
		browser.kill('SIGTERM');
		await new Promise((r) => browser.once('exit', r));
		// Chromium may still be writing its profile as it exits.
		rmSync(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
	}
}

main().catch((error: unknown) => {
	console.error(error instanceof Error ? error.message : error);
	process.exit(1);
});
