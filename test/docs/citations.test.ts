/**
 * Promises cite their proof: every "tested" link of README.md and docs/*.md names a test that exists
 * and is not skipped (scripts/docs/citations.ts; the convention is in docs/development.md).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

import { checkCitations } from '../../scripts/docs/citations';

const ROOT = join(__dirname, '../..');
const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

describe('promises that cite their test', () => {
	const report = checkCitations(ROOT, PAGES);

	it('every cited test exists, under that exact name, and is not skipped', () => {
		expect(report.problems.map(({ page, line, name, reason }) => `${page}:${line} "${name}": ${reason}`)).toEqual([]);
	});

	it('the pages cite tests (README.md and the hand-written pages of the issue)', () => {
		const citing = new Set(report.citations.map((citation) => citation.page));
		const pages = ['README.md', 'docs/operations.md', 'docs/troubleshooting.md', 'docs/upgrading.md', 'docs/ai-agents.md', 'docs/data-protection.md', 'docs/permissions.md', 'docs/examples.md', 'docs/spec-gaps.md', 'docs/scale.md'];
		expect(pages.filter((page) => !citing.has(page))).toEqual([]);
	});

	it('a citation of a test that only a CI lane runs (in real n8n) says so and names that lane; one of a test npm test runs does not', () => {
		const fixture = checkCitations(ROOT, ['test/docs/fixtures/e2eCitations.md']);
		expect(fixture.citations).toHaveLength(4);
		expect(fixture.problems.map(({ line, reason }) => `${line} ${reason}`)).toEqual([
			'3 only `npm run test:e2e` runs test/e2e/trigger.e2e.test.ts (in real n8n): write [tested in real n8n by `npm run test:e2e`]',
			'5 only `npm run test:e2e` runs test/e2e/trigger.e2e.test.ts (in real n8n): write [tested in real n8n by `npm run test:e2e`]',
			'6 `npm test` runs test/unit/changeFeed/clockSteps.test.ts: write [tested]',
		]);
	});

	it('finds a missing file, a missing, ambiguous or skipped test, a link it cannot read, and accepts a unique or qualified name', () => {
		const fixture = checkCitations(ROOT, ['test/docs/fixtures/citations.md'], /^test\/docs\/fixtures\/.+\.fixture\.ts$/);
		expect(fixture.citations).toHaveLength(15);
		expect(fixture.problems.map(({ line, name, reason }) => `${line} ${name}: ${reason}`)).toEqual([
			'5 runs: no file test/docs/fixtures/nothing.fixture.ts',
			'5 walks: no it(…) or test(…) named "walks" in test/docs/fixtures/cited.fixture.ts',
			'6 is skipped: "is skipped" is skipped (or skipped on a condition)',
			'6 is skipped by x: "is skipped by x" is skipped (or skipped on a condition)',
			'7 is a todo: "is a todo" is skipped (or skipped on a condition)',
			'7 is skipped on a condition: "is skipped on a condition" is skipped (or skipped on a condition)',
			'8 inside a skipped describe: "inside a skipped describe" is skipped (or skipped on a condition)',
			'9 twice: 2 tests answer to "twice": name the describe too ("describe › name")',
			'9 third › twice: no it(…) or test(…) named "third › twice" in test/docs/fixtures/cited.fixture.ts',
			'10 from a table %s: no it(…) or test(…) named "from a table %s" in test/docs/fixtures/cited.fixture.ts',
			'10 runs: test/docs/fixtures/citations.md is not a test file',
			`12 [tested](cited.fixture.ts 'runs' twice')).: a "tested" link the checker cannot read: one test name in "…" (or in '…' when it holds ")`,
		]);
	});
});
