/**
 * The layout the development page promises: tools are not tests (nothing outside test/ imports
 * from test/), the product has no import circle, and no product file outgrows 300 lines.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
const PRODUCT = ['nodes', 'credentials'];
const TOOLS = ['nodes', 'credentials', 'scripts', 'bench', 'demo'];

function sources(folder: string): string[] {
	const full = join(ROOT, folder);
	if (!existsSync(full)) return [];
	return readdirSync(full).flatMap((name) => {
		const path = join(full, name);
		if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : sources(relative(ROOT, path));
		return /\.ts$/.test(name) ? [path] : [];
	});
}

/** The files a source imports by relative path, resolved as TypeScript does (file, .ts, /index.ts). */
function importsOf(file: string): string[] {
	const text = readFileSync(file, 'utf8');
	const specs = [...text.matchAll(/(?:from\s+|import\s+|import\(\s*|require\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g)].map((match) => match[1]);
	return specs.flatMap((spec) => {
		const base = resolve(dirname(file), spec);
		const found = [`${base}.ts`, base, join(base, 'index.ts')].find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
		return found ? [found] : [];
	});
}

describe('the layout', () => {
	it('tools are not tests: nothing outside test/ imports from test/', () => {
		const testDir = join(ROOT, 'test');
		const offenders = TOOLS.flatMap(sources).flatMap((file) =>
			importsOf(file)
				.filter((target) => target.startsWith(`${testDir}/`))
				.map((target) => `${relative(ROOT, file)} → ${relative(ROOT, target)}`),
		);
		expect(offenders).toEqual([]);
	});

	it('the product (nodes/, credentials/) has no import circle', () => {
		const files = PRODUCT.flatMap(sources);
		const graph = new Map(files.map((file) => [file, importsOf(file)]));
		const circles: string[] = [];
		const state = new Map<string, 'open' | 'done'>();
		const visit = (file: string, path: string[]) => {
			if (state.get(file) === 'done') return;
			if (state.get(file) === 'open') {
				circles.push([...path.slice(path.indexOf(file)), file].map((entry) => relative(ROOT, entry)).join(' → '));
				return;
			}
			state.set(file, 'open');
			for (const next of graph.get(file) ?? []) visit(next, [...path, file]);
			state.set(file, 'done');
		};
		for (const file of files) visit(file, []);
		expect(circles).toEqual([]);
	});

	it('no product file is over 300 lines', () => {
		const long = PRODUCT.flatMap(sources)
			.map((file) => ({ file: relative(ROOT, file), lines: readFileSync(file, 'utf8').split('\n').length }))
			.filter(({ lines }) => lines > 300);
		expect(long).toEqual([]);
	});
});
