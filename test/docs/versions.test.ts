/**
 * One version story: the package's version, the CHANGELOG, the release recipe and the upgrade page
 * agree with the name the code gives the old credential form ("Environment (Before X.Y)"), and the
 * Node.js the README asks for is package.json's `engines` (the demo's check reads the same field).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { PersonnelDataApi } from '../../credentials/PersonnelDataApi.credentials';
import { lowestVersion } from '../../demo/prerequisites';
import { proseOf } from '../../scripts/docs/quotedFacts';

const ROOT = join(__dirname, '../..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const pkg = JSON.parse(read('package.json')) as { version: string; engines: { node: string } };
const PAGES = ['README.md', 'CHANGELOG.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

const numbers = (version: string) => version.split('.').map(Number);
const atLeast = (version: string, floor: string) => {
	const [a, b] = [numbers(version), numbers(floor)];
	for (let i = 0; i < Math.max(a.length, b.length); i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
	return true;
};

/** The version the code names as the first without the Environment choice ("Environment (Before 0.2)"). */
function oldFormBefore(): string {
	const field = new PersonnelDataApi().properties.find((property) => property.name === 'environment');
	const match = /^Environment \(Before (\d+\.\d+)\)$/.exec(field?.displayName ?? '');
	if (!match) throw new Error(`the credential's environment field is named "${field?.displayName}", not "Environment (Before X.Y)"`);
	return match[1];
}

describe('one version story', () => {
	const before = oldFormBefore();

	it("the package's version is at or past the version the code says the old credential form came before", () => {
		expect(atLeast(pkg.version, before)).toBe(true);
	});

	it('the pages name the old form as the code does ("before X.Y"), never by a version of their own', () => {
		const offenders = PAGES.flatMap((page) =>
			proseOf(read(page))
				.split('\n')
				.map((line, index) => ({ page, line: index + 1, text: line }))
				.filter(({ text }) => /\b(?:version|versions up to|saved by) 0\.\d\b|\b0\.\d's\b|From 0\.\d:/i.test(text)),
		);
		expect(offenders).toEqual([]);
		expect(read('docs/upgrading.md')).toContain(`## From before ${before}: the credential's Base URL`);
		expect(read('README.md')).toContain(`A credential saved before ${before}`);
	});

	it("the CHANGELOG and the release recipe quote package.json's version", () => {
		expect(read('CHANGELOG.md')).toContain(`\`package.json\` says ${pkg.version}: the first tag, \`v${pkg.version}\``);
		expect(read('docs/development.md')).toContain(`(${pkg.version}): \`git tag v${pkg.version} && git push origin v${pkg.version}\``);
	});

	it("the README's Node.js for the demo is package.json's engines, and its minima are the range's", () => {
		const readme = read('README.md').replace(/\s+/g, ' ');
		expect(readme).toContain(`\`${pkg.engines.node}\``);
		const quoted = [...readme.matchAll(/\((\d+\.\d+\.\d+) or later\)/g)].map((match) => match[1]);
		const range = [...pkg.engines.node.matchAll(/\^(\d+\.\d+\.\d+)/g)].map((match) => match[1]);
		expect(quoted).toEqual(range);
		expect(quoted).toContain(lowestVersion(pkg.engines.node));
		expect(read('docs/development.md')).toContain(`(${pkg.engines.node})`);
	});
});
