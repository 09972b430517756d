/**
 * The hand-written rows of docs/troubleshooting.md held to the code: each row's message (its
 * italic parts, `…` standing for what is filled in at run time) is text the code can give, and each
 * *Options → X* its fix names is an option of every operation that can give that message, unless
 * the fix says on which operation (“on Get, …”). Where a message can arise is read from the import
 * graph: an operation (`*.operation.ts`, or the trigger) raises the messages of the files it imports.
 * Used by test/docs/troubleshooting.test.ts.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

import type { INodeProperties, INodeTypeDescription } from 'n8n-workflow';

import { errorMessages, type ErrorMessage } from './errorMessages';
import { proseOf } from './quotedFacts';

export interface Row {
	page: string;
	line: number;
	section: string;
	message: string;
	fix: string;
}

/** The rows of every table whose first column is "Message (start)", outside generated blocks. */
export function rowsOf(root: string, page: string): Row[] {
	const lines = proseOf(readFileSync(join(root, page), 'utf8')).split('\n');
	const rows: Row[] = [];
	let section = '';
	let inTable = false;
	lines.forEach((text, index) => {
		if (text.startsWith('## ')) section = text.slice(3).trim();
		if (/^\| Message \(start\) \|/.test(text)) inTable = true;
		else if (!text.startsWith('|')) inTable = false;
		else if (inTable && !/^\|[-| ]+\|$/.test(text)) {
			const cells = text.split(/(?<!\\)\|/).slice(1, -1).map((cell) => cell.trim());
			rows.push({ page, line: index + 1, section, message: cells[0] ?? '', fix: cells[cells.length - 1] ?? '' });
		}
	});
	return rows;
}

const italics = (cell: string): string[] => [...cell.replace(/\([^()]*\]\([^)]*\)\)/g, '').matchAll(/(?<![*\w])\*([^*]+)\*(?![*\w])/g)].map((match) => match[1]);
const normal = (text: string) => text.replace(/\\(.)/g, '$1').replace(/`/g, '').replace(/\s+/g, ' ').trim();

/** The literal pieces of a row's message: its italic parts split at `…`, trimmed of joining punctuation. */
export function fragmentsOf(row: Row): string[] {
	return italics(row.message)
		.flatMap((part) => normal(part).replace(/"[^"…]*"/g, '"…"').split('…'))
		.map((piece) => piece.replace(/^[\s,;:.()"]+|[\s,;:("]+$/g, '').trim())
		.filter((piece) => piece.split(' ').filter((word) => /[a-z]{2}/i.test(word)).length >= 2);
}

function sources(root: string, dir: string): string[] {
	if (!existsSync(join(root, dir))) return [];
	return readdirSync(join(root, dir)).flatMap((name) => {
		const path = `${dir}/${name}`;
		if (statSync(join(root, path)).isDirectory()) return sources(root, path);
		return name.endsWith('.ts') ? [path] : [];
	});
}

/** The files a source imports by relative path, resolved as TypeScript does. */
function importsOf(root: string, file: string): string[] {
	const text = readFileSync(join(root, file), 'utf8');
	return [...text.matchAll(/(?:from\s+|import\s+|import\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g)].flatMap((match) => {
		const base = resolve(dirname(join(root, file)), match[1]);
		const found = [`${base}.ts`, join(base, 'index.ts')].find((candidate) => existsSync(candidate));
		return found ? [relative(root, found)] : [];
	});
}

/** Where each product file's messages can arise: the operations (and `trigger`) whose imports reach it. */
export function raisersOf(root: string): Map<string, Set<string>> {
	const entries = new Map<string, string>();
	for (const file of sources(root, 'nodes/PersonnelData/actions')) {
		const match = /\/([A-Za-z]+)\.operation\.ts$/.exec(file);
		if (match) entries.set(file, match[1]);
	}
	entries.set('nodes/PersonnelDataTrigger/PersonnelDataTrigger.node.ts', 'trigger');
	const raisers = new Map<string, Set<string>>();
	for (const [entry, name] of entries) {
		const seen = new Set<string>([entry]);
		const queue = [entry];
		while (queue.length > 0) {
			for (const next of importsOf(root, queue.pop() as string)) {
				if (seen.has(next)) continue;
				seen.add(next);
				queue.push(next);
			}
		}
		for (const file of seen) raisers.set(file, new Set([...(raisers.get(file) ?? []), name]));
	}
	return raisers;
}

/** The display names in the Options collections of a description, by the operations that show them (`trigger` for a node without operations). */
export function optionsByOperation(descriptions: readonly INodeTypeDescription[]): Map<string, Set<string>> {
	const found = new Map<string, Set<string>>();
	for (const description of descriptions) {
		const operations = new Set(
			description.properties
				.filter((property) => property.name === 'operation')
				.flatMap((property) => (property.options ?? []).map((option) => String((option as { value: unknown }).value))),
		);
		const collections = description.properties.filter((property) => property.type === 'collection' && property.name === 'options');
		for (const collection of collections) {
			const shownOn = collection.displayOptions?.show?.operation?.map(String) ?? (operations.size > 0 ? [...operations] : ['trigger']);
			for (const option of (collection.options ?? []) as INodeProperties[]) {
				const onlyOn = option.displayOptions?.show?.operation?.map(String);
				for (const operation of shownOn.filter((name) => onlyOn === undefined || onlyOn.includes(name))) {
					found.set(operation, new Set([...(found.get(operation) ?? []), option.displayName]));
				}
			}
		}
	}
	return found;
}

/** A source with `${NAME}` replaced by the text of the file's `const NAME = '…'` (a message's composed prefix). */
function withConstants(source: string): string {
	const constants = new Map([...source.matchAll(/\bconst ([A-Z_]+) = '([^'\\\n]*)'/g)].map((match) => [match[1], match[2]]));
	return source.replace(/\$\{([A-Z_]+)\}/g, (whole, name: string) => constants.get(name) ?? whole);
}

export interface RowProblem {
	line: number;
	section: string;
	problem: string;
}

export interface RowCheck {
	root: string;
	page: string;
	descriptions: readonly INodeTypeDescription[];
	/** The operations' display names, to find "on Get" in a fix. */
	operationLabels: Record<string, string>;
	messages?: ErrorMessage[];
}

/** What is wrong with the page's rows: a message the code cannot give, an option where the message arises without it. */
export function checkRows(check: RowCheck): { rows: Row[]; problems: RowProblem[] } {
	const messages = check.messages ?? errorMessages(check.root);
	const product = [...sources(check.root, 'nodes'), ...sources(check.root, 'credentials')];
	const sourceText = normal(product.map((file) => withConstants(readFileSync(join(check.root, file), 'utf8'))).join('\n'));
	const raisers = raisersOf(check.root);
	const options = optionsByOperation(check.descriptions);
	const rows = rowsOf(check.root, check.page);
	const problems: RowProblem[] = [];
	for (const row of rows) {
		const report = (problem: string) => problems.push({ line: row.line, section: row.section, problem });
		const fragments = fragmentsOf(row);
		if (fragments.length === 0) report(`no message quoted in "${row.message}"`);
		const files = new Set<string>();
		for (const fragment of fragments) {
			const holders = messages.filter((message) => normal(message.text).includes(fragment));
			if (holders.length === 0 && !sourceText.includes(fragment)) report(`"${fragment}" is no message the code gives`);
			for (const holder of holders) files.add(holder.file);
		}
		const where = new Set([...files].flatMap((file) => [...(raisers.get(file) ?? [])]));
		for (const named of italics(row.fix).flatMap((part) => [...part.matchAll(/^Options (?:→|›) (.+)$/g)].map((match) => match[1].trim()))) {
			const offering = [...options].filter(([, names]) => names.has(named)).map(([operation]) => operation);
			if (offering.length === 0) {
				report(`Options → ${named} is no option of either node`);
				continue;
			}
			const without = [...where].filter((operation) => !offering.includes(operation));
			const saysWhere = offering.some((operation) => row.fix.toLowerCase().includes(`on ${check.operationLabels[operation] ?? operation}`.toLowerCase()));
			if (without.length > 0 && !saysWhere) report(`Options → ${named}: the message also arises on ${without.join(', ')}, which has no such option; say where it is ("on …")`);
		}
	}
	return { rows, problems };
}
