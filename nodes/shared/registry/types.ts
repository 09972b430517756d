import type { ParameterBuilderHint } from '../descriptions/builderHint';

/** The vocabulary in which every resource of the API is described once (see ./resources). */

export const DOMAINS = [
	'finance',
	'employee_competence',
	'competence',
	'expense_transaction',
	'salary_transaction',
	'file_transfer',
	'project',
	'org_unit',
	'customer',
	'schedule',
	'time_report',
	'employee',
] as const;
export type Domain = (typeof DOMAINS)[number];

export const FILTER_OPERATORS = ['eq', 'in', 'gt', 'lt', 'gte', 'lte', 'ilike'] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

export type FieldType = 'uuid' | 'string' | 'dateTime' | 'date' | 'number' | 'boolean' | 'enum' | 'object' | 'array';

export interface FieldDefinition {
	type: FieldType;
	/** Allowed values of an `enum` field. */
	values?: readonly string[];
	/** Operators the list endpoint accepts on this field; absent: not filterable. */
	filter?: readonly FilterOperator[];
	orderable?: boolean;
}

/** Paths relative to the base URL; `{id}` is the record's identifier. */
export interface ResourcePaths {
	list?: string;
	get?: string;
	/** `POST` variant of the list that takes a shape in the body. */
	shape?: string;
	create?: string;
	update?: string;
	replace?: string;
	/** Create-or-update keyed by a parent identifier in the path, `{id}`. */
	createOrUpdate?: string;
}

export interface ResourceDefinition {
	/** Parameter value of the node's Resource option. */
	value: string;
	displayName: string;
	pluralName: string;
	description: string;
	/** For n8n's AI Workflow Builder: which requests this resource answers (builderHint.ts). */
	builderHint: ParameterBuilderHint;
	/** The domain of conditions that apply to this resource; set only where `condition_id` is accepted. */
	conditionDomain?: Domain;
	paths: ResourcePaths;
	fields: Readonly<Record<string, FieldDefinition>>;
	/** Keys of `properties` that hold dated values `[{ valid_from, value }]`. */
	datedProperties: readonly string[];
	/**
	 * Timestamps that mark a change, for "changed since" polling; `updated` absent: never updated;
	 * `deleted`: set when the record is (softly) deleted, for the trigger's Deleted event.
	 */
	changeFields?: { created: string; updated?: string; deleted?: string };
	/** How the "From List" mode of the resource locator finds records. */
	search?: {
		field: string;
		operator: FilterOperator;
		labelFields: readonly string[];
		/** Search text with an @ is looked up in this field instead. */
		emailField?: string;
		/** Search text of several words is a first name and a last name. */
		fullName?: { first: string; last: string };
	};
	/** A status field polled until it reaches a final value ("Wait for Delivery"). */
	waitFor?: { field: string; doneValue: string; label: string };
	/** Plain and dated fields a write accepts; set on writable resources. */
	writable?: {
		plainFields: readonly string[];
		requiredOnCreate: readonly string[];
		/** Type of the value of each dated property that is not text. */
		datedValueTypes: Readonly<Record<string, FieldType>>;
	};
}

export const idField: FieldDefinition = { type: 'uuid', filter: ['eq', 'in'], orderable: true };
export const timestampField: FieldDefinition = {
	type: 'dateTime',
	filter: ['eq', 'gt', 'lt', 'gte', 'lte'],
	orderable: true,
};
export const dateField: FieldDefinition = { type: 'date', filter: ['eq', 'gt', 'lt', 'gte', 'lte'] };
export const textSearchField: FieldDefinition = { type: 'string', filter: ['eq', 'ilike'], orderable: true };
export const referenceField: FieldDefinition = { type: 'uuid', filter: ['eq', 'in'] };
export const plain = (type: FieldType): FieldDefinition => ({ type });
