/**
 * docs/benchmarks.md shows the last full benchmark run: its generated block is the page text that
 * run rendered and kept in bench/results/latest.json (`npm run bench` writes both).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { BENCHMARK_BLOCK, BENCHMARK_PAGE } from '../../bench/page';
import { readBlock } from '../../scripts/docs/generatedBlock';
import { proseOf } from '../../scripts/docs/quotedFacts';

const ROOT = resolve(__dirname, '../..');

describe('the benchmark page', () => {
	it('shows the figures of bench/results/latest.json (run `npm run bench` when this fails)', () => {
		const latest = JSON.parse(readFileSync(join(ROOT, 'bench/results/latest.json'), 'utf8')) as { quick?: boolean; page?: unknown };
		expect({ quick: latest.quick, hasPage: typeof latest.page === 'string' }).toEqual({ quick: false, hasPage: true });
		expect(readBlock(join(ROOT, BENCHMARK_PAGE), BENCHMARK_BLOCK)).toBe(String(latest.page).trim());
	});

	it('quotes in its prose only ratios the generated tables show (no hand-written figure that drifts)', () => {
		const page = readFileSync(join(ROOT, BENCHMARK_PAGE), 'utf8');
		const generated = readBlock(join(ROOT, BENCHMARK_PAGE), BENCHMARK_BLOCK);
		const quoted = [...proseOf(page).matchAll(/(\d+(?:\.\d+)?)×/g)].map((match) => match[0]);
		expect(quoted.length).toBeGreaterThan(0);
		expect(quoted.filter((ratio) => !generated.includes(ratio))).toEqual([]);
	});
});
