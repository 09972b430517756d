/**
 * What the items of one node run share: each value is made once, by the first item that asks for
 * it (a batched read that serves every item). The router makes one per run, so nothing outlives it.
 */
export class PerRun {
	private readonly values = new Map<string, unknown>();

	of<T>(key: string, make: () => T): T {
		if (!this.values.has(key)) this.values.set(key, make());
		return this.values.get(key) as T;
	}
}
