import { readFileSync, writeFileSync } from 'node:fs';

/**
 * A generated part of a hand-written Markdown page lives between two HTML comments, so a script
 * can rewrite it and a test can tell when it is stale, while the prose around it stays by hand.
 */
export const blockStart = (name: string): string => `<!-- BEGIN GENERATED ${name}: do not edit by hand -->`;
export const blockEnd = (name: string): string => `<!-- END GENERATED ${name} -->`;

function bounds(text: string, name: string, file: string): { from: number; to: number } {
	const from = text.indexOf(blockStart(name));
	const to = text.indexOf(blockEnd(name));
	if (from < 0 || to < from) throw new Error(`${file}: no "${blockStart(name)}" … "${blockEnd(name)}" block`);
	return { from: from + blockStart(name).length, to };
}

/** The generated block's current text, trimmed. */
export function readBlock(file: string, name: string): string {
	const text = readFileSync(file, 'utf8');
	const { from, to } = bounds(text, name, file);
	return text.slice(from, to).trim();
}

/** Replaces the block's text; returns whether the file changed. */
export function writeBlock(file: string, name: string, content: string): boolean {
	const text = readFileSync(file, 'utf8');
	const { from, to } = bounds(text, name, file);
	const next = `${text.slice(0, from)}\n${content.trim()}\n${text.slice(to)}`;
	if (next === text) return false;
	writeFileSync(file, next);
	return true;
}
