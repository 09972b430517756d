/**
 * The README's install routes against the package and the release workflow: the tarball a user
 * downloads is the one `npm pack` makes and the release workflow attaches; the Dockerfile builds on
 * an n8n the end-to-end tests run, copies that tarball and installs it the way the shell route does.
 * (Docker cannot run here: test/e2e/shellInstall.e2e.test.ts replays these steps in real n8n.)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { dockerStepsOf, readmeInstall } from '../../scripts/docs/readmeInstall';

const ROOT = join(__dirname, '../..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string; homepage: string };
const versions = JSON.parse(readFileSync(join(ROOT, 'scripts/n8n/versions.json'), 'utf8')) as Record<string, { n8n: string }>;
const tarball = `${pkg.name}-${pkg.version}.tgz`;

describe("the README's install routes", () => {
	const install = readmeInstall(ROOT);

	it('the shell route downloads this version\'s release tarball and installs it with --legacy-peer-deps', () => {
		expect(install.shellVersion).toBe(pkg.version);
		expect(install.downloadUrl.replace(/\$version/g, pkg.version)).toBe(`${pkg.homepage}/releases/download/v${pkg.version}/${tarball}`);
		expect(install.shell).toMatch(/^mkdir -p ~\/\.n8n\/nodes && cd ~\/\.n8n\/nodes/m);
		expect(install.shellNpmFlags).toEqual(['--legacy-peer-deps']);
	});

	it('the Dockerfile: FROM an n8n the e2e tests run, COPY the tarball, RUN the same npm install in ~/.n8n/nodes', () => {
		const steps = install.dockerSteps;
		expect(steps.map((step) => step.instruction)).toEqual(['FROM', 'COPY', 'RUN']);
		const [from, copy, run] = steps;
		const image = /^n8nio\/n8n:(\S+)$/.exec(from.args);
		expect(image?.[1]).toBeDefined();
		expect(Object.values(versions).map((version) => version.n8n)).toContain(image?.[1]);
		expect(copy.args).toBe(`--chown=node:node ${tarball} /tmp/`);
		expect(run.args).toContain('mkdir -p /home/node/.n8n/nodes && cd /home/node/.n8n/nodes');
		expect(run.args).toContain(`npm install /tmp/${tarball} ${install.shellNpmFlags.join(' ')}`);
		// The image's user (node) installs: nothing runs as root.
		expect(steps.some((step) => step.instruction === 'USER')).toBe(false);
	});

	it('reads a Dockerfile step by step (continuations joined, comments dropped)', () => {
		expect(dockerStepsOf('# c\nFROM a:1\nRUN x \\\n && y\n\ncopy b /c\n')).toEqual([
			{ instruction: 'FROM', args: 'a:1' },
			{ instruction: 'RUN', args: 'x && y' },
			{ instruction: 'COPY', args: 'b /c' },
		]);
	});

	it('the release workflow attaches the npm pack tarball, under the name the README gives, to the GitHub release', () => {
		const workflow = readFileSync(join(ROOT, '.github/workflows/publish.yml'), 'utf8');
		expect(workflow).toMatch(/tarball=\$\(npm pack --ignore-scripts --silent \| tail -1\)/);
		expect(workflow).toContain('"n8n-nodes-personnel-data-$version.tgz"');
		expect(workflow).toMatch(/gh release upload "\$GITHUB_REF_NAME" "\$tarball"/);
		expect(workflow).toMatch(/gh release create "\$GITHUB_REF_NAME" "\$tarball"/);
		expect(workflow).toMatch(/contents: write/);
		// docs/development.md, "Releasing": the first release with the NPM_TOKEN secret, every release with provenance.
		expect(workflow).toMatch(/id-token: write/);
		expect(workflow).toContain('NODE_AUTH_TOKEN: ${{ secrets.NPM_TOKEN }}');
		expect(workflow).toContain('npm publish --provenance --access public');
		expect(workflow).toMatch(/"\$GITHUB_REF_NAME" != "v\$version"/);
		expect(pkg.name).toBe('n8n-nodes-personnel-data');
	});
});

describe("the README's install from a clone (the route that works before any release)", () => {
	const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
	const block = [...readme.matchAll(/^```bash\n([\s\S]*?)^```/gm)].map((match) => match[1]).find((text) => /^git clone /m.test(text));
	const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
	const lines = (block ?? '').split('\n').map((line) => line.replace(/\s+#.*$/, '').trim()).filter((line) => line !== '' && !line.startsWith('#'));

	it('clones the homepage, builds with npm ci and the build script, packs, and installs the packed file as the release route does', () => {
		expect(block).toBeDefined();
		expect(lines[0]).toBe(`git clone ${pkg.homepage}.git && cd ${pkg.name}`);
		expect(lines).toContain('npm ci && npm run build');
		expect(scripts.build).toBeDefined();
		expect(lines).toContain('npm pack');
		// npm pack names the file <name>-<version>.tgz; the install line takes that file with the release route's flags.
		expect(lines).toContain(`tarball="$PWD/${tarball}"`);
		expect(lines).toContain('mkdir -p ~/.n8n/nodes && cd ~/.n8n/nodes');
		expect(lines).toContain(`npm install "$tarball" ${readmeInstall(ROOT).shellNpmFlags.join(' ')}`);
	});
});
