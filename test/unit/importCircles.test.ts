import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

/**
 * No import circle in the package's code, type-only imports included: a circle makes the order in
 * which modules load decide what a value is at start-up, and hides which file owns a concept.
 */
const ROOT = path.join(__dirname, '../..');

function sourceFiles(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const file = path.join(dir, entry.name);
		if (entry.isDirectory()) return sourceFiles(file);
		return entry.name.endsWith('.ts') ? [file] : [];
	});
}

/** The project files a module imports (`import … from './x'`, `export … from`, `import type` alike). */
function importsOf(file: string): string[] {
	const text = readFileSync(file, 'utf8');
	const targets: string[] = [];
	for (const match of text.matchAll(/\b(?:from|import)\s+'(\.{1,2}\/[^']+)'/g)) {
		const base = path.resolve(path.dirname(file), match[1]);
		const resolved = [`${base}.ts`, path.join(base, 'index.ts')].find((candidate) => existsSync(candidate));
		if (resolved) targets.push(resolved);
	}
	return targets;
}

function circles(files: string[]): string[][] {
	const graph = new Map(files.map((file) => [file, importsOf(file)]));
	const found: string[][] = [];
	const state = new Map<string, 'open' | 'done'>();
	const stack: string[] = [];
	const visit = (file: string) => {
		state.set(file, 'open');
		stack.push(file);
		for (const next of graph.get(file) ?? []) {
			if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next]);
			else if (!state.has(next)) visit(next);
		}
		stack.pop();
		state.set(file, 'done');
	};
	for (const file of files) if (!state.has(file)) visit(file);
	return found.map((circle) => circle.map((file) => path.relative(ROOT, file)));
}

describe('the package has no import circle', () => {
	it('in nodes/ and credentials/', () => {
		expect(circles([...sourceFiles(path.join(ROOT, 'nodes')), ...sourceFiles(path.join(ROOT, 'credentials'))])).toEqual([]);
	});

	it('the check finds a circle where there is one, also through `import type`', () => {
		const dir = mkdtempSync(path.join(tmpdir(), 'circles-'));
		try {
			writeFileSync(path.join(dir, 'a.ts'), "import type { B } from './b';\nexport type A = B;\n");
			writeFileSync(path.join(dir, 'b.ts'), "import { c } from './c';\nexport type B = string;\nexport const b = c;\n");
			writeFileSync(path.join(dir, 'c.ts'), "import type { A } from './a';\nexport const c: A = '';\n");
			expect(circles(sourceFiles(dir)).map((circle) => circle.map((file) => path.basename(file)))).toEqual([['a.ts', 'b.ts', 'c.ts', 'a.ts']]);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});
});
