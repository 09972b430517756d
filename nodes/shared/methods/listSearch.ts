import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { QUERY } from '../apiChoices';
import { readListPage } from '../listPage';
import type { ResourceDefinition } from '../registry';
import { resourceByValue } from '../registry';
import { condition } from '../registry/resources/condition';
import type { ApiRequest, Query } from '../transport';

const SEARCH_PAGE_SIZE = 50;

function label(record: IDataObject, fields: readonly string[]): string {
	const parts = fields.map((field) => record[field]).filter((value) => value !== undefined && value !== null && value !== '');
	return parts.length > 0 ? parts.join(' · ') : String(record.id);
}

type Search = NonNullable<ResourceDefinition['search']>;

/** What the user typed, as the API's filters: an email, "First Last", or part of the search field. */
function searchFilters(search: Search, text: string): Query {
	const filter = (field: string, value: string, operator = search.operator): Query => ({
		[QUERY.filter(field, 'op')]: operator,
		[QUERY.filter(field, 'value')]: operator === 'ilike' ? `%${value}%` : value,
	});
	if (search.emailField && text.includes('@')) return filter(search.emailField, text, 'ilike');
	const words = text.split(/\s+/);
	if (search.fullName && words.length > 1) {
		return { ...filter(search.fullName.first, words[0], 'ilike'), ...filter(search.fullName.last, words.slice(1).join(' '), 'ilike') };
	}
	return filter(search.field, text);
}

async function searchList(
	context: ILoadOptionsFunctions,
	resource: ResourceDefinition,
	extraQuery: Query,
	filter: string | undefined,
	paginationToken: string | undefined,
): Promise<INodeListSearchResult> {
	const search = resource.search as Search;
	const query: Query = filter?.trim() ? { ...extraQuery, ...searchFilters(search, filter.trim()) } : { ...extraQuery };
	const request: ApiRequest = { method: 'GET', path: resource.paths.list as string, query };
	const page = await readListPage.call(context, request, { first: SEARCH_PAGE_SIZE, after: paginationToken });
	return {
		results: page.records.map((record) => ({ name: label(record, search.labelFields), value: String(record.id) })),
		paginationToken: page.endCursor,
	};
}

/** "From List" of the record locator: records of the node's current resource. */
export async function searchRecords(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const resource = resourceByValue(this.getNodeParameter('resource', 'employee') as string);
	if (!resource.search || !resource.paths.list) return { results: [] };
	return await searchList(this, resource, {}, filter, paginationToken);
}

/** The Condition picker: only conditions of the domain the current resource belongs to. */
export async function searchConditions(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const resource = resourceByValue(this.getNodeParameter('resource', 'employee') as string);
	if (!resource.conditionDomain) return { results: [] };
	const byDomain: Query = { [QUERY.filter('domain', 'op')]: 'eq', [QUERY.filter('domain', 'value')]: resource.conditionDomain };
	try {
		return await searchList(this, condition, byDomain, filter, paginationToken);
	} catch (error) {
		throw explainConditionListFailure(this, error);
	}
}

/**
 * Listing conditions needs the Conditions grant, filtering by one does not (spec: Filtering by
 * condition): a role without the grant can still use a condition by its ID, so say so.
 */
function explainConditionListFailure(context: ILoadOptionsFunctions, error: unknown): Error {
	if ((error as { httpCode?: string | null }).httpCode !== '403') return error as Error;
	return new NodeOperationError(
		context.getNode(),
		'This credential\'s role may not list conditions (it lacks the Conditions grant). Choose "By ID" and paste the condition\'s ID: filtering by a condition needs no grant.',
	);
}
