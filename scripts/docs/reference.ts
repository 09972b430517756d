/**
 * The operations-and-fields reference (docs/operations.md, its generated block), rendered from what
 * the code knows: the registry (paths, fields, filters, order, dated properties, change
 * timestamps), the node's operations, the trigger's events and the limits in apiChoices. Written by
 * `npm run docs:reference`; test/docs/reference.test.ts fails when the page is stale.
 */
import { HTTP, PAGE_SIZE_MAX } from '../../nodes/shared/apiChoices';
import type { ResourceDefinition } from '../../nodes/shared/registry';
import { filterableFields, orderableFields, RESOURCES } from '../../nodes/shared/registry';
import { CONCURRENCY_MAX, WRITE_CONCURRENCY_DEFAULT, WRITE_CONCURRENCY_MAX } from '../../nodes/PersonnelData/actions/concurrency';
import type { OperationName } from '../../nodes/PersonnelData/actions/operations';
import { operationsOf } from '../../nodes/PersonnelData/actions/operations';
import { unorderedReturnAll } from '../../nodes/PersonnelData/actions/generic/getMany.operation';
import { readsInBatches } from '../../nodes/PersonnelData/actions/read/recordsById';
import { LIST_REQUESTS_IN_FLIGHT, VALUES_PER_REQUEST } from '../../nodes/PersonnelData/actions/read/recordsWhere';
import { TOOL_MAX_BYTES, TOOL_MAX_RECORDS } from '../../nodes/PersonnelData/actions/toolMode';
import { eventsOf } from '../../nodes/PersonnelDataTrigger/events';
import { WATCH_RECORDS_MAX } from '../../nodes/PersonnelDataTrigger/watchFields';
import { LOOKBACK_MAX_MINUTES, MAX_CHANGES_CEILING, SETTLE_DEFAULT_MINUTES } from '../../nodes/PersonnelDataTrigger/setup';
import { DEFAULT_READ_BUDGET_SECONDS } from '../../nodes/PersonnelDataTrigger/pollBudget';

export const REFERENCE_PAGE = 'docs/operations.md';
export const REFERENCE_BLOCK = 'reference (npm run docs:reference)';

const code = (text: string) => `\`${text}\``;
const int = (n: number) => n.toLocaleString('en-US');
const row = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
const table = (headers: readonly string[], rows: readonly (readonly string[])[]) =>
	[row(headers), row(headers.map(() => '---')), ...rows.map(row)].join('\n');

/**
 * The requests each operation sends for one item. Keyed by every operation name, so a new
 * operation does not type-check until its requests are written down here.
 */
const REQUESTS: Record<OperationName, (resource: ResourceDefinition) => string> = {
	get: (r) =>
		`${code(`GET ${r.paths.get}`)}${readsInBatches(r) ? `; several items: ${code(`GET ${r.paths.list}`)} with ${code('filters[id][op]=in')}, ${VALUES_PER_REQUEST} IDs a request` : ''}${r.waitFor ? `; *Wait for Delivery* repeats the GET until ${code(`${r.waitFor.field} = ${r.waitFor.doneValue}`)}` : ''}`,
	getMany: (r) =>
		`${code(`GET ${r.paths.list}`)}, ${PAGE_SIZE_MAX} records a page${r.paths.shape ? `; with a Shape ${code(`POST ${r.paths.shape}`)}` : ''}; Return All without *Order By*: ${unorderedReturnAll(r)}`,
	create: (r) => code(`POST ${r.paths.create}`),
	update: (r) => `${code(`PATCH ${r.paths.update}`)}; a dated column first reads the history (${code(`GET ${r.paths.list}`)})`,
	replace: (r) => `${code(`PUT ${r.paths.replace}`)}; node version 2 first reads the employees (${code(`GET ${r.paths.list}`)}, ${VALUES_PER_REQUEST} IDs a request) to say what changed`,
	upsert: (r) =>
		`lookup ${code(`GET ${r.paths.list}`)} (${VALUES_PER_REQUEST} values a request), then ${code(`POST ${r.paths.create}`)} or ${code(`PATCH ${r.paths.update}`)} for rows that differ`,
	createOrUpdate: (r) => code(`POST ${r.paths.createOrUpdate}`),
};

function operationRows(resource: ResourceDefinition): string[][] {
	return operationsOf(resource).map((operation) => [
		operation.displayName + (operation.sinceVersion ? ` (node version ${operation.sinceVersion})` : ''),
		REQUESTS[operation.name as OperationName](resource),
	]);
}

function fieldRows(resource: ResourceDefinition): string[][] {
	return Object.entries(resource.fields).map(([name, field]) => [
		code(name),
		field.type + (field.values ? ` (${field.values.map(code).join(', ')})` : ''),
		field.filter ? field.filter.join(', ') : '—',
		field.orderable ? 'yes' : '—',
	]);
}

function resourceSection(resource: ResourceDefinition): string {
	const parts = [`### ${resource.displayName}`, resource.description + '.', table(['Operation', 'Requests'], operationRows(resource))];
	if (Object.keys(resource.fields).length > 0) {
		parts.push(table(['Field', 'Type', 'Filter operators', 'Order By'], fieldRows(resource)));
	}
	const facts: string[] = [];
	if (resource.datedProperties.length > 0) {
		facts.push(`Dated properties (${code('properties.<name>')}, ${code('[{valid_from, value}]')}): ${resource.datedProperties.map(code).join(', ')}.`);
	}
	if (resource.writable) {
		facts.push(`Writable fields: ${resource.writable.plainFields.map(code).join(', ')}; required to create or replace: ${resource.writable.requiredOnCreate.map(code).join(', ')}.`);
	}
	if (resource.conditionDomain) facts.push(`Condition picker: the saved conditions of domain ${code(resource.conditionDomain)}.`);
	if (resource.search) facts.push(`*From List* searches ${code(resource.search.field)} (${resource.search.operator}).`);
	const events = eventsOf(resource);
	if (resource.paths.list && events.length > 0) {
		facts.push(`Trigger events: ${events.map((event) => `${event.name} (${code(event.changeField(resource) as string)})`).join(', ')}.`);
	}
	if (facts.length > 0) parts.push(facts.map((fact) => `- ${fact}`).join('\n'));
	return parts.join('\n\n');
}

function overview(): string {
	return table(
		['Resource', 'Operations', 'Filterable fields', 'Orderable fields'],
		RESOURCES.map((resource) => [
			`[${resource.displayName}](#${resource.displayName.toLowerCase().replace(/ /g, '-')})`,
			operationsOf(resource).map((operation) => operation.displayName).join(', '),
			filterableFields(resource).map(code).join(', ') || '—',
			orderableFields(resource).map(code).join(', ') || '—',
		]),
	);
}

function limits(): string {
	const minutes = (ms: number) => `${ms / 60_000} min`;
	return table(
		['Limit', 'Value'],
		[
			['Records per list request (`pagination[first]`)', int(PAGE_SIZE_MAX)],
			['Requests per listing, default of *Options → Max Requests*', int(HTTP.walkMaxRequests)],
			['Time for one exchange (connection, headers, whole body)', minutes(HTTP.deadlineMs)],
			['Largest answer', `${HTTP.maxBodyBytes / 1024 / 1024} MB`],
			['Attempts of a retried request', int(HTTP.maxAttempts)],
			['Longest `Retry-After` waited for', minutes(HTTP.retryAfterMaxMs)],
			['Freshly provisioned tokens refused before a run stops', int(HTTP.refusedFreshTokensPerRun)],
			['*Options → Concurrency*', `1 to ${CONCURRENCY_MAX} on Get; on the writes of version 2 a ceiling of 1 to ${WRITE_CONCURRENCY_MAX} (default ${WRITE_CONCURRENCY_DEFAULT}, adaptive)`],
			['Batched reads and lookups', `${VALUES_PER_REQUEST} values a request, at least ${LIST_REQUESTS_IN_FLIGHT} requests in flight`],
			['As an AI tool', `${TOOL_MAX_RECORDS} records, ${int(TOOL_MAX_BYTES)} bytes of JSON per answer`],
			['Trigger: *Settle Window*', `0 to ${int(LOOKBACK_MAX_MINUTES)} minutes (default ${int(SETTLE_DEFAULT_MINUTES)})`],
			['Trigger: *Time Budget per Poll*', `1 to ${DEFAULT_READ_BUDGET_SECONDS} s (default ${DEFAULT_READ_BUDGET_SECONDS} s; on n8n's durable scheduler at most 70 % of the budget n8n gives)`],
			['Trigger: *Max Changes per Poll*', `0 (no cap) to ${int(MAX_CHANGES_CEILING)}`],
			['Trigger: records kept by *Watch Fields*', int(WATCH_RECORDS_MAX)],
		],
	);
}

/** The whole generated block. */
export function renderReference(): string {
	return [
		`Generated from ${code('nodes/shared/registry/')}, the node's operations and ${code('nodes/shared/apiChoices.ts')} by ${code('npm run docs:reference')}; ${code('npm test')} fails when this part is stale. Fields not listed here can still be used by name: see [Your own fields](#your-own-fields).`,
		overview(),
		...RESOURCES.map(resourceSection),
		'### Limits',
		limits(),
	].join('\n\n');
}
