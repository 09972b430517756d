/**
 * docs/compatibility.md: the n8n versions the package is proven on. Generated from the pins
 * (scripts/n8n/versions.json) and from what CI's lanes showed on each (scripts/n8n/tested.json,
 * recorded from a run's results folder by `npm run docs:compatibility -- --record <folder>`).
 *
 * A results folder holds what `.ci/run` writes: jest's JSON results (e2e.json, e2e-durable.json,
 * e2e-queue-<key>.json, editor-<key>.json; any e2e-<name>.json counts like e2e.json) and the demo's
 * reports (demo-<key>.json, from `npm run demo -- --once --report`).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

import type { InstallFeatures } from '../n8n/driver/features';
import type { VersionPin } from '../n8n/driver/installs';

export const COMPATIBILITY_PAGE = 'docs/compatibility.md';
export const COMPATIBILITY_BLOCK = 'compatibility';
export const TESTED_FILE = 'scripts/n8n/tested.json';

/** How a lane ended on one version: passed / failed counts, or absent when it did not run there. */
export interface LaneOutcome {
	passed: number;
	failed: number;
}

/** The lanes of .ci/run, per n8n version. */
export const LANES = {
	package: 'the package loads, the action node runs, the trigger activates (package.e2e)',
	credential: "the credential's Test button: both auth modes, a wrong token, no server (credential.e2e)",
	demo: 'every example workflow of `npm run demo -- --once`',
	exactlyOnce: "the trigger's exactly-once lane on n8n's default scheduler: bursts, a Watch Fields baseline, a backfill across a restart (durableScheduler.e2e)",
	restart: 'the trigger across an n8n restart (trigger.e2e)',
	durable: "the same on n8n's durable scheduler, durable cursors on; off with N8N_E2E_DURABLE_LANES=all (durableScheduler.e2e)",
	e2e: 'the other end-to-end suites: workflows, On Error, HR import, Watch Fields, AI Agent tool, shell install (test/e2e)',
	queue: 'queue mode: PostgreSQL, Redis, a main and two workers (test/e2e/queue)',
	editor: "every form in n8n's editor, in Chromium (test/editor)",
} as const;
export type Lane = keyof typeof LANES;

export interface TestedVersion {
	n8n: string;
	/** The Node.js version the lanes ran on. */
	node: string;
	/** What the install offers (scripts/n8n/driver/features.ts), as recorded with the results. */
	features: InstallFeatures;
	lanes: Partial<Record<Lane, LaneOutcome>>;
}

export interface TestedRecord {
	/** The day the results were recorded (YYYY-MM-DD). */
	recordedAt: string;
	versions: Record<string, TestedVersion>;
}

interface JestAssertion {
	ancestorTitles: string[];
	title: string;
	status: string;
}
interface JestResults {
	testResults: Array<{ name: string; assertionResults: JestAssertion[] }>;
}

/** Whether a describe title is about `key` (n8n-2.41 is not n8n-2.41.3). */
const titleNames = (title: string, key: string): boolean => new RegExp(`${key.replace(/[.]/g, '\\.')}(?![\\w.])`).test(title);

/** The lane of one e2e assertion (file and title). */
function laneOf(file: string, assertion: JestAssertion): Lane {
	const base = file.split('/').pop() ?? file;
	if (base.startsWith('package.')) return 'package';
	if (base.startsWith('credential.')) return 'credential';
	if (base.startsWith('trigger.e2e')) return 'restart';
	if (base.startsWith('durableScheduler.')) return assertion.title.startsWith('default scheduler') ? 'exactlyOnce' : 'durable';
	return 'e2e';
}

function add(lanes: Partial<Record<Lane, LaneOutcome>>, lane: Lane, status: string): void {
	if (status !== 'passed' && status !== 'failed') return; // skipped, todo: not a result
	const outcome = (lanes[lane] ??= { passed: 0, failed: 0 });
	outcome[status]++;
}

/**
 * Every lane's outcome for `key` in a results folder. A test run again for the same key (a lane
 * rerun on its own, in a later results file) counts by its latest result; a test skipped there
 * (a file run in parts, `-t`) keeps the result it has from another file.
 */
export function lanesFromResults(folder: string, key: string): Partial<Record<Lane, LaneOutcome>> {
	const lanes: Partial<Record<Lane, LaneOutcome>> = {};
	const readJson = <T>(file: string): T | undefined => (existsSync(join(folder, file)) ? (JSON.parse(readFileSync(join(folder, file), 'utf8')) as T) : undefined);
	// e2e.json and e2e-durable.json from .ci/run; any other e2e-<name>.json from a lane run on its own.
	const e2eFiles = readdirSync(folder)
		.filter((file) => /^e2e(-.+)?\.json$/.test(file) && !file.startsWith('e2e-queue-'))
		.sort((a, b) => statSync(join(folder, a)).mtimeMs - statSync(join(folder, b)).mtimeMs);
	const latest = new Map<string, { lane: Lane; status: string }>();
	for (const file of e2eFiles) {
		for (const result of readJson<JestResults>(file)?.testResults ?? []) {
			const testFile = result.name.split('/').pop() ?? result.name;
			for (const assertion of result.assertionResults) {
				if (!titleNames(assertion.ancestorTitles[0] ?? '', key)) continue;
				const id = [testFile, ...assertion.ancestorTitles, assertion.title].join('\n');
				if (assertion.status === 'passed' || assertion.status === 'failed' || !latest.has(id)) latest.set(id, { lane: laneOf(result.name, assertion), status: assertion.status });
			}
		}
	}
	for (const { lane, status } of latest.values()) add(lanes, lane, status);
	for (const [lane, file] of [['queue', `e2e-queue-${key}.json`], ['editor', `editor-${key}.json`]] as const) {
		for (const result of readJson<JestResults>(file)?.testResults ?? []) {
			for (const assertion of result.assertionResults) add(lanes, lane, assertion.status);
		}
	}
	const demo = readJson<{ examples: Array<{ passed: boolean }> }>(`demo-${key}.json`);
	if (demo) lanes.demo = { passed: demo.examples.filter((e) => e.passed).length, failed: demo.examples.filter((e) => !e.passed).length };
	return lanes;
}


const FEATURE_NAMES: Record<keyof InstallFeatures, string> = {
	pollBudget: 'poll budget (`getPollBudgetMs`)',
	durableScheduler: 'durable scheduler',
	builderHints: "AI Workflow Builder (reads the nodes' builder hints)",
	toolMode: 'AI Agent tool (`usableAsTool`)',
	mcpServerTrigger: 'MCP Server Trigger',
};

const cell = (outcome: LaneOutcome | undefined): string =>
	outcome === undefined ? '—' : outcome.failed === 0 ? `✅ ${outcome.passed}` : `❌ ${outcome.failed} of ${outcome.passed + outcome.failed} failed`;

/** The Markdown of the generated block. */
export function renderCompatibility(pins: Record<string, VersionPin>, tested: TestedRecord): string {
	const keys = Object.keys(pins);
	const problems = keys.flatMap((key) => {
		const t = tested.versions[key];
		if (!t) return [`${key}: no CI results recorded (npm run docs:compatibility -- --record <results>)`];
		return t.n8n === pins[key].n8n ? [] : [`${key}: results are for n8n ${t.n8n}, the pin is ${pins[key].n8n}: record a new run`];
	});
	if (problems.length) throw new Error(`${TESTED_FILE} does not match scripts/n8n/versions.json:\n${problems.join('\n')}`);
	const header = ['n8n', ...keys.map((key) => tested.versions[key].n8n)];
	const row = (label: string, values: string[]) => `| ${label} | ${values.join(' | ')} |`;
	const lines = [
		`CI's results of ${tested.recordedAt} (\`${TESTED_FILE}\`); pins: \`scripts/n8n/versions.json\`. ✅ n: n tests passed; — not part of the recorded run (or not run on that version).`,
		'',
		row(header[0], header.slice(1)),
		row('---', keys.map(() => '---')),
		row('Node.js', keys.map((key) => tested.versions[key].node)),
		row('n8n settings for that Node.js (versions.json env)', keys.map((key) => Object.entries(pins[key].env ?? {}).map(([k, v]) => `\`${k}=${v}\``).join(' ') || 'none')),
		row('schedulers tested', keys.map((key) => schedulers(tested.versions[key]))),
		row('queue mode', keys.map((key) => (tested.versions[key].lanes.queue ? 'tested (main + 2 workers)' : 'not tested'))),
		...Object.entries(FEATURE_NAMES).map(([feature, name]) =>
			row(name, keys.map((key) => (tested.versions[key].features[feature as keyof InstallFeatures] ? 'yes' : 'no'))),
		),
		...(Object.keys(LANES) as Lane[]).map((lane) => row(LANES[lane], keys.map((key) => cell(tested.versions[key].lanes[lane])))),
	];
	return lines.join('\n');
}

function schedulers(version: TestedVersion): string {
	const modes = [version.lanes.exactlyOnce ? 'default' : undefined, version.lanes.durable ? 'durable' : undefined].filter(Boolean);
	return modes.length ? modes.join(', ') : 'none';
}
