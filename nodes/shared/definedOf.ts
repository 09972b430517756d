/** The fields whose value is not `undefined`: a stored state keeps none (n8n's static data is JSON). */
export function definedOf<T extends object>(fields: T): Partial<T> {
	return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<T>;
}
