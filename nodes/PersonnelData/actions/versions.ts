import type { IDisplayOptions } from 'n8n-workflow';

/**
 * The node's versions. Version 2 writes employees from a column mapper and adds Create or Update;
 * saved workflows keep version 1 and its forms (n8n stores the version with each node).
 */
export const NODE_VERSIONS = [1, 2];
export const NODE_VERSION_COLUMNS = 2;
export const DEFAULT_NODE_VERSION = 2;

/** `displayOptions` narrowed to some node versions (n8n's `@version` condition). */
export function forVersions(displayOptions: IDisplayOptions, versions: number[]): IDisplayOptions {
	return { ...displayOptions, show: { ...displayOptions.show, '@version': versions } };
}
