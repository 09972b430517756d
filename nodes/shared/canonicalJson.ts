/** JSON with object keys sorted: the same value from the server always reads the same, whatever order its keys came in. */
export function canonicalJson(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
	if (typeof value === 'object' && value !== null) {
		const object = value as Record<string, unknown>;
		const keys = Object.keys(object).sort();
		return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(object[key])}`).join(',')}}`;
	}
	return JSON.stringify(value ?? null);
}
