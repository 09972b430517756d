import type { INodeProperties } from 'n8n-workflow';

export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

const byIdMode = (what: string) => ({
	displayName: 'By ID',
	name: 'id',
	type: 'string' as const,
	placeholder: 'e.g. 3f2b8c1e-5d4a-4e7b-9c1d-2a6f8e0b7c9d',
	validation: [
		{
			type: 'regex' as const,
			properties: { regex: UUID_PATTERN, errorMessage: `The ${what} ID must be a UUID` },
		},
	],
});

export interface LocatorOptions {
	name: string;
	displayName: string;
	/** Lower-case noun for hints and messages, e.g. "employee". */
	what: string;
	/** listSearch method; absent when the API has no list to pick from. */
	searchMethod?: string;
	required?: boolean;
	description?: string;
}

export function recordLocator(options: LocatorOptions): INodeProperties {
	const locator: INodeProperties = {
		displayName: options.displayName,
		name: options.name,
		type: 'resourceLocator',
		default: { mode: options.searchMethod ? 'list' : 'id', value: '' },
		required: options.required ?? true,
		description: options.description,
		modes: [byIdMode(options.what)],
	};
	if (!options.searchMethod) return locator;
	return {
		...locator,
		// Written out under `modes` so n8n's lint and scanner see a mode, which has no default.
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: { searchListMethod: options.searchMethod, searchable: true },
			},
			byIdMode(options.what),
		],
	};
}
