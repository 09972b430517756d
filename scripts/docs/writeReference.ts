/** `npm run docs:reference`: rewrites the generated blocks of docs/ (the reference, the trigger's events, the error messages). */
import { join } from 'node:path';

import { MESSAGES_BLOCK, renderErrorMessages, TROUBLESHOOTING_PAGE } from './errorMessages';
import { writeBlock } from './generatedBlock';
import { PERMISSIONS_BLOCK, PERMISSIONS_PAGE, renderPermissions } from './permissions';
import { REFERENCE_BLOCK, REFERENCE_PAGE, renderReference } from './reference';
import { renderTriggerEvents, TRIGGER_EVENTS_BLOCK, TRIGGER_PAGE } from './triggerEvents';

const ROOT = join(__dirname, '../..');
const blocks: Array<[string, string, () => string]> = [
	[REFERENCE_PAGE, REFERENCE_BLOCK, renderReference],
	[TRIGGER_PAGE, TRIGGER_EVENTS_BLOCK, renderTriggerEvents],
	[TROUBLESHOOTING_PAGE, MESSAGES_BLOCK, () => renderErrorMessages(ROOT)],
	[PERMISSIONS_PAGE, PERMISSIONS_BLOCK, renderPermissions],
];
for (const [page, block, render] of blocks) {
	const file = join(ROOT, page);
	console.log(writeBlock(file, block, render()) ? `wrote ${page} (${block})` : `${page} (${block}) is current`);
}
