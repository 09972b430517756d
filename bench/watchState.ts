/**
 * `npx tsx bench/watchState.ts`: the size of the state Watch Fields keeps (README: Watch fields).
 *
 * Builds the baseline exactly as the trigger does (watchFields.ts `Baseline`) from the simulator's
 * employees (100,000 generated records) and measures it as n8n stores static data: JSON, UTF-8.
 */
import { Baseline, readWatchSetup } from '../nodes/PersonnelDataTrigger/watchFields';
import { Simulator } from '../scripts/simulator/simulator';

const SIZES = [1, 10_000, 100_000];

const CONFIGURATIONS: Array<[string, string[], boolean]> = [
	['manager (dated), fingerprint', ['properties.manager_id'], false],
	['manager (dated), previous values', ['properties.manager_id'], true],
	['email + title + manager + shirt size, fingerprints', ['email', 'properties.title', 'properties.manager_id', 'custom_properties.shirt_size'], false],
	['email + title + manager + shirt size, previous values', ['email', 'properties.title', 'properties.manager_id', 'custom_properties.shirt_size'], true],
];

const sim = new Simulator();
const existing = sim.getRecords('employees').length;
if (existing < SIZES[SIZES.length - 1]) sim.createRecords('employees', SIZES[SIZES.length - 1] - existing);
const employees = sim.getRecords('employees');

const rows: string[] = ['| Watched | bytes per record | 10,000 records | 100,000 records |', '|---|---:|---:|---:|'];
for (const [label, fields, withValues] of CONFIGURATIONS) {
	const watch = readWatchSetup(fields, withValues);
	if (!watch) throw new Error('no fields');
	const bytes = SIZES.map((size) => {
		const baseline = new Baseline(watch);
		for (const record of employees.slice(0, size)) baseline.add(record);
		return Buffer.byteLength(JSON.stringify(baseline.state), 'utf8');
	});
	const perRecord = Math.round((bytes[2] - bytes[0]) / (SIZES[2] - 1));
	const mb = (n: number) => `${(n / 1_000_000).toFixed(2)} MB`;
	rows.push(`| ${label} | ${perRecord} | ${mb(bytes[1])} | ${mb(bytes[2])} |`);
}
console.log(rows.join('\n'));
