/**
 * docs/troubleshooting.md gives every error message the code can give a place: its generated list is
 * read from the code (scripts/docs/errorMessages.ts), and every message's group has a hand-written
 * section with the cause and the fix.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { errorMessages, MESSAGES_BLOCK, renderErrorMessages, TOPICS, TROUBLESHOOTING_PAGE } from '../../scripts/docs/errorMessages';
import { readBlock } from '../../scripts/docs/generatedBlock';
import { proseOf } from '../../scripts/docs/quotedFacts';

const ROOT = join(__dirname, '../..');

describe('Troubleshooting', () => {
	const messages = errorMessages(ROOT);
	const prose = proseOf(readFileSync(join(ROOT, TROUBLESHOOTING_PAGE), 'utf8'));

	it('lists every error message of the code (run `npm run docs:reference` when this fails)', () => {
		expect(readBlock(join(ROOT, TROUBLESHOOTING_PAGE), MESSAGES_BLOCK)).toBe(renderErrorMessages(ROOT).trim());
	});

	it('every message belongs to a group that has a section with its cause and fix', () => {
		const headings = new Set([...prose.matchAll(/^## (.+)$/gm)].map((match) => match[1].trim()));
		const withoutEntry = messages.filter((message) => !headings.has(message.topic)).map((message) => `${message.topic}: ${message.text} (${message.file})`);
		expect(withoutEntry).toEqual([]);
		expect(TOPICS.map((topic) => topic.heading).filter((heading) => !headings.has(heading))).toEqual([]);
	});

	it('reads the messages the code gives, from every kind of source', () => {
		const texts = messages.map((message) => message.text);
		// An InputError subclass, a NodeOperationError, a page walk's stop(), the transport's composed messages, the token requests' advice.
		expect(texts).toEqual(
			expect.arrayContaining([
				expect.stringMatching(/^Options › Watch Fields: the trigger keeps the watched fields of every record and can keep at most …/),
				expect.stringMatching(/^This Personnel Data server sends … without …/),
				expect.stringMatching(/^the API sent record … twice in one listing/),
				'Access to … is forbidden for this credential\'s role',
				expect.stringMatching(/^The service refused the JTI or the refresh token/),
				expect.stringMatching(/^The token works, but its role may not list employees/),
			]),
		);
		expect(messages.length).toBeGreaterThan(80);
		expect(messages.filter((message) => message.topic === 'Other')).toEqual([]);
	});
});
