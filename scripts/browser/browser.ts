/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// Functions passed to page.evaluate run in the browser: they use its DOM types.
/**
 * Debian's Chromium, headless, driven by playwright-core (no browser of its own is downloaded), and
 * the n8n editor pages both the editor suite and `npm run docs:screenshots` open. One place for the
 * browser's flags and the editor's selectors: a change in n8n's DOM is fixed here once.
 */
import { existsSync } from 'node:fs';

import { chromium, type Browser, type Page } from 'playwright-core';

import { OWNER } from '../n8n/driver';

/** Debian's package `chromium` (`.ci/run` installs it); CHROMIUM names another executable. */
export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

/** The editor's window: wide enough for the node panel's three columns. */
export const VIEWPORT = { width: 1440, height: 900 };

/**
 * Without the background-networking flags Chromium keeps trying Google's hosts, which this
 * machine's closed network refuses (many connections at a time); --no-sandbox because CI runs as root.
 */
const CHROMIUM_FLAGS = [
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
	'--hide-scrollbars',
];

/** data-test-id selectors of n8n's editor (checked against 2.41). */
export const EDITOR = {
	/** The node panel (NDV) with its parameters rendered. */
	panel: '[data-test-id="ndv"] [data-test-id="node-parameters"]',
	panelTitle: '[data-test-id="ndv"] [data-test-id="node-title-container"] [data-test-id="inline-edit-preview"]',
	parameterItem: '[data-test-id="parameter-item"]',
	/** The red triangle n8n puts beside a parameter with an issue. */
	parameterIssues: '[data-test-id="parameter-issues"]',
	/** A resource mapper's columns (Values to Send), and its Columns to Match On. */
	mapperFields: '[data-test-id="mapping-fields-container"]',
	mapperMatching: '[data-test-id="matching-column-select"]',
	/** One column of a resource mapper (its own class, no test id; checked against 2.41). */
	mapperColumn: '[data-test-id="mapping-fields-container"] .parameter-item',
	/** A JSON/code editor's own error marks (CodeMirror's lint gutter and underline). */
	codeEditorErrors: '.cm-lint-marker-error, .cm-lintRange-error, .cm-lintPoint-error',
	/** Spinner of an options list being loaded. */
	optionsLoader: '[data-test-id="parameter-options-loader"]',
	canvasNode: '[data-test-id="canvas-node"]',
	/** The warning sign on a canvas node with issues. */
	nodeIssues: '[data-test-id="node-issues"]',
	rlcInput: '[data-test-id="rlc-input"]',
	rlcItem: '[data-test-id="rlc-item"]',
	credentialTestSuccess: '[data-test-id="credentials-config-container-test-success"]',
	credentialDialog: '[data-test-id="credential-edit-dialog"]',
} as const;

export interface EditorBrowser {
	browser: Browser;
	/** One page, logged in as the owner, reused for every check. */
	page: Page;
	close(): Promise<void>;
}

/** Starts Chromium with a fresh profile, opens one page and logs in to n8n at `baseUrl` as the owner. */
export async function openEditor(baseUrl: string): Promise<EditorBrowser> {
	if (!existsSync(CHROMIUM)) {
		throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (or set CHROMIUM to a Chromium executable)`);
	}
	// playwright gives the browser a fresh temporary profile of its own and removes it on close.
	const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
	const close = () => browser.close();
	try {
		const page = await browser.newPage({ viewport: VIEWPORT });
		await logIn(page, baseUrl);
		return { browser, page, close };
	} catch (error) {
		await close();
		throw error;
	}
}

/**
 * Logs in from the page, as the sign-in form does: n8n ties its auth cookie to the browser ID the
 * editor sends, so the login must carry the ID the editor keeps in localStorage.
 */
async function logIn(page: Page, baseUrl: string): Promise<void> {
	await page.goto(`${baseUrl}/signin`);
	const status = await page.evaluate(async (owner) => {
		const id = localStorage.getItem('n8n-browserId') ?? crypto.randomUUID();
		localStorage.setItem('n8n-browserId', id);
		const answer = await fetch('/rest/login', {
			method: 'POST',
			headers: { 'content-type': 'application/json', 'browser-id': id },
			body: JSON.stringify({ emailOrLdapLoginId: owner.email, email: owner.email, password: owner.password }),
		});
		return answer.status;
	}, OWNER);
	if (status !== 200) throw new Error(`n8n login from the page answered ${status}`);
	// The sign-in page's app still holds "logged out": load the editor afresh, logged in.
	await page.goto(`${baseUrl}/home/workflows`);
	await page.waitForURL((url) => url.pathname.startsWith('/home'), { timeout: PAGE_TIMEOUT_MS });
}

/** Calls the editor's own REST API from the page (the owner's cookie and browser ID): the `data` of the answer. */
export async function restFromPage<T>(page: Page, method: string, urlPath: string, body?: unknown): Promise<T> {
	const answer = await page.evaluate(
		async ({ method, urlPath, body }) => {
			const response = await fetch(urlPath, {
				method,
				headers: { 'content-type': 'application/json', 'browser-id': localStorage.getItem('n8n-browserId') ?? '' },
				body: body === undefined ? undefined : JSON.stringify(body),
			});
			return { status: response.status, text: await response.text() };
		},
		{ method, urlPath, body },
	);
	if (answer.status !== 200) throw new Error(`${method} ${urlPath} answered ${answer.status}: ${answer.text.slice(0, 500)}`);
	const parsed = JSON.parse(answer.text) as { data?: T };
	if (!('data' in parsed)) throw new Error(`${method} ${urlPath}: no "data" in ${answer.text.slice(0, 500)}`);
	return parsed.data as T;
}

/** How long the editor may take to show a page on a busy 2-core machine. */
const PAGE_TIMEOUT_MS = 60_000;

/**
 * Shows `urlPath` of the editor. After the first page load it navigates inside the editor (its own
 * router, as a click on a link does): a full load of the editor takes 8–10 s on a busy 2-core
 * machine, this about 2 s.
 */
export async function navigate(page: Page, baseUrl: string, urlPath: string): Promise<void> {
	const routed =
		page.url().startsWith(baseUrl) &&
		(await page.evaluate((target) => {
			type Router = { push(to: string): Promise<unknown> };
			const root = document.querySelector('#app') as { __vue_app__?: { config: { globalProperties: { $router?: Router } } } } | null;
			const router = root?.__vue_app__?.config.globalProperties.$router;
			if (!router) return false;
			void router.push(target);
			return true;
		}, urlPath));
	if (!routed) await page.goto(`${baseUrl}${urlPath}`);
}

/**
 * Opens a node's panel and waits until its parameters and option lists have loaded: first the
 * workflow (the editor looks the node up in the workflow it holds), then `/workflow/<id>/<nodeId>`.
 */
export async function openNodePanel(page: Page, baseUrl: string, node: { workflowId: string; id: string; name: string }): Promise<void> {
	await openWorkflow(page, baseUrl, node.workflowId, node.name);
	await navigate(page, baseUrl, `/workflow/${node.workflowId}/${node.id}`);
	// The panel of this node, not the one of the page before.
	await page.waitForFunction(
		({ panel, title, name }) => !!document.querySelector(panel) && document.querySelector(title)?.textContent?.trim() === name,
		{ panel: EDITOR.panel, title: EDITOR.panelTitle, name: node.name },
		{ timeout: PAGE_TIMEOUT_MS },
	).catch(async () => {
		const shown = await page.evaluate((title) => document.querySelector(title)?.textContent?.trim(), EDITOR.panelTitle);
		throw new Error(`the panel of "${node.name}" did not open in ${PAGE_TIMEOUT_MS / 1000} s (the panel shows: ${JSON.stringify(shown ?? null)})`);
	});
	await settle(page);
}

/** Opens a workflow's canvas and waits until the node named `someNode` is drawn. */
export async function openWorkflow(page: Page, baseUrl: string, workflowId: string, someNode: string): Promise<void> {
	await navigate(page, baseUrl, `/workflow/${workflowId}`);
	await page.waitForFunction(
		({ node, name }) => [...document.querySelectorAll(node)].some((element) => element.getAttribute('data-node-name') === name),
		{ node: EDITOR.canvasNode, name: someNode },
		{ timeout: PAGE_TIMEOUT_MS },
	).catch(() => {
		throw new Error(`workflow ${workflowId}: its node "${someNode}" was not drawn in ${PAGE_TIMEOUT_MS / 1000} s`);
	});
	await settle(page);
}

/** The names of the canvas nodes that show n8n's issue sign. */
export async function nodesWithIssues(page: Page): Promise<string[]> {
	return await page.evaluate(
		({ node, issues }) =>
			[...document.querySelectorAll(node)].filter((element) => element.querySelector(issues)).map((element) => element.getAttribute('data-node-name') ?? '?'),
		{ node: EDITOR.canvasNode, issues: EDITOR.nodeIssues },
	);
}

/**
 * Lets the editor finish what it does after the first paint: option lists load (their spinner goes
 * away) and the JSON editors lint, which CodeMirror does after a pause (750 ms by default).
 */
export async function settle(page: Page): Promise<void> {
	await page
		.waitForFunction(
			(selector) => ![...document.querySelectorAll(selector)].some((loader) => (loader as HTMLElement).checkVisibility()),
			EDITOR.optionsLoader,
			{ timeout: PAGE_TIMEOUT_MS },
		)
		.catch(() => {
			throw new Error(`an options list of the page did not finish loading in ${PAGE_TIMEOUT_MS / 1000} s`);
		});
	await page.waitForTimeout(1500);
}
