/**
 * docs/troubleshooting.md gives every error message the code can give a place: its generated list is
 * read from the code (scripts/docs/errorMessages.ts), and every message's group has a hand-written
 * section with the cause and the fix.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { INodeTypeDescription } from 'n8n-workflow';

import { PersonnelData } from '../../nodes/PersonnelData/PersonnelData.node';
import { PersonnelDataTrigger } from '../../nodes/PersonnelDataTrigger/PersonnelDataTrigger.node';
import { errorMessages, MESSAGES_BLOCK, renderErrorMessages, TOPICS, TROUBLESHOOTING_PAGE } from '../../scripts/docs/errorMessages';
import { readBlock } from '../../scripts/docs/generatedBlock';
import { proseOf } from '../../scripts/docs/quotedFacts';
import { checkRows } from '../../scripts/docs/troubleshootingRows';

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

	describe('the hand-written rows, held to the code', () => {
		const descriptions: INodeTypeDescription[] = [new PersonnelData().description, new PersonnelDataTrigger().description];
		const operationLabels: Record<string, string> = { trigger: 'the trigger' };
		for (const property of descriptions[0].properties.filter((candidate) => candidate.name === 'operation')) {
			for (const option of (property.options ?? []) as Array<{ name: string; value: string }>) operationLabels[option.value] = option.name;
		}
		const check = (page: string) => checkRows({ root: ROOT, page, descriptions, operationLabels, messages });

		it("every row's message is text the code gives, and every Options → X of its fix exists wherever the message arises", () => {
			const { rows, problems } = check(TROUBLESHOOTING_PAGE);
			expect(rows.length).toBeGreaterThan(25);
			expect(problems.map(({ line, section, problem }) => `${line} (${section}): ${problem}`)).toEqual([]);
		});

		it('finds a message the code no longer gives, an option no node has, and an option missing where the message arises', () => {
			const { rows, problems } = check('test/docs/fixtures/troubleshootingRows.md');
			expect(rows).toHaveLength(5);
			expect(problems.map(({ line, problem }) => `${line} ${problem}`)).toEqual([
				'7 "Records were added at" is no message the code gives',
				'7 "after an earlier poll had read past that time" is no message the code gives',
				'8 Options → Retry Forever is no option of either node',
				'9 Options → Read in Batches: the message also arises on create, replace, update, upsert, which has no such option; say where it is ("on …")',
			]);
		});
	});
});
