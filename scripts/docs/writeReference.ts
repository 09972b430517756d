/** `npm run docs:reference`: rewrites the generated blocks of docs/ (the reference, the trigger's events). */
import { join } from 'node:path';

import { writeBlock } from './generatedBlock';
import { REFERENCE_BLOCK, REFERENCE_PAGE, renderReference } from './reference';
import { renderTriggerEvents, TRIGGER_EVENTS_BLOCK, TRIGGER_PAGE } from './triggerEvents';

const blocks: Array<[string, string, () => string]> = [
	[REFERENCE_PAGE, REFERENCE_BLOCK, renderReference],
	[TRIGGER_PAGE, TRIGGER_EVENTS_BLOCK, renderTriggerEvents],
];
for (const [page, block, render] of blocks) {
	const file = join(__dirname, '../..', page);
	console.log(writeBlock(file, block, render()) ? `wrote ${page} (${block})` : `${page} (${block}) is current`);
}
