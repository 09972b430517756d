import { readdirSync } from 'node:fs';
import { join } from 'node:path';

import { readBlock } from '../../scripts/docs/generatedBlock';
import { anchorsOf, brokenLinks, slugOf } from '../../scripts/docs/links';
import { REFERENCE_BLOCK, REFERENCE_PAGE, renderReference } from '../../scripts/docs/reference';
import { renderTriggerEvents, TRIGGER_EVENTS_BLOCK, TRIGGER_PAGE } from '../../scripts/docs/triggerEvents';
import { PERMISSIONS_BLOCK, PERMISSIONS_PAGE, renderPermissions } from '../../scripts/docs/permissions';

const ROOT = join(__dirname, '../..');
const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

describe('the documentation', () => {
	it('has a current operations reference (run `npm run docs:reference` when this fails)', () => {
		expect(readBlock(join(ROOT, REFERENCE_PAGE), REFERENCE_BLOCK)).toBe(renderReference().trim());
	});

	it('has a current table of the trigger\'s events (run `npm run docs:reference` when this fails)', () => {
		expect(readBlock(join(ROOT, TRIGGER_PAGE), TRIGGER_EVENTS_BLOCK)).toBe(renderTriggerEvents().trim());
	});

	it('has a current table of permissions per operation (run `npm run docs:reference` when this fails)', () => {
		expect(readBlock(join(ROOT, PERMISSIONS_PAGE), PERMISSIONS_BLOCK)).toBe(renderPermissions().trim());
	});

	it('has no broken relative link in README.md or docs/*.md', () => {
		expect(brokenLinks(ROOT, PAGES)).toEqual([]);
	});

	it('reads anchors as GitHub writes them', () => {
		expect(slugOf("3. Update an employee's title (keeps history)")).toBe('3-update-an-employees-title-keeps-history');
		expect(slugOf('Errors and several items (*Settings → On Error*)')).toBe('errors-and-several-items-settings--on-error');
		expect(slugOf('Inside real n8n 2.41.1 (`n8n execute`, 10,000 employees)')).toBe('inside-real-n8n-2411-n8n-execute-10000-employees');
		expect([...anchorsOf('# A\n## B\n## B\n```\n# not a heading\n```\n<a id="x"></a>')]).toEqual(['a', 'b', 'b-1', 'x']);
	});

	it('finds a broken link, and a missing anchor', () => {
		const broken = brokenLinks(ROOT, ['test/docs/fixtures/broken.md']);
		expect(broken.map(({ target, reason }) => `${target}: ${reason}`)).toEqual([
			'missing.md: no file test/docs/fixtures/missing.md',
			'../../../README.md#no-such-heading: no heading #no-such-heading in README.md',
		]);
	});
});
