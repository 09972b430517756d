/**
 * `npm run docs:compatibility [-- --record <results folder>]`: rewrites the table of
 * docs/compatibility.md from scripts/n8n/versions.json and scripts/n8n/tested.json. With --record,
 * first takes each pinned version's lane outcomes from a results folder (.ci/run writes
 * .e2e-tmp/ci-results) into tested.json, with what its install offers; versions the folder has
 * nothing for keep their earlier record.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { installFeatures } from '../n8n/driver/features';
import { n8nInstance, ROOT, versionPins } from '../n8n/driver/installs';
import { COMPATIBILITY_BLOCK, COMPATIBILITY_PAGE, lanesFromResults, renderCompatibility, TESTED_FILE, type TestedRecord } from './compatibility';
import { writeBlock } from './generatedBlock';

const testedPath = join(ROOT, TESTED_FILE);
const pins = versionPins();
const tested: TestedRecord = existsSync(testedPath) ? (JSON.parse(readFileSync(testedPath, 'utf8')) as TestedRecord) : { recordedAt: '', versions: {} };

const recordAt = process.argv.indexOf('--record');
if (recordAt >= 0) {
	const folder = process.argv[recordAt + 1];
	if (!folder) throw new Error('--record needs the results folder (.ci/run writes .e2e-tmp/ci-results)');
	for (const key of Object.keys(pins)) {
		const lanes = lanesFromResults(folder, key);
		if (Object.keys(lanes).length === 0) continue;
		const install = n8nInstance(key);
		const demoReport = join(folder, `demo-${key}.json`);
		const node = existsSync(demoReport)
			? (JSON.parse(readFileSync(demoReport, 'utf8')) as { node: string }).node
			: install.nodeVersion === 'system' ? process.versions.node : install.nodeVersion;
		tested.versions[key] = { n8n: install.n8nVersion, node, features: installFeatures(install), lanes };
		console.log(`${key}: ${JSON.stringify(lanes)}`);
	}
	for (const key of Object.keys(tested.versions)) if (!pins[key]) delete tested.versions[key];
	tested.recordedAt = new Date().toISOString().slice(0, 10);
	writeFileSync(testedPath, `${JSON.stringify(tested, null, 2)}\n`);
	console.log(`wrote ${TESTED_FILE}`);
}
const page = join(ROOT, COMPATIBILITY_PAGE);
console.log(writeBlock(page, COMPATIBILITY_BLOCK, renderCompatibility(pins, tested)) ? `wrote ${COMPATIBILITY_PAGE}` : `${COMPATIBILITY_PAGE} is current`);
