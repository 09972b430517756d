import { readFileSync } from 'fs';
import { join } from 'path';

import { VARIATION_SWITCHES } from '../../scripts/simulator/variations';

/** docs/server-matrix.md's table of switches, held to the simulator's: every switch, every value. */
describe('docs/server-matrix.md: the switches', () => {
	const page = readFileSync(join(__dirname, '../../docs/server-matrix.md'), 'utf8');
	const rows = new Map(
		page
			.split('\n')
			.filter((line) => /^\| `[A-Za-z]+`/.test(line))
			.map((line) => [/^\| `([A-Za-z]+)`/.exec(line)?.[1] ?? '', line]),
	);

	it.each(Object.entries(VARIATION_SWITCHES))('%s has a row that names each of its values', (name, values) => {
		const row = rows.get(name);
		expect(row).toBeDefined();
		const valuesCell = (row ?? '').split(' | ')[1] ?? '';
		for (const value of values as readonly unknown[]) expect(valuesCell).toContain(typeof value === 'number' ? String(value) : `\`${String(value)}\``);
	});
});
