import type { IDataObject, INodeParameterResourceLocator } from 'n8n-workflow';

import { QUERY } from '../apiChoices';
import { labelOf } from '../descriptions/labels';
import type { FilterOperator, ResourceDefinition } from '../registry';
import { FILTER_OPERATORS } from '../registry';
import type { Query } from '../transport';
import { InputError } from '../errors';
import { checkValue, expectationOf, uuidSchema } from '../validation';

export interface FilterRow {
	field: string;
	operator: string;
	value: string;
}

function checkFilter(resource: ResourceDefinition, row: FilterRow, position: number): [string, string | string[]] {
	const where = `Filters › Filter ${position}`;
	const field = resource.fields[row.field];
	if (!field?.filter) {
		const allowed = Object.keys(resource.fields).filter((name) => resource.fields[name].filter);
		throw new InputError(`${where} › Field: "${row.field}" cannot be filtered on ${resource.pluralName}; expected one of ${allowed.join(', ')}`);
	}
	const operator = row.operator as FilterOperator;
	if (!FILTER_OPERATORS.includes(operator) || !field.filter.includes(operator)) {
		throw new InputError(`${where} › Operator: "${row.operator}" is not allowed for ${labelOf(row.field)}; expected one of ${field.filter.join(', ')}`);
	}
	const raw = String(row.value ?? '');
	const parts = operator === 'in' ? raw.split(',').map((part) => part.trim()).filter(Boolean) : [raw];
	if (parts.length === 0 || parts.some((part) => part.trim() === '')) {
		throw new InputError(`${where} › Value: a value is required for ${labelOf(row.field)}; expected ${expectationOf(field)}`);
	}
	const checked = parts.map((part) => {
		const value = checkValue(field, part);
		if (value === undefined) {
			throw new InputError(`${where} › Value: "${part}" is not valid for ${labelOf(row.field)}; expected ${expectationOf(field)}`);
		}
		return value;
	});
	return [operator, operator === 'in' ? checked : checked[0]];
}

export interface ListQueryInput {
	filters?: FilterRow[];
	conditionId?: string;
	orderBy?: string;
	orderDirection?: string;
	select?: string[];
}

/** Turns the form's values into the API's query, checking each against the registry. */
export function buildListQuery(resource: ResourceDefinition, input: ListQueryInput): Query {
	const query: Query = {};
	const filteredBy = new Map<string, number>();
	(input.filters ?? []).forEach((row, index) => {
		const [operator, value] = checkFilter(resource, row, index + 1);
		// `filters[<field>]` holds one op and one value: a second filter on the same field would
		// silently replace the first (a range "from … to …" would lose its start).
		const earlier = filteredBy.get(row.field);
		if (earlier !== undefined) {
			throw new InputError(
				`Filters › Filter ${index + 1} › Field: ${labelOf(row.field)} is already filtered by Filter ${earlier}; expected each field once (the API takes one operator and value per field)`,
			);
		}
		filteredBy.set(row.field, index + 1);
		query[QUERY.filter(row.field, 'op')] = operator;
		query[QUERY.filter(row.field, 'value')] = value;
	});
	if (input.conditionId) {
		if (!resource.conditionDomain) throw new InputError(`Condition: ${resource.pluralName} cannot be filtered by a condition`);
		if (!uuidSchema.safeParse(input.conditionId).success) {
			throw new InputError(`Condition: "${input.conditionId}" is not a condition ID; expected a UUID`);
		}
		query[QUERY.conditionId] = input.conditionId;
	}
	if (input.orderBy) {
		if (!resource.fields[input.orderBy]?.orderable) {
			throw new InputError(`Options › Order By: ${resource.pluralName} cannot be ordered by "${input.orderBy}"`);
		}
		if (input.orderDirection !== 'asc' && input.orderDirection !== 'desc') {
			throw new InputError(`Options › Order Direction: expected asc or desc, got "${input.orderDirection}"`);
		}
		query[QUERY.orderField] = input.orderBy;
		query[QUERY.orderDirection] = input.orderDirection;
	}
	if (input.select && input.select.length > 0) {
		const unknown = input.select.filter((name) => !resource.fields[name]);
		if (unknown.length > 0) {
			throw new InputError(`Options › Fields to Return: unknown field ${unknown.join(', ')}; expected fields of ${resource.pluralName}`);
		}
		query[QUERY.select] = input.select.includes('id') ? input.select : ['id', ...input.select];
	}
	return query;
}

export function locatorValue(parameter: unknown): string {
	if (parameter !== null && typeof parameter === 'object') {
		return String((parameter as INodeParameterResourceLocator).value ?? '').trim();
	}
	return String(parameter ?? '').trim();
}

/** Reads a node parameter at the current item (actions) or of the node (triggers). */
export type ParameterReader = (name: string, fallback: unknown) => unknown;

/** Reads the shared list fields (condition, filters, order, select); throws InputError. */
export function readListQuery(resource: ResourceDefinition, read: ParameterReader): Query {
	const options = read('options', {}) as IDataObject;
	const filters = read('filters.filter', []) as FilterRow[];
	const condition = resource.conditionDomain ? read('condition', '') : '';
	return buildListQuery(resource, {
		filters,
		conditionId: locatorValue(condition) || undefined,
		orderBy: options.orderBy as string | undefined,
		orderDirection: (options.orderDirection as string | undefined) ?? 'asc',
		select: options.select as string[] | undefined,
	});
}
