import type { ResourceDefinition } from './registry';
import { QUERY } from './apiChoices';
import type { ApiRequest, Query } from './transport';

/** A Return All that may be read in ranges of the creation timestamp, in the order asked for. */
export interface RangePlan {
	field: string;
	direction: 'asc' | 'desc';
}

/**
 * The order Return All reads in when none is asked for: the creation timestamp, where the list
 * orders by it and filters it with `gte` and `lt` (the spec promises no order without one, so the
 * node may choose). Undefined: the resource's list has no such order, and is read with one cursor.
 */
export function rangeField(resource: ResourceDefinition): string | undefined {
	const field = resource.changeFields?.created;
	const definition = field === undefined ? undefined : resource.fields[field];
	if (field === undefined || !definition?.orderable) return undefined;
	return definition.filter?.includes('gte') && definition.filter.includes('lt') ? field : undefined;
}

/**
 * Ranges only where they cannot change the answer: a GET list (no shape), no condition (its pages
 * are bounded scans), no filter of the user's on the timestamp, the timestamp in every record
 * (select), and records asked for in that timestamp's order or in no order (the node then chooses
 * it, oldest first). Any other order is the user's: one cursor. The creation timestamp never
 * changes, so a record cannot move from one range to another.
 */
export function rangePlan(resource: ResourceDefinition, request: ApiRequest): RangePlan | undefined {
	const field = rangeField(resource);
	if (field === undefined || request.method !== 'GET') return undefined;
	const query: Query = request.query ?? {};
	if (query[QUERY.conditionId] !== undefined) return undefined;
	if (Object.keys(query).some((key) => key.startsWith(`filters[${field}]`))) return undefined;
	const select = query[QUERY.select];
	if (select !== undefined && !(Array.isArray(select) && select.includes(field))) return undefined;
	const order = query[QUERY.orderField];
	if (order === undefined) return { field, direction: 'asc' };
	if (order !== field) return undefined;
	return { field, direction: query[QUERY.orderDirection] === 'desc' ? 'desc' : 'asc' };
}
