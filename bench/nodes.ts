/**
 * The package's node classes, loaded from their TypeScript sources. Under tsx a bare
 * `…/PersonnelData.node` resolves to the codex file `PersonnelData.node.json` (Node tries `.json`
 * before tsx's `.ts`), so the runtime path names `.ts` explicitly; the types come from the sources.
 */
import type * as ActionModule from '../nodes/PersonnelData/PersonnelData.node';
import type * as TriggerModule from '../nodes/PersonnelDataTrigger/PersonnelDataTrigger.node';

// eslint-disable-next-line @typescript-eslint/no-require-imports
export const { PersonnelData } = require('../nodes/PersonnelData/PersonnelData.node.ts') as typeof ActionModule;
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const { PersonnelDataTrigger } = require('../nodes/PersonnelDataTrigger/PersonnelDataTrigger.node.ts') as typeof TriggerModule;
