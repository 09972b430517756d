// Jest global setup of test/e2e/queue/jest.config.js: PostgreSQL, Redis and the n8n install must
// be there before the first cluster starts (prerequisites.ts).
import type { Config } from 'jest';

import { exitUnlessPrerequisites } from '../prerequisites';

export default function checkPrerequisites(_globalConfig: unknown, project: Config): void {
	const key = String(project.globals?.N8N_KEY);
	exitUnlessPrerequisites(`npm run test:e2e:queue (${key})`, ['package', 'n8n', 'redis', 'postgres'], { n8nKeys: [key] });
}
