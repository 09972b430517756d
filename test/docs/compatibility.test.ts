/**
 * docs/compatibility.md matches the pins (scripts/n8n/versions.json) and the recorded CI results
 * (scripts/n8n/tested.json); the recorder reads a results folder as .ci/run writes it.
 */
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { COMPATIBILITY_BLOCK, COMPATIBILITY_PAGE, lanesFromResults, renderCompatibility, TESTED_FILE, type TestedRecord } from '../../scripts/docs/compatibility';
import { readBlock } from '../../scripts/docs/generatedBlock';
import { versionPins } from '../../scripts/n8n/driver/installs';

const ROOT = join(__dirname, '../..');
const tested = JSON.parse(readFileSync(join(ROOT, TESTED_FILE), 'utf8')) as TestedRecord;

describe('docs/compatibility.md', () => {
	it('is the table of the pinned versions and their recorded results (npm run docs:compatibility)', () => {
		expect(readBlock(join(ROOT, COMPATIBILITY_PAGE), COMPATIBILITY_BLOCK)).toBe(renderCompatibility(versionPins(), tested).trim());
	});

	it('names every pinned version, its Node.js and the settings n8n gets there', () => {
		const block = readBlock(join(ROOT, COMPATIBILITY_PAGE), COMPATIBILITY_BLOCK);
		for (const [key, pin] of Object.entries(versionPins())) {
			expect(block).toContain(`| ${pin.n8n} `);
			if (pin.node !== 'system') expect(tested.versions[key].node).toBe(pin.node);
			for (const [name, value] of Object.entries(pin.env ?? {})) expect(block).toContain(`\`${name}=${value}\``);
		}
	});

	it('every pinned version has the lanes that prove it recorded, none failed', () => {
		for (const [key, version] of Object.entries(tested.versions)) {
			for (const lane of ['package', 'credential', 'demo', 'exactlyOnce'] as const) {
				expect({ key, lane, outcome: version.lanes[lane] }).toEqual({ key, lane, outcome: { passed: expect.any(Number), failed: 0 } });
				expect(version.lanes[lane]?.passed).toBeGreaterThan(0);
			}
		}
	});

	it('refuses results recorded for another n8n version than the pin', () => {
		const pins = versionPins();
		const [key] = Object.keys(pins);
		const stale: TestedRecord = { ...tested, versions: { ...tested.versions, [key]: { ...tested.versions[key], n8n: '0.0.1' } } };
		expect(() => renderCompatibility(pins, stale)).toThrow(`${key}: results are for n8n 0.0.1, the pin is ${pins[key].n8n}`);
		const { [key]: _dropped, ...rest } = tested.versions;
		expect(() => renderCompatibility(pins, { ...tested, versions: rest })).toThrow(`${key}: no CI results recorded`);
	});
});

describe('lanesFromResults', () => {
	let folder: string;
	beforeAll(() => {
		folder = mkdtempSync(join(tmpdir(), 'compat-results-'));
		const assertion = (describe: string, title: string, status: string) => ({ ancestorTitles: [describe], title, status });
		const write = (file: string, testResults: unknown) => writeFileSync(join(folder, file), JSON.stringify({ testResults }));
		write('e2e.json', [
			{ name: '/r/test/e2e/package.e2e.test.ts', assertionResults: [assertion('n8n-nodes-personnel-data on n8n-2.41', 'loads', 'passed'), assertion('n8n-nodes-personnel-data on n8n-2.41.3', 'loads', 'failed')] },
			{ name: '/r/test/e2e/credential.e2e.test.ts', assertionResults: [assertion('the credential test on n8n-2.41', 'a', 'passed'), assertion('the credential test on n8n-2.41', 'b', 'failed')] },
			{ name: '/r/test/e2e/trigger.e2e.test.ts', assertionResults: [assertion('Personnel Data Trigger in n8n-2.41', 'restart', 'passed'), assertion('Personnel Data Trigger in n8n-2.41', 'fast', 'pending')] },
			{ name: '/r/test/e2e/onError.e2e.test.ts', assertionResults: [assertion('On Error settings on n8n-2.41', 'x', 'passed')] },
		]);
		write('e2e-durable.json', [
			{
				name: '/r/test/e2e/durableScheduler.e2e.test.ts',
				assertionResults: [
					assertion("Personnel Data Trigger on n8n's schedulers (n8n-2.41)", 'durable scheduler, durable cursors on: …', 'passed'),
					assertion("Personnel Data Trigger on n8n's schedulers (n8n-2.41)", 'default scheduler: …', 'passed'),
				],
			},
		]);
		write('e2e-queue-n8n-2.41.json', [{ name: '/r/test/e2e/queue/actions.queue.test.ts', assertionResults: [assertion('q', 'a', 'passed'), assertion('q', 'b', 'passed')] }]);
		writeFileSync(join(folder, 'demo-n8n-2.41.json'), JSON.stringify({ key: 'n8n-2.41', examples: [{ passed: true }, { passed: true }, { passed: false }] }));
	});
	afterAll(() => rmSync(folder, { recursive: true, force: true }));

	it("sorts each assertion of the key (not of a key it is a prefix of) into its lane; skipped ones don't count", () => {
		expect(lanesFromResults(folder, 'n8n-2.41')).toEqual({
			package: { passed: 1, failed: 0 },
			credential: { passed: 1, failed: 1 },
			restart: { passed: 1, failed: 0 },
			e2e: { passed: 1, failed: 0 },
			durable: { passed: 1, failed: 0 },
			exactlyOnce: { passed: 1, failed: 0 },
			queue: { passed: 2, failed: 0 },
			demo: { passed: 2, failed: 1 },
		});
		expect(lanesFromResults(folder, 'n8n-2.41.3')).toEqual({ package: { passed: 0, failed: 1 } });
		expect(lanesFromResults(folder, 'n8n-1.123')).toEqual({});
	});

	it('counts a test run again for the key by its latest result, and a file run in parts by each part', () => {
		const rerun = join(folder, 'e2e-credential-rerun.json');
		writeFileSync(
			rerun,
			JSON.stringify({ testResults: [{ name: '/r/test/e2e/credential.e2e.test.ts', assertionResults: [{ ancestorTitles: ['the credential test on n8n-2.41'], title: 'b', status: 'passed' }] }] }),
		);
		utimesSync(rerun, new Date(), new Date(Date.now() + 60_000));
		try {
			// 'b' failed in e2e.json and passed when run again; 'a' keeps its result from e2e.json.
			expect(lanesFromResults(folder, 'n8n-2.41').credential).toEqual({ passed: 2, failed: 0 });
			expect(lanesFromResults(folder, 'n8n-2.41').package).toEqual({ passed: 1, failed: 0 });
		} finally {
			rmSync(rerun);
		}
		// .ci/run runs the schedulers' lanes in two parts (-t): each part skips the other's tests.
		const part = join(folder, 'e2e-durable-default.json');
		const title = "Personnel Data Trigger on n8n's schedulers (n8n-2.41)";
		writeFileSync(
			part,
			JSON.stringify({
				testResults: [
					{
						name: '/r/test/e2e/durableScheduler.e2e.test.ts',
						assertionResults: [
							{ ancestorTitles: [title], title: 'durable scheduler, durable cursors on: …', status: 'pending' },
							{ ancestorTitles: [title], title: 'default scheduler: …', status: 'failed' },
						],
					},
				],
			}),
		);
		utimesSync(part, new Date(), new Date(Date.now() + 60_000));
		try {
			expect(lanesFromResults(folder, 'n8n-2.41')).toMatchObject({ durable: { passed: 1, failed: 0 }, exactlyOnce: { passed: 0, failed: 1 } });
		} finally {
			rmSync(part);
		}
	});
});
