/**
 * Every relative link of the project's Markdown pages must lead somewhere: to a file or folder of
 * the repository, and, with `#anchor`, to a heading of that page (GitHub's anchors). Used by
 * test/docs/links.test.ts; external links (http, mailto) are not followed.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

export interface BrokenLink {
	file: string;
	line: number;
	target: string;
	reason: string;
}

/** Fenced code blocks and inline code hold examples, not links: blanked out, lines kept. */
function withoutCode(markdown: string): string {
	return markdown
		.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, (block) => block.replace(/[^\n]/g, ' '))
		.replace(/`[^`\n]*`/g, (span) => ' '.repeat(span.length));
}

/** GitHub's anchor of a heading: the rendered text, lower case, punctuation dropped, spaces as hyphens. */
export function slugOf(heading: string): string {
	const text = heading
		.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
		.replace(/[`*]/g, '')
		.trim()
		.toLowerCase();
	return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** The anchors a page offers: one per heading (repeated ones numbered as GitHub does) and `<a id>`s. */
export function anchorsOf(markdown: string): Set<string> {
	const anchors = new Set<string>();
	const seen = new Map<string, number>();
	const text = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
	for (const match of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
		const slug = slugOf(match[1]);
		const count = seen.get(slug) ?? 0;
		seen.set(slug, count + 1);
		anchors.add(count === 0 ? slug : `${slug}-${count}`);
	}
	for (const match of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(match[1]);
	return anchors;
}

function linksOf(markdown: string): { target: string; line: number }[] {
	const text = withoutCode(markdown);
	const links: { target: string; line: number }[] = [];
	for (const match of text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
		const line = text.slice(0, match.index).split('\n').length;
		links.push({ target: match[1], line });
	}
	return links;
}

const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target);

/** The broken relative links of `files` (paths relative to `root`). */
export function brokenLinks(root: string, files: readonly string[]): BrokenLink[] {
	const broken: BrokenLink[] = [];
	const anchorCache = new Map<string, Set<string>>();
	const anchors = (path: string) => {
		if (!anchorCache.has(path)) anchorCache.set(path, anchorsOf(readFileSync(path, 'utf8')));
		return anchorCache.get(path) as Set<string>;
	};
	for (const file of files) {
		const absolute = join(root, file);
		for (const { target, line } of linksOf(readFileSync(absolute, 'utf8'))) {
			if (isExternal(target)) continue;
			const [pathPart, anchor] = target.split('#', 2);
			const destination = pathPart === '' ? absolute : resolve(dirname(absolute), decodeURIComponent(pathPart));
			const report = (reason: string) => broken.push({ file, line, target, reason });
			if (!destination.startsWith(root)) report('leads outside the repository');
			else if (!existsSync(destination)) report(`no file ${relative(root, destination)}`);
			else if (anchor !== undefined && statSync(destination).isFile() && destination.endsWith('.md') && !anchors(destination).has(anchor)) {
				report(`no heading #${anchor} in ${relative(root, destination)}`);
			}
		}
	}
	return broken;
}
