// Jest global setup of each project of test/e2e/jest.config.js (one project per n8n key): the
// built package and the project's n8n install must be there before any test starts (prerequisites.ts).
import type { Config } from 'jest';

import { exitUnlessPrerequisites } from './prerequisites';

export default function checkPrerequisites(_globalConfig: unknown, project: Config): void {
	const key = String(project.globals?.N8N_KEY);
	exitUnlessPrerequisites(`npm run test:e2e (${key})`, ['package', 'n8n'], { n8nKeys: [key] });
}
