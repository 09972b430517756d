/** The nodes' and the credential's *Docs* links lead to a page (and heading) of this repository. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { PersonnelDataApi } from '../../credentials/PersonnelDataApi.credentials';
import { PersonnelData } from '../../nodes/PersonnelData/PersonnelData.node';
import { PersonnelDataTrigger } from '../../nodes/PersonnelDataTrigger/PersonnelDataTrigger.node';
import { DOCS_URLS, REPOSITORY_URL } from '../../nodes/shared/docsLinks';
import { anchorsOf } from '../../scripts/docs/links';

const ROOT = join(__dirname, '../..');

interface Codex {
	resources: { primaryDocumentation: { url: string }[]; credentialDocumentation: { url: string }[] };
}
const codexOf = (file: string): Codex => JSON.parse(readFileSync(join(ROOT, file), 'utf8')) as Codex;

/** The repository file and anchor a documentation address points at, as GitHub shows it. */
function inRepository(url: string): { file: string; anchor?: string } {
	const [address, anchor] = url.split('#', 2);
	if (address === REPOSITORY_URL) return { file: 'README.md', anchor };
	const prefix = `${REPOSITORY_URL}/blob/main/`;
	if (!address.startsWith(prefix)) throw new Error(`${url} is not a page of ${REPOSITORY_URL}`);
	return { file: address.slice(prefix.length), anchor };
}

describe('documentation links', () => {
	it.each(Object.entries(DOCS_URLS))('%s: %s exists in the repository', (_name, url) => {
		const { file, anchor } = inRepository(url);
		expect(existsSync(join(ROOT, file))).toBe(true);
		if (anchor !== undefined) expect([...anchorsOf(readFileSync(join(ROOT, file), 'utf8'))]).toContain(anchor);
	});

	it('the nodes and the credential use them, and so do the codex files', () => {
		expect(new PersonnelData().description.documentationUrl).toBe(DOCS_URLS.action);
		expect(new PersonnelDataTrigger().description.documentationUrl).toBe(DOCS_URLS.trigger);
		expect(new PersonnelDataApi().documentationUrl).toBe(DOCS_URLS.credential);
		for (const [file, page] of [
			['nodes/PersonnelData/PersonnelData.node.json', DOCS_URLS.action],
			['nodes/PersonnelDataTrigger/PersonnelDataTrigger.node.json', DOCS_URLS.trigger],
		]) {
			const { resources } = codexOf(file);
			expect(resources.primaryDocumentation.map(({ url }) => url)).toEqual([page]);
			expect(resources.credentialDocumentation.map(({ url }) => url)).toEqual([DOCS_URLS.credential]);
		}
	});
});
