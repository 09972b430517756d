/**
 * docs/trigger.md's Liveness section quotes limits the trigger's code holds: checked here, so the
 * page and the code cannot drift apart.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { HTTP } from '../../nodes/shared/apiChoices';
import { IDS_KEPT_MAX } from '../../nodes/PersonnelDataTrigger/changeState';
import { HAND_OVER_WINDOW_MS } from '../../nodes/PersonnelDataTrigger/handOver';

const page = (name: string) => readFileSync(join(__dirname, '..', '..', 'docs', name), 'utf8');
const section = (text: string, heading: string) => {
	const start = text.indexOf(`## ${heading}`);
	expect(start).toBeGreaterThanOrEqual(0);
	const end = text.indexOf('\n## ', start + 3);
	return text.slice(start, end === -1 ? undefined : end);
};
const english = (value: number) => value.toLocaleString('en-US');

describe('docs/trigger.md: Liveness', () => {
	const liveness = section(page('trigger.md'), 'Liveness: every poll moves on');

	it('quotes the ids kept at one timestamp as the code keeps them', () => {
		const quoted = [...liveness.matchAll(/ids of the records it sent at exactly the\s+watermark only up to ([\d,]+)/g)].map((m) => m[1]);
		expect(quoted).toEqual([english(IDS_KEPT_MAX)]);
		const limits = [...liveness.matchAll(/in a group larger than ([\d,]+) records/g)].map((m) => m[1]);
		expect(limits).toEqual([english(IDS_KEPT_MAX)]);
		expect(page('scale.md')).toContain(`by id up to ${english(IDS_KEPT_MAX)}`);
		expect(page('trigger.md')).toMatch(new RegExp(`for a group of more\\s+than ${english(IDS_KEPT_MAX)} by count`));
	});

	it('quotes the default Max Requests of one listing as the code has it', () => {
		expect(liveness).toContain(`*Options → Max Requests* (default ${english(HTTP.walkMaxRequests)})`);
	});

	it('quotes the hand-over window as the code has it, on every page that names it', () => {
		const seconds = `${HAND_OVER_WINDOW_MS / 1000} s`;
		expect(liveness).toContain(`in a new process started within ${seconds} of the hand-over`);
		for (const text of [page('trigger.md'), page('scale.md')]) {
			const quoted = [...text.matchAll(/within (\d+ s) of (?:a poll that sent changes sends|the hand-over)|started again within (\d+ s)|\(within (\d+ s)\), that poll/g)].map((m) => m[1] ?? m[2] ?? m[3]);
			expect(quoted.length).toBeGreaterThan(0);
			expect(new Set(quoted)).toEqual(new Set([seconds]));
		}
	});
});
