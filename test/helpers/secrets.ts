/**
 * A mechanical check that no secret leaked into what a user or a log can see: output items, error
 * messages, descriptions, JSON-serialised errors (incl. n8n's `messages`, `context`, `cause`),
 * log lines. Reusable by any suite:
 *
 *   expectNoSecrets([result.items, result.error, runtime.logs], secretsOf(bed));
 */

/** Everything reachable from `value` as text: strings, error fields (own and inherited), JSON. */
export function textOf(value: unknown): string {
	const parts: string[] = [];
	const seen = new WeakSet<object>();
	const visit = (current: unknown, depth: number): void => {
		if (current === null || current === undefined || depth > 12) return;
		if (typeof current === 'string') {
			parts.push(current);
			return;
		}
		if (typeof current !== 'object') {
			parts.push(String(current));
			return;
		}
		if (seen.has(current)) return;
		seen.add(current);
		if (current instanceof Error) {
			parts.push(current.message, current.stack ?? '');
			try {
				parts.push(JSON.stringify(current));
			} catch {
				// circular: the fields are visited below anyway
			}
		}
		for (const key of Object.getOwnPropertyNames(current)) {
			visit((current as Record<string, unknown>)[key], depth + 1);
		}
	};
	visit(value, 0);
	return parts.join('\n');
}

/** Fails the test, naming where a secret was found (never printing the secret itself). */
export function expectNoSecrets(haystack: unknown, secrets: string[]): void {
	const text = textOf(haystack);
	const wanted = [...new Set(secrets.filter((secret) => typeof secret === 'string' && secret.length >= 8))];
	if (wanted.length === 0) throw new Error('expectNoSecrets: no secrets given (the check would prove nothing)');
	const leaks: string[] = [];
	wanted.forEach((secret, index) => {
		for (const form of [secret, encodeURIComponent(secret)]) {
			const at = text.indexOf(form);
			if (at !== -1) {
				leaks.push(`secret #${index} (${secret.length} chars) found near: …${text.slice(Math.max(0, at - 60), at)}[SECRET]…`);
				break;
			}
		}
	});
	if (leaks.length > 0) throw new Error(`Secrets leaked:\n${leaks.join('\n')}`);
}
