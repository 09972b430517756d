import type { IDataObject } from 'n8n-workflow';

/**
 * A PATCH changes only what it names, whatever the server does with an object it is given.
 *
 * The spec says how PATCH treats dated properties (a history given replaces the history) and says
 * nothing about an object inside `properties`, such as `custom_properties`: one server merges the
 * keys given into the stored object, another replaces the object whole and so drops every key the
 * write did not name. Sending the object whole, the keys given over the keys the employee has,
 * leaves the same record on both. The node reads the employee before each PATCH anyway (to merge
 * histories, or to compare), so this costs no request where an object is written.
 */

const isObject = (value: unknown): value is IDataObject => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Whether the PATCH's `{ data }` writes an object inside `properties` (and so needs the employee's current one). */
export function writesPropertyObjects(data: IDataObject): boolean {
	return isObject(data.properties) && Object.values(data.properties).some(isObject);
}

/**
 * `data.properties` with each object value given as the employee's object with the given keys
 * over it (`current` is the employee as read; a property that is no object there is sent as given).
 */
export function withUnnamedKeysKept(data: IDataObject, current: IDataObject): IDataObject {
	if (!writesPropertyObjects(data)) return data;
	const stored = isObject(current.properties) ? current.properties : {};
	const properties: IDataObject = { ...(data.properties as IDataObject) };
	for (const [name, value] of Object.entries(properties)) {
		const before = stored[name];
		if (isObject(value) && isObject(before)) properties[name] = { ...before, ...value };
	}
	return { ...data, properties };
}
