/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// Functions passed to page.evaluate run in the browser: they use its DOM types.
/** What the open node panel shows, read from n8n's DOM (selectors in ./browser.ts). */
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';

import type { Page } from 'playwright-core';

import { ROOT } from '../../scripts/n8n/driver';
import { EDITOR } from '../../scripts/browser/browser';

/** Where a failing check leaves its picture. */
export const FAILURE_DIR = path.join(ROOT, '.e2e-tmp', 'editor-failures');

export interface IssueMark {
	/** The parameter the mark sits on (its name; nested parameters by their own name). */
	parameter: string;
	/** `issue`: n8n's triangle; `json-error`: the JSON editor's own error mark. */
	kind: 'issue' | 'json-error';
	/** The triangle's tooltip text or the lint message, when the DOM has it. */
	text: string;
	/** The mark sits on a column of a resource mapper (`parameter` is then the column's id). */
	mapperColumn?: boolean;
}

/** Every issue mark in the panel's Parameters tab (hidden ones, e.g. of the Settings tab, aside). */
export async function issueMarks(page: Page): Promise<IssueMark[]> {
	return await page.evaluate((selectors) => {
		const panel = document.querySelector(selectors.panel);
		if (!panel) throw new Error('no node panel is open');
		const nameOf = (item: Element | null): string => {
			const input = item?.querySelector('[data-test-id^="parameter-input-"]:not([data-test-id="parameter-input-field"]):not([data-test-id="parameter-input-item"]):not([data-test-id="parameter-input-hint"])');
			return input?.getAttribute('data-test-id')?.slice('parameter-input-'.length) ?? '(unknown parameter)';
		};
		const marks: Array<{ parameter: string; kind: 'issue' | 'json-error'; text: string; mapperColumn?: boolean }> = [];
		const visible = (element: Element) => (element as HTMLElement).checkVisibility?.() ?? true;
		for (const mark of panel.querySelectorAll(selectors.parameterIssues)) {
			if (!visible(mark)) continue;
			// A mapper's column is no parameter item of its own: the closest item would be the mapper's.
			const column = mark.closest(selectors.mapperColumn);
			if (column) marks.push({ parameter: nameOf(column), kind: 'issue', text: mark.getAttribute('title') ?? '', mapperColumn: true });
			else marks.push({ parameter: nameOf(mark.closest(selectors.parameterItem)), kind: 'issue', text: mark.getAttribute('title') ?? '' });
		}
		const editors = new Set<Element>();
		for (const mark of panel.querySelectorAll(selectors.codeEditorErrors)) {
			const item = mark.closest(selectors.parameterItem);
			if (!item || editors.has(item) || !visible(item)) continue;
			editors.add(item);
			marks.push({ parameter: nameOf(item), kind: 'json-error', text: '' });
		}
		return marks;
	}, EDITOR);
}

/** The names of the top-level parameters the Parameters tab shows. */
export async function shownParameters(page: Page): Promise<string[]> {
	return await page.evaluate((selectors) => {
		const panel = document.querySelector(selectors.panel);
		if (!panel) throw new Error('no node panel is open');
		const names: string[] = [];
		for (const item of panel.querySelectorAll(selectors.parameterItem)) {
			if (item.parentElement?.closest(selectors.parameterItem)) continue; // nested in a collection
			if (!((item as HTMLElement).checkVisibility?.() ?? true)) continue;
			const input = item.querySelector('[data-test-id^="parameter-input-"]:not([data-test-id="parameter-input-field"]):not([data-test-id="parameter-input-item"]):not([data-test-id="parameter-input-hint"])');
			const name = input?.getAttribute('data-test-id')?.slice('parameter-input-'.length);
			if (name) names.push(name);
		}
		return names;
	}, EDITOR);
}

/** Opens the "From List" dropdown of the record locator `parameter` and returns the items it lists. */
export async function locatorListItems(page: Page, parameter: string): Promise<string[]> {
	const input = page.locator(`${EDITOR.panel} [data-test-id="parameter-input-${parameter}"] ${EDITOR.rlcInput}`).first();
	await input.click();
	await page.waitForSelector(EDITOR.rlcItem, { timeout: 30_000 });
	const items = await page.locator(EDITOR.rlcItem).allInnerTexts();
	await page.keyboard.press('Escape');
	return items.map((text) => text.trim());
}

/**
 * Saves what the page shows to .e2e-tmp/editor-failures/<name>.png, scrolled to `parameter` of the
 * open panel when given (the first one a check found wrong); returns the file.
 */
export async function saveFailurePicture(page: Page, name: string, parameter?: string): Promise<string> {
	mkdirSync(FAILURE_DIR, { recursive: true });
	if (parameter) {
		await page
			.locator(`${EDITOR.panel} [data-test-id="parameter-input-${parameter}"]`)
			.first()
			.scrollIntoViewIfNeeded({ timeout: 5_000 })
			.catch(() => undefined);
	}
	const file = path.join(FAILURE_DIR, `${name.replace(/[^a-zA-Z0-9._-]+/g, '-')}.png`);
	await page.screenshot({ path: file });
	return file;
}

/**
 * Whether the open panel shows `selector` (waiting for it: a column mapper loads its columns after
 * the panel opens).
 */
export async function panelShows(page: Page, selector: string): Promise<boolean> {
	return await page
		.locator(`${EDITOR.panel} ${selector}`)
		.first()
		.waitFor({ state: 'visible', timeout: 30_000 })
		.then(
			() => true,
			() => false,
		);
}
