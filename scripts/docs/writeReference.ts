/** `npm run docs:reference`: rewrites the generated reference in docs/operations.md. */
import { join } from 'node:path';

import { writeBlock } from './generatedBlock';
import { REFERENCE_BLOCK, REFERENCE_PAGE, renderReference } from './reference';

const file = join(__dirname, '../..', REFERENCE_PAGE);
console.log(writeBlock(file, REFERENCE_BLOCK, renderReference()) ? `wrote ${REFERENCE_PAGE}` : `${REFERENCE_PAGE} is current`);
