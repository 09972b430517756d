import type { IDataObject, INodeParameterResourceLocator } from 'n8n-workflow';

import { QUERY } from '../apiChoices';
import { labelOf } from '../descriptions/labels';
import type { FilterOperator, ResourceDefinition } from '../registry';
import { FILTER_OPERATORS } from '../registry';
import type { Query } from '../transport';
import { InputError } from '../errors';
import { checkFieldName, fieldNameList } from '../fields/names';
import { checkValue, expectationOf, uuidSchema } from '../validation';

export interface FilterRow {
	field: string;
	operator: string;
	value: string;
}

/**
 * A field the registry knows keeps its operators and value checks. Any other field (one of the
 * customer's own, or one the registry does not list as filterable) takes every operator of the
 * spec's convention and any non-empty value, sent as typed: what it accepts is only known to the
 * server (a sample of records is read while the form is open, never while a workflow runs).
 */
function checkFilter(resource: ResourceDefinition, row: FilterRow, position: number): [string, string, string | string[]] {
	const where = `Filters › Filter ${position}`;
	const name = checkFieldName(row.field, `${where} › Field`);
	const known = resource.fields[name];
	const allowed = known?.filter ?? FILTER_OPERATORS;
	const operator = row.operator as FilterOperator;
	if (!FILTER_OPERATORS.includes(operator) || !allowed.includes(operator)) {
		throw new InputError(`${where} › Operator: "${row.operator}" is not allowed for ${labelOf(name)}; expected one of ${allowed.join(', ')}`);
	}
	const expected = known ? expectationOf(known) : 'a value';
	const raw = String(row.value ?? '');
	const parts = operator === 'in' ? raw.split(',').map((part) => part.trim()).filter(Boolean) : [raw];
	if (parts.length === 0 || parts.some((part) => part.trim() === '')) {
		throw new InputError(`${where} › Value: a value is required for ${labelOf(name)}; expected ${expected}`);
	}
	const checked = parts.map((part) => {
		const value = known ? checkValue(known, part) : part.trim();
		if (value === undefined) {
			throw new InputError(`${where} › Value: "${part}" is not valid for ${labelOf(name)}; expected ${expected}`);
		}
		return value;
	});
	return [name, operator, operator === 'in' ? checked : checked[0]];
}

export interface ListQueryInput {
	filters?: FilterRow[];
	conditionId?: string;
	orderBy?: string;
	orderDirection?: string;
	/** A list, or comma-separated names from an expression. */
	select?: unknown;
}

/** Turns the form's values into the API's query, checking each against the registry. */
export function buildListQuery(resource: ResourceDefinition, input: ListQueryInput): Query {
	const query: Query = {};
	const filteredBy = new Map<string, number>();
	(input.filters ?? []).forEach((row, index) => {
		const [field, operator, value] = checkFilter(resource, row, index + 1);
		// `filters[<field>]` holds one op and one value: a second filter on the same field would
		// silently replace the first (a range "from … to …" would lose its start).
		const earlier = filteredBy.get(field);
		if (earlier !== undefined) {
			throw new InputError(
				`Filters › Filter ${index + 1} › Field: ${labelOf(field)} is already filtered by Filter ${earlier}; expected each field once (the API takes one operator and value per field)`,
			);
		}
		filteredBy.set(field, index + 1);
		query[QUERY.filter(field, 'op')] = operator;
		query[QUERY.filter(field, 'value')] = value;
	});
	if (input.conditionId) {
		if (!resource.conditionDomain) throw new InputError(`Condition: ${resource.pluralName} cannot be filtered by a condition`);
		if (!uuidSchema.safeParse(input.conditionId).success) {
			throw new InputError(`Condition: "${input.conditionId}" is not a condition ID; expected a UUID`);
		}
		query[QUERY.conditionId] = input.conditionId;
	}
	// Order and select take any well-formed field name: which fields the endpoint orders by or
	// returns is the server's to say (the registry's lists only feed the form's choices).
	if (input.orderBy !== undefined && String(input.orderBy).trim() !== '') {
		const field = checkFieldName(input.orderBy, 'Options › Order By');
		if (input.orderDirection !== 'asc' && input.orderDirection !== 'desc') {
			throw new InputError(`Options › Order Direction: expected asc or desc, got "${input.orderDirection}"`);
		}
		query[QUERY.orderField] = field;
		query[QUERY.orderDirection] = input.orderDirection;
	}
	const select = fieldNameList(input.select).map((name, index) => checkFieldName(name, `Options › Fields to Return › Field ${index + 1}`));
	if (select.length > 0) {
		query[QUERY.select] = [...new Set(select.includes('id') ? select : ['id', ...select])];
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
		select: options.select,
	});
}
