/**
 * Where the nodes' and the credential's *Docs* links lead: the page of docs/ that matches. The
 * codex files (*.node.json) hold the same addresses; test/docs/docsLinks.test.ts checks that they
 * agree and that every page and anchor exists in the repository.
 */
export const REPOSITORY_URL = 'https://github.com/personnel-data/n8n-nodes-personnel-data';
const page = (path: string) => `${REPOSITORY_URL}/blob/main/${path}`;

export const DOCS_URLS = {
	action: page('docs/operations.md'),
	trigger: page('docs/trigger.md'),
	credential: `${REPOSITORY_URL}#set-up-the-credential`,
} as const;
