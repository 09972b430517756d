/**
 * Every error message the package can give, read from its source: the text of each
 * `new …Error(…)` (InputError and its kinds, NodeOperationError) and each page walk's `stop(…)`, and the
 * messages of the modules that compose them (the transport's HTTP errors, the token requests'
 * advice, the credential test's rules). Parts filled in at run time show as `…`. Each message
 * belongs to a topic, a section of docs/troubleshooting.md that gives its cause and fix; the page's
 * generated block lists the messages under their topic (`npm run docs:reference`), and
 * test/docs/troubleshooting.test.ts fails on a message whose topic has no section.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export const TROUBLESHOOTING_PAGE = 'docs/troubleshooting.md';
export const MESSAGES_BLOCK = 'error messages (npm run docs:reference)';

/** Topics in page order: a message's topic is the first whose folder prefix holds its file. */
export const TOPICS: ReadonlyArray<{ heading: string; files: readonly string[] }> = [
	{ heading: 'The credential', files: ['credentials/', 'nodes/shared/transport/baseUrl.ts', 'nodes/shared/transport/provisioning', 'nodes/shared/transport/credentialTest.ts', 'nodes/shared/transport/tokens.ts'] },
	{ heading: 'Answers from the API', files: ['nodes/shared/transport/'] },
	{ heading: 'The trigger', files: ['nodes/PersonnelDataTrigger/'] },
	{ heading: 'Writing employees and system time types', files: ['nodes/PersonnelData/actions/employee/', 'nodes/PersonnelData/actions/systemTimeType/'] },
	{ heading: 'Lists, pages and reads', files: ['nodes/shared/pagination.ts', 'nodes/shared/listPage.ts', 'nodes/shared/rangedWalk.ts', 'nodes/PersonnelData/actions/read/', 'nodes/PersonnelData/actions/waitFor.ts', 'nodes/PersonnelData/actions/generic/'] },
	{ heading: 'Settings refused before anything is sent', files: ['nodes/'] },
];

/** Modules whose messages are composed rather than thrown where they are written. */
const MESSAGE_MODULES = ['nodes/shared/transport/errors.ts', 'nodes/shared/transport/provisioningError.ts', 'nodes/shared/transport/credentialTest.ts', 'nodes/shared/transport/tokens.ts'];

/** Where a message is written: an error's construction, or a local `stop(why)` that builds one (pages). */
const THROW_SITE = /new (?!NodeApiError|ProvisioningError)\w*Error\(|\bthrow stop\(/g;
const LITERAL = /`(?:[^`\\$]|\\.|\$(?!\{)|\$\{(?:[^{}]|\{[^{}]*\})*\})*`|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"/g;

export interface ErrorMessage {
	file: string;
	/** The message with its run-time parts as `…`. */
	text: string;
	topic: string;
}

function sourceFiles(root: string, dir: string): string[] {
	return readdirSync(join(root, dir)).flatMap((name) => {
		const path = `${dir}/${name}`;
		if (statSync(join(root, path)).isDirectory()) return sourceFiles(root, path);
		return name.endsWith('.ts') ? [path] : [];
	});
}

function textOf(literal: string): string {
	return literal
		.slice(1, -1)
		.replace(/\$\{(?:[^{}]|\{[^{}]*\})*\}/g, '…')
		.replace(/\\(.)/g, '$1')
		.replace(/\s+/g, ' ')
		.trim();
}

/** The first literal of a call's arguments (skipping the node argument), if it is in the call. */
function firstLiteralAfter(source: string, from: number): string | undefined {
	LITERAL.lastIndex = from;
	const match = LITERAL.exec(source);
	if (!match || match.index - from > 200) return undefined;
	return match[0];
}

/** A message, not a fragment: three or more words of its own, no pattern source. */
const isMessage = (text: string) => text.split(' ').filter((word) => /[a-z]{2}/i.test(word)).length >= 3 && !text.includes('(?:') && !text.endsWith(':');

function topicOf(file: string): string {
	return (TOPICS.find((topic) => topic.files.some((prefix) => file.startsWith(prefix))) ?? { heading: 'Other' }).heading;
}

export function errorMessages(root: string): ErrorMessage[] {
	const found = new Map<string, ErrorMessage>();
	const add = (file: string, literal: string | undefined) => {
		if (literal === undefined) return;
		const text = textOf(literal);
		if (!isMessage(text)) return;
		const key = `${topicOf(file)}\n${text}`;
		if (!found.has(key)) found.set(key, { file, text, topic: topicOf(file) });
	};
	const files = [...sourceFiles(root, 'credentials'), ...sourceFiles(root, 'nodes')].sort();
	for (const file of files) {
		const source = readFileSync(join(root, file), 'utf8');
		for (const site of source.matchAll(THROW_SITE)) add(file, firstLiteralAfter(source, (site.index ?? 0) + site[0].length));
		if (MESSAGE_MODULES.includes(file)) {
			for (const literal of source.match(LITERAL) ?? []) if (/^[A-Z…]/.test(textOf(literal))) add(file, literal);
		}
	}
	return [...found.values()];
}

/** The generated block: the messages under their topics, in page order. */
export function renderErrorMessages(root: string): string {
	const messages = errorMessages(root);
	const parts: string[] = [];
	for (const { heading } of [...TOPICS, { heading: 'Other' }]) {
		const mine = messages.filter((message) => message.topic === heading);
		if (mine.length === 0) continue;
		parts.push(`**${heading}** ([cause and fix](#${heading.toLowerCase().replace(/[^a-z0-9 -]/g, '').replace(/ /g, '-')}))`, '');
		parts.push(...mine.map((message) => `- ${message.text.replace(/([*_|<>])/g, '\\$1')} <sub>${relative('.', message.file)}</sub>`), '');
	}
	return parts.join('\n');
}
