import { readdirSync } from 'node:fs';
import { join } from 'node:path';

import { WRITE_CONCURRENCY_DEFAULT, WRITE_CONCURRENCY_MAX } from '../../nodes/PersonnelData/actions/concurrency';
import { checkQuotedFacts, QUOTED_FACTS } from '../../scripts/docs/quotedFacts';

const ROOT = join(__dirname, '../..');
const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

describe('numbers the docs quote from the code', () => {
	const report = checkQuotedFacts(ROOT, PAGES);

	it('every default, ceiling and limit quoted in README.md and docs/*.md is the code\'s', () => {
		expect(report.misquotes).toEqual([]);
	});

	it('every fact checked is still quoted somewhere (a check that matches nothing cannot fail)', () => {
		const quoted = new Set(QUOTED_FACTS.filter((fact) => (report.found.get(fact) ?? 0) > 0).map((fact) => fact.fact));
		expect(QUOTED_FACTS.map((fact) => fact.fact).filter((fact) => !quoted.has(fact))).toEqual([]);
	});

	it('finds misquotes in prose and in code fences, not in generated blocks', () => {
		const { misquotes } = checkQuotedFacts(ROOT, ['test/docs/fixtures/misquoted.md']);
		expect(misquotes.map(({ line, fact, quoted, expected }) => `${line} ${fact}: ${quoted} ≠ ${expected}`)).toEqual([
			'3 Get: Concurrency default: 2 ≠ 1',
			'3 Get: Concurrency ceiling: 12 ≠ 10',
			`5 Writes: Concurrency default: 1 ≠ ${WRITE_CONCURRENCY_DEFAULT}`,
			`5 Writes: Concurrency ceiling: 10 ≠ ${WRITE_CONCURRENCY_MAX}`,
			`7 Writes: Concurrency default: 16 ≠ ${WRITE_CONCURRENCY_DEFAULT}`,
			`7 Writes: Concurrency ceiling: 50 ≠ ${WRITE_CONCURRENCY_MAX}`,
			'7 Writes: adaptive start: 8 ≠ 4',
			'9 Batched reads: list requests in flight: 3 ≠ 10',
			'11 Batched reads: list requests in flight: 3 ≠ 10',
			'18 Batched reads: list requests in flight: 5 ≠ 10',
		]);
	});
});
