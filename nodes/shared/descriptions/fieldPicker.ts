import type { INodeProperties } from 'n8n-workflow';

import type { FieldPickerMethod } from '../methods/loadOptions';

/** n8n's wording for a list that also takes a value given by an expression. */
const CHOOSE_OR_EXPRESSION = 'Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>';
const CHOOSE_OR_EXPRESSION_MANY = 'Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>';

interface FieldPicker {
	displayName: string;
	name: string;
	method: FieldPickerMethod;
	default: string;
	hint?: string;
}

const loadedFrom = (method: FieldPickerMethod) => ({ loadOptionsMethod: method, loadOptionsDependsOn: ['resource'] });

/**
 * A field of the resource, chosen from the registry's fields and those the customer's records show
 * (see fields/discover.ts), or any field name given by an expression. The parameter keeps its
 * name and string value, so workflows saved with the earlier fixed list keep working.
 */
export function fieldPicker(picker: FieldPicker): INodeProperties {
	const initial = picker.default;
	return {
		displayName: picker.displayName,
		name: picker.name,
		type: 'options',
		typeOptions: loadedFrom(picker.method),
		default: initial,
		description: CHOOSE_OR_EXPRESSION,
		...(picker.hint ? { hint: picker.hint } : {}),
	};
}

/** The same for several fields: a list, or field names separated by commas from an expression. */
export function fieldsPicker(picker: Omit<FieldPicker, 'default'>): INodeProperties {
	return {
		displayName: picker.displayName,
		name: picker.name,
		type: 'multiOptions',
		typeOptions: loadedFrom(picker.method),
		default: [],
		description: CHOOSE_OR_EXPRESSION_MANY,
		...(picker.hint ? { hint: picker.hint } : {}),
	};
}
