import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import { sleep } from 'n8n-workflow';

import { missingPrerequisites, requirePrerequisites } from '../e2e/prerequisites';

const ROOT = path.resolve(__dirname, '..', '..');
const JEST = path.join(ROOT, 'node_modules/jest/bin/jest.js');

interface Run {
	rc: number | null;
	stdout: string;
	stderr: string;
	ms: number;
	pid: number;
}

/** Runs an e2e jest config as `npm run test:e2e…` would, in a process group of its own. */
function runSuite(config: string, env: NodeJS.ProcessEnv): Promise<Run> {
	const started = Date.now();
	const child = spawn(process.execPath, [JEST, '-c', config], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
	let stdout = '';
	let stderr = '';
	child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
	child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
	return new Promise((resolve) => {
		child.once('close', (rc) => resolve({ rc, stdout, stderr, ms: Date.now() - started, pid: child.pid ?? 0 }));
	});
}

/** What is still running in the process group `pid` led, 2 s after its end (children the suite left behind). */
async function leftInGroup(pid: number): Promise<string> {
	for (const until = Date.now() + 2_000; ; await sleep(100)) {
		try {
			process.kill(-pid, 0);
		} catch {
			return '';
		}
		if (Date.now() > until) break;
	}
	try {
		return execFileSync('ps', ['-o', 'pid,args', '-g', String(pid)]).toString();
	} catch {
		return 'something (ps found nothing to show)';
	}
}

describe('the e2e suites check their prerequisites first', () => {
	let emptyDir: string;
	beforeAll(() => {
		emptyDir = mkdtempSync(path.join(tmpdir(), 'pd-prerequisites-'));
	});
	afterAll(() => rmSync(emptyDir, { recursive: true, force: true }));

	it('the queue suite without redis-server on PATH: exits non-zero within a minute, one line naming it and its install command, nothing left running', async () => {
		const run = await runSuite('test/e2e/queue/jest.config.js', { ...process.env, PATH: emptyDir });
		expect(run.rc).not.toBe(0);
		expect(run.ms).toBeLessThan(60_000);
		const lines = run.stderr.trim().split('\n').filter((line) => line.includes('not found') || line.includes('missing') || line.includes('not installed'));
		expect(lines).toContain(`npm run test:e2e:queue (${'n8n-2.41'}): redis-server not found: apt-get install -y redis-server`);
		expect(run.stdout + run.stderr).not.toMatch(/PASS|FAIL|Test Suites:/); // no test file ran, so nothing was started
		expect(await leftInGroup(run.pid)).toBe('');
	}, 90_000);

	it('the version suite without its n8n install: exits non-zero within a minute naming the install command', async () => {
		const run = await runSuite('test/e2e/jest.config.js', { ...process.env, N8N_CACHE_DIR: emptyDir, N8N_E2E_KEYS: 'n8n-2.8.4' });
		expect(run.rc).not.toBe(0);
		expect(run.ms).toBeLessThan(60_000);
		expect(run.stderr).toContain('npm run test:e2e (n8n-2.8.4): n8n n8n-2.8.4 is not installed: run scripts/n8n/install.sh n8n-2.8.4');
		expect(run.stdout + run.stderr).not.toMatch(/PASS|FAIL|Test Suites:/);
		expect(await leftInGroup(run.pid)).toBe('');
	}, 90_000);

	it('another suite reuses the check: every missing piece is one line, and requirePrerequisites throws them', () => {
		const saved = process.env.PATH;
		process.env.PATH = emptyDir;
		try {
			expect(missingPrerequisites(['redis', 'chromium'])).toEqual([
				'redis-server not found: apt-get install -y redis-server',
				'chromium not found: apt-get install -y chromium',
			]);
			expect(() => requirePrerequisites(['chromium'])).toThrow('chromium not found: apt-get install -y chromium');
			expect(missingPrerequisites(['n8n'], { n8nKeys: ['n8n-unknown'] })).toEqual(['unknown n8n key n8n-unknown (scripts/n8n/versions.json)']);
		} finally {
			process.env.PATH = saved;
		}
	});
});
