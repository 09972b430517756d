/**
 * Record ids are UUIDs, and the spec does not say in which letter case a server writes them: the
 * same record may come as `3f2b…` in one answer and `3F2B…` in another, or be asked for by a user
 * in the other case. Every place that matches a record to an id compares through these two, so no
 * comparison is made exactly by accident (docs/server-matrix.md: "ids are compared without regard
 * to case").
 */

/** The key an id is compared and stored by: one record, whatever the case it was written in. */
export const idKey = (id: string | number): string => String(id).toLowerCase();

/** Whether two ids name the same record; a missing id (undefined, null, an object) names none. */
export function sameId(a: unknown, b: unknown): boolean {
	const known = (value: unknown): value is string | number => typeof value === 'string' || typeof value === 'number';
	return known(a) && known(b) && idKey(a) === idKey(b);
}
