/**
 * The README's two commands (issue 45): `npm run demo` runs the package's main job and `npm test`
 * its tests, both in one block with what they need; `bash .ci/run`, named as the full check, reads
 * them from the README and runs them as written; the simulator's `--port` shown for "your own n8n"
 * is an option of its CLI.
 */
import { execFileSync } from 'node:child_process';
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

	it('names bash .ci/run as the full check, and .ci/run runs the commands it reads from the README, not retyped ones', () => {
		expect(readme).toContain('`bash .ci/run` is the full check CI runs');
		// What .ci/readme-commands.sh reads from README.md, by the shell functions .ci/run calls.
		const found = execFileSync('bash', ['-c', 'source .ci/readme-commands.sh && readme_main_block && echo -- && readme_command_starting "npm run demo -- --once"'], { cwd: ROOT, encoding: 'utf8' });
		expect(found.trim().split('\n')).toEqual(['npm ci', 'npm run demo', 'npm test', '--', 'npm run demo -- --once']);
		const ci = read('.ci/run');
		expect(ci).toContain('source .ci/readme-commands.sh');
		for (const run of ['bash -c "$readme_install"', 'bash -c "$readme_test"', 'bash -c "$readme_once"', 'readme_demo_until_ready "$readme_demo"']) expect(ci).toContain(run);
		// No command line of .ci/run retypes npm ci, npm test or the README's demo.
		expect(ci).not.toMatch(/^\s*(npm ci|npm test|npm run demo -- --once$)/m);
	});

	it('the simulator command for your own n8n uses an option its CLI has', () => {
		const simulator = bashBlocks.flatMap(commandsOf).filter((command) => command.startsWith('npm run simulator'));
		expect(simulator).toEqual(['npm run simulator -- --port 8787']);
		expect(read('scripts/simulator/cli.ts')).toContain("case '--port':");
		expect(readme).toContain('*Base URL* `http://127.0.0.1:8787`');
	});

	it("example 8's warning quotes the workflow's file path, and its failures stop the run at the nodes it names", () => {
		const workflow = JSON.parse(read('demo/workflows/8-import-employees-from-a-file.json')) as {
			nodes: Array<{ name: string; type: string; parameters?: { fileSelector?: string; errorMessage?: string }; onError?: string }>;
			connections: Record<string, { main: Array<Array<{ node: string }>> }>;
		};
		const path = workflow.nodes.map((node) => node.parameters?.fileSelector).find((selector) => selector !== undefined);
		const prose = readme.replace(/\s+/g, ' ');
		expect(prose).toContain(`it reads \`${path}\``);
		expect(workflow.nodes.filter((node) => node.onError).map((node) => [node.name, node.onError])).toEqual([
			['Read employees file', 'continueErrorOutput'],
			['Create or update employees', 'continueErrorOutput'],
		]);
		expect(prose).toContain('*On Error*: *Continue (using error output)*');
		// Each error output leads to a Stop and Error node the README names.
		const stops = ['Read employees file', 'Create or update employees'].map((name) => {
			let next = workflow.connections[name].main[1][0].node;
			while (workflow.nodes.find((node) => node.name === next)?.type !== 'n8n-nodes-base.stopAndError') next = workflow.connections[next].main[0][0].node;
			return next;
		});
		expect(stops).toEqual(['No file to import', 'Rows failed']);
		for (const stop of stops) expect(prose).toContain(`*${stop}*`);

		// docs/examples.md quotes the missing file's message as the workflow makes it.
		const message = String(workflow.nodes.find((node) => node.name === 'No file to import')?.parameters?.errorMessage)
			.replace(/^=/, '')
			.replace("{{ $('Read employees file').params.fileSelector }}", '<path>')
			.replace('{{ $json.error }}', 'No file(s) found');
		expect(message).not.toContain('{{');
		expect(read('docs/examples.md')).toContain(`\`${message}\``);
	});
});

