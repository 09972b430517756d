import type { INodeProperties } from 'n8n-workflow';

import { scoped } from '../../shared/descriptions/scope';

/**
 * The node's versions. Version 2 writes employees from a column mapper and adds Create or Update;
 * saved workflows keep version 1 and its forms (n8n stores the version with each node).
 */
export const NODE_VERSIONS = [1, 2];
export const NODE_VERSION_COLUMNS = 2;
export const DEFAULT_NODE_VERSION = 2;

/** The property, shown only on these node versions (n8n's `@version` condition) and where it already was. */
export function inVersions(property: INodeProperties, versions: number[]): INodeProperties {
	return scoped(property, { show: { '@version': versions } });
}
