/**
 * The README's two commands (issue 45): `npm run demo` runs the package's main job and `npm test`
 * its tests, both in one block with what they need; `bash .ci/run`, named as the full check, runs
 * them both; the simulator's `--port` shown for "your own n8n" is an option of its CLI.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
const readme = read('README.md');
const bashBlocks = [...readme.matchAll(/^```bash\n([\s\S]*?)^```/gm)].map((match) => match[1]);
const commandsOf = (block: string) => block.split('\n').map((line) => line.replace(/#.*$/, '').trim()).filter(Boolean);

describe("the README's commands", () => {
	it('one block holds npm ci, npm run demo and npm test, the scripts package.json runs them with', () => {
		const block = bashBlocks.find((candidate) => commandsOf(candidate).includes('npm test'));
		expect(block && commandsOf(block)).toEqual(['npm ci', 'npm run demo', 'npm test']);
		expect(pkg.scripts.demo).toBe('tsx demo/run.ts');
		expect(pkg.scripts.test).toMatch(/jest$/);
	});

	it('names bash .ci/run as the full check, and .ci/run runs npm ci, npm test and the demo', () => {
		expect(readme).toContain('`bash .ci/run` is the full check CI runs');
		const ci = read('.ci/run');
		for (const command of [/^npm ci\b/m, /^npm test\b/m, /^\s*npm run demo -- --once\b/m]) expect(ci).toMatch(command);
	});

	it('the simulator command for your own n8n uses an option its CLI has', () => {
		const simulator = bashBlocks.flatMap(commandsOf).filter((command) => command.startsWith('npm run simulator'));
		expect(simulator).toEqual(['npm run simulator -- --port 8787']);
		expect(read('scripts/simulator/cli.ts')).toContain("case '--port':");
		expect(readme).toContain('*Base URL* `http://127.0.0.1:8787`');
	});

	it("example 8's warning quotes the workflow's file path and its On Error as the workflow file has them", () => {
		const workflow = JSON.parse(read('demo/workflows/8-import-employees-from-a-file.json')) as { nodes: Array<{ parameters?: { fileSelector?: string }; onError?: string }> };
		const path = workflow.nodes.map((node) => node.parameters?.fileSelector).find((selector) => selector !== undefined);
		expect(readme).toContain(`it reads \`${path}\``);
		expect(workflow.nodes.map((node) => node.onError).filter(Boolean)).toEqual(['continueRegularOutput']);
		expect(readme.replace(/\s+/g, ' ')).toContain('its *On Error* is *Continue*');
	});
});

