/**
 * What the editor knows about a node type: its description as n8n serves it to the editor
 * (`/types/nodes.json`), and what follows from it for one resource and operation (or event) of a
 * fresh node: which parameters it shows, which are required and empty, which are field pickers.
 */
import type { INodeProperties, INodePropertyCollection, INodeTypeDescription } from 'n8n-workflow';

/** The parameters that choose a form: resource plus operation (action node) or event (trigger). */
export type FormChoice = Record<string, string>;

/** The newest version of `type` among n8n's node types (a versioned node lists each version). */
export function newestDescription(types: readonly INodeTypeDescription[], type: string): { description: INodeTypeDescription; version: number } {
	let newest: { description: INodeTypeDescription; version: number } | undefined;
	for (const description of types.filter((candidate) => candidate.name === type)) {
		const versions = Array.isArray(description.version) ? description.version : [description.version];
		const version = Math.max(...versions);
		if (!newest || version > newest.version) newest = { description, version };
	}
	if (!newest) throw new Error(`n8n does not know the node type ${type}`);
	return newest;
}

/**
 * Whether `displayOptions.show`/`hide` let a property show for `choice` on node version `version`.
 * Only the form's choosing parameters and n8n's `@version` are judged ('/event' is the root's
 * event); a condition on anything else is taken as met (the DOM decides what is really displayed).
 * Without `@version`, a versioned node's form would take in the other versions' parameters.
 */
export function shownFor(property: Pick<INodeProperties, 'displayOptions'>, choice: FormChoice, version: number): boolean {
	const { show, hide } = property.displayOptions ?? {};
	const judged = (key: string): string | number | undefined => (key === '@version' ? version : choice[key.replace(/^\//, '')]);
	const lists = (values: unknown, current: string | number) => Array.isArray(values) && (values as unknown[]).includes(current);
	for (const [key, values] of Object.entries(show ?? {})) {
		const current = judged(key);
		if (current !== undefined && Array.isArray(values) && !lists(values, current)) return false;
	}
	for (const [key, values] of Object.entries(hide ?? {})) {
		const current = judged(key);
		if (current !== undefined && lists(values, current)) return false;
	}
	return true;
}

/** The top-level properties of the form for `choice` on node version `version`. */
export function formProperties(description: INodeTypeDescription, choice: FormChoice, version: number): INodeProperties[] {
	return description.properties.filter((property) => shownFor(property, choice, version));
}

/** A default a fresh node leaves empty: nothing, an empty text or list, or a record locator without a value. */
export function isEmptyDefault(value: unknown): boolean {
	if (value === undefined || value === null || value === '') return true;
	if (Array.isArray(value)) return value.length === 0;
	if (typeof value === 'object') {
		const locator = value as { __rl?: boolean; value?: unknown; mode?: unknown };
		if ('value' in locator && ('mode' in locator || locator.__rl)) return locator.value === '' || locator.value === undefined;
	}
	return false;
}

/** A list of choices the editor loads from the node (a load-options or resource-mapper method). */
export interface FieldPickerSpot {
	/** Parameter path as the editor sends it, e.g. `parameters.options.watchFields`. */
	path: string;
	/** The parameter's name. */
	name: string;
	kind: 'loadOptions' | 'resourceMapper';
	method: string;
	/** A resource mapper's mode (`add`, `update`, `upsert`: upsert offers columns to match on). */
	mapperMode?: string;
}

/** The properties nested in a collection (path `<name>.<option>`) or fixedCollection (`<name>.<group>.<value>`). */
function children(property: INodeProperties, path: string): Array<{ property: INodeProperties; path: string }> {
	if (property.type === 'collection') {
		return ((property.options ?? []) as INodeProperties[]).map((option) => ({ property: option, path: `${path}.${option.name}` }));
	}
	if (property.type === 'fixedCollection') {
		return ((property.options ?? []) as INodePropertyCollection[]).flatMap((group) =>
			group.values.map((value) => ({ property: value, path: `${path}.${group.name}.${value.name}` })),
		);
	}
	return [];
}

/** Every field picker of the form for `choice` on node version `version`, nested ones (in Options, Filters) included. */
export function fieldPickers(description: INodeTypeDescription, choice: FormChoice, version: number): FieldPickerSpot[] {
	const spots: FieldPickerSpot[] = [];
	const walk = (entries: Array<{ property: INodeProperties; path: string }>) => {
		for (const { property, path } of entries.filter((entry) => shownFor(entry.property, choice, version))) {
			const loadOptions = property.typeOptions?.loadOptionsMethod;
			const mapper = property.typeOptions?.resourceMapper?.resourceMapperMethod;
			if (loadOptions) spots.push({ path, name: property.name, kind: 'loadOptions', method: loadOptions });
			if (mapper) spots.push({ path, name: property.name, kind: 'resourceMapper', method: mapper, mapperMode: property.typeOptions?.resourceMapper?.mode });
			walk(children(property, path));
		}
	};
	walk(description.properties.map((property) => ({ property, path: `parameters.${property.name}` })));
	return spots;
}

/** The resource locators of the form with a "From List" mode: their search method. */
export function listSearches(description: INodeTypeDescription, choice: FormChoice, version: number): Array<{ name: string; method: string }> {
	return formProperties(description, choice, version).flatMap((property) => {
		if (property.type !== 'resourceLocator') return [];
		const list = property.modes?.find((mode) => mode.type === 'list');
		const method = list?.typeOptions?.searchListMethod;
		return method ? [{ name: property.name, method }] : [];
	});
}
