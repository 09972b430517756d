/**
 * Promises that cite their proof. A behavioural promise in README.md or docs/ is followed by a
 * "tested" link to the test that shows it: `([tested](../test/x.test.ts "test name"))`, the link's
 * title being the test's name as written in its `it(…)` or `test(…)`, or, when that name is not
 * unique in its file, the enclosing `describe` titles and the name joined by ` › `
 * ("outer › inner › name"; any trailing part of the nesting is enough when it is unique).
 * test/docs/citations.test.ts fails when a cited test does not exist or may be skipped. The test
 * files are read with TypeScript's parser, so only literal names can be cited.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

import * as ts from 'typescript';

import { proseOf } from './quotedFacts';

export const CITATION_SEPARATOR = ' › ';

export interface Citation {
	page: string;
	line: number;
	/** The link's target as written, relative to the page. */
	target: string;
	/** The test file, relative to the repository. */
	file: string;
	name: string;
	/** The CI command the link names (`[tested in real n8n by \`…\`]`); undefined: a plain `[tested]`. */
	lane?: string;
}

/**
 * The command that runs a test file outside `npm test` (its CI lane; .ci/run), or undefined for a
 * test `npm test` runs. A citation of such a test says so, naming the lane: it holds as of the last
 * run of that lane, not of every `npm test`.
 */
export function laneOf(file: string): string | undefined {
	if (file.startsWith('test/e2e/queue/')) return 'npm run test:e2e:queue';
	if (file.startsWith('test/editor/')) return 'npm run test:editor';
	if (file.startsWith('test/e2e/')) return 'npm run test:e2e';
	return undefined;
}

export interface DeclaredTest {
	/** The enclosing describe titles, outermost first; null for a title that is not a literal. */
	describes: Array<string | null>;
	title: string;
	/** Skipped (`it.skip`, `xit`, `test.todo`, inside `describe.skip`…) or skipped on a condition (`(c ? it : it.skip)(…)`). */
	skipped: boolean;
}

export interface CitationProblem extends Citation {
	reason: string;
}

const TESTS = new Set(['it', 'test']);
const SKIPPED_TESTS = new Set(['xit', 'xtest']);
const DESCRIBES = new Set(['describe']);
const SKIPPED_DESCRIBES = new Set(['xdescribe']);
const SKIP_MODIFIERS = new Set(['skip', 'todo']);

type Runner = { kind: 'test' | 'describe'; skipped: boolean } | undefined;

function runnerOf(callee: ts.Expression): Runner {
	if (ts.isIdentifier(callee)) {
		const name = callee.text;
		if (TESTS.has(name)) return { kind: 'test', skipped: false };
		if (SKIPPED_TESTS.has(name)) return { kind: 'test', skipped: true };
		if (DESCRIBES.has(name)) return { kind: 'describe', skipped: false };
		if (SKIPPED_DESCRIBES.has(name)) return { kind: 'describe', skipped: true };
		return undefined;
	}
	if (ts.isPropertyAccessExpression(callee)) {
		const base = runnerOf(callee.expression);
		if (base === undefined) return undefined;
		const modifier = callee.name.text;
		if (modifier === 'each') return undefined; // a table's names hold %s: not citable
		return { kind: base.kind, skipped: base.skipped || SKIP_MODIFIERS.has(modifier) };
	}
	if (ts.isParenthesizedExpression(callee)) return runnerOf(callee.expression);
	if (ts.isConditionalExpression(callee)) {
		const [whenTrue, whenFalse] = [runnerOf(callee.whenTrue), runnerOf(callee.whenFalse)];
		if (whenTrue === undefined || whenFalse === undefined || whenTrue.kind !== whenFalse.kind) return undefined;
		return { kind: whenTrue.kind, skipped: whenTrue.skipped || whenFalse.skipped };
	}
	return undefined;
}

function literalOf(node: ts.Expression | undefined): string | null {
	if (node !== undefined && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node))) return node.text;
	return null;
}

/** Every `it`/`test` of a test file with a literal name, with its describes and whether it may be skipped. */
export function testsOf(path: string): DeclaredTest[] {
	const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
	const found: DeclaredTest[] = [];
	const visit = (node: ts.Node, describes: Array<string | null>, skipped: boolean): void => {
		if (ts.isCallExpression(node)) {
			const runner = runnerOf(node.expression);
			if (runner?.kind === 'test') {
				const title = literalOf(node.arguments[0]);
				if (title !== null) found.push({ describes, title, skipped: skipped || runner.skipped });
				return;
			}
			if (runner?.kind === 'describe') {
				const title = literalOf(node.arguments[0]);
				for (const argument of node.arguments.slice(1)) visit(argument, [...describes, title], skipped || runner.skipped);
				return;
			}
		}
		ts.forEachChild(node, (child) => visit(child, describes, skipped));
	};
	visit(source, [], false);
	return found;
}

/** A page's prose (generated blocks and code fences blanked) and whether a position is inside inline code. */
function proseWithCode(root: string, page: string): { text: string; inCode: (at: number) => boolean } {
	const text = proseOf(readFileSync(join(root, page), 'utf8')).replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, (block) => block.replace(/[^\n]/g, ' '));
	// Inline code holds examples, not citations; a test's name may itself hold inline code.
	const spans = [...text.matchAll(/`[^`\n]*`/g)].map((span) => [span.index ?? 0, (span.index ?? 0) + span[0].length]);
	return { text, inCode: (at: number) => spans.some(([from, to]) => at > from && at < to) };
}

const CITATION = /\[tested(?: in real n8n by `([^`\n]+)`)?\]\(\s*([^)\s]+)\s+(?:"([^"]*)"|'([^']*)')\s*\)/g;
const CITATION_START = /\[tested(?: in real n8n by `[^`\n]*`)?\]\(/g;

/** The "tested" links of a page, outside its generated blocks, code fences and inline code. */
export function citationsOf(root: string, page: string): Citation[] {
	const { text, inCode } = proseWithCode(root, page);
	const citations: Citation[] = [];
	for (const match of text.matchAll(CITATION)) {
		if (inCode(match.index ?? 0)) continue;
		const target = match[2];
		const file = relative(root, resolve(dirname(join(root, page)), target.split('#')[0]));
		const lane = match[1] === undefined ? {} : { lane: match[1] };
		citations.push({ page, line: text.slice(0, match.index).split('\n').length, target, file, name: match[3] ?? match[4], ...lane });
	}
	return citations;
}

/**
 * "tested" links the citation syntax does not read (a title quoted with the kind of quote it holds,
 * no title): without this they would pass unchecked. Each as its link's first 80 characters.
 */
export function unreadableCitationsOf(root: string, page: string): Array<{ line: number; link: string }> {
	const { text, inCode } = proseWithCode(root, page);
	const readable = new Set([...text.matchAll(CITATION)].map((match) => match.index ?? 0));
	return [...text.matchAll(CITATION_START)]
		.filter((match) => !inCode(match.index ?? 0) && !readable.has(match.index ?? 0))
		.map((match) => ({ line: text.slice(0, match.index).split('\n').length, link: text.slice(match.index, (match.index ?? 0) + 80).split('\n')[0] }));
}

/**
 * Whether a declared test answers to a cited name: its title, after as many enclosing describes as
 * the name gives (a title may itself hold ` › `, so every split of the name is tried).
 */
function answersTo(test: DeclaredTest, name: string): boolean {
	const parts = name.split(CITATION_SEPARATOR);
	return parts.some((_part, split) => {
		const describes = parts.slice(0, split);
		if (parts.slice(split).join(CITATION_SEPARATOR) !== test.title || describes.length > test.describes.length) return false;
		const tail = test.describes.slice(test.describes.length - describes.length);
		return describes.every((part, index) => tail[index] === part);
	});
}

export interface CitationReport {
	citations: Citation[];
	problems: CitationProblem[];
}

/** Every citation of `pages` and what is wrong with it; `testFile` says which files count as tests. */
export function checkCitations(root: string, pages: readonly string[], testFile: RegExp = /^test\/.+\.test\.ts$/): CitationReport {
	const cache = new Map<string, DeclaredTest[]>();
	const citations = pages.flatMap((page) => citationsOf(root, page));
	const problems: CitationProblem[] = [];
	for (const citation of citations) {
		const problem = (reason: string) => problems.push({ ...citation, reason });
		if (!testFile.test(citation.file)) {
			problem(`${citation.file} is not a test file`);
			continue;
		}
		const path = join(root, citation.file);
		if (!existsSync(path)) {
			problem(`no file ${citation.file}`);
			continue;
		}
		const lane = laneOf(citation.file);
		if (citation.lane !== lane) {
			problem(lane === undefined ? `\`npm test\` runs ${citation.file}: write [tested]` : `only \`${lane}\` runs ${citation.file} (in real n8n): write [tested in real n8n by \`${lane}\`]`);
			continue;
		}
		if (!cache.has(path)) cache.set(path, testsOf(path));
		const matches = (cache.get(path) ?? []).filter((test) => answersTo(test, citation.name));
		if (matches.length === 0) problem(`no it(…) or test(…) named "${citation.name}" in ${citation.file}`);
		else if (matches.length > 1) problem(`${matches.length} tests answer to "${citation.name}": name the describe too ("describe${CITATION_SEPARATOR}name")`);
		else if (matches[0].skipped) problem(`"${citation.name}" is skipped (or skipped on a condition)`);
	}
	for (const page of pages) {
		for (const { line, link } of unreadableCitationsOf(root, page)) {
			problems.push({ page, line, target: '', file: '', name: link, reason: 'a "tested" link the checker cannot read: one test name in "…" (or in \'…\' when it holds ")' });
		}
	}
	return { citations, problems };
}
