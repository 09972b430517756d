import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

const ACRONYMS: Record<string, string> = { id: 'ID', url: 'URL' };

/** `updated_at` → "Updated At", `org_id` → "Org ID": the API's names as the editor shows them. */
export function labelOf(fieldName: string): string {
	return fieldName
		.split('_')
		.filter(Boolean)
		.map((word) => ACRONYMS[word] ?? word.charAt(0).toUpperCase() + word.slice(1))
		.join(' ');
}

/** "employee" → "an employee", "time report" → "a time report": for action texts. */
export const withArticle = (noun: string): string => `${/^[aeiou]/i.test(noun) ? 'an' : 'a'} ${noun}`;

/** n8n's lint wants options sorted by name. */
export function fieldOptions(fieldNames: readonly string[]): INodePropertyOptions[] {
	return fieldNames
		.map((name) => ({ name: labelOf(name), value: name }))
		.sort((a, b) => a.name.localeCompare(b.name));
}

/** The "Options" collection every operation ends with, its entries sorted as n8n's lint wants. */
export function optionsCollection(options: INodeProperties[]): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [...options].sort((a, b) => a.displayName.localeCompare(b.displayName)),
	};
}
