import { DOMAINS, type Domain, type ResourceName } from './types';

/** Value types that filter values are validated against. */
export type ValueType =
	| { kind: 'uuid' }
	| { kind: 'date-time' }
	| { kind: 'date' }
	| { kind: 'string' }
	| { kind: 'enum'; values: readonly string[] };

export const FILTER_OPS = ['eq', 'in', 'ilike', 'gt', 'lt', 'gte', 'lte'] as const;
export type FilterOp = (typeof FILTER_OPS)[number];

export interface FilterDef {
	type: ValueType;
	ops: readonly FilterOp[];
}

/** What a list endpoint accepts: the README table "Filters and ordering per resource". */
export interface ListDef {
	resource: ResourceName;
	/** The condition domain of the endpoint; undefined when `condition_id` is not accepted. */
	domain?: Domain;
	filters: Readonly<Record<string, FilterDef>>;
	orderable: readonly string[];
	/** Top-level fields that `select[]` may name. */
	fields: readonly string[];
}

export const ORG_UNIT_TIERS = ['company', 'division', 'department', 'team'] as const;

const UUID: ValueType = { kind: 'uuid' };
const STRING: ValueType = { kind: 'string' };
const DATE: ValueType = { kind: 'date' };
const DATE_TIME: ValueType = { kind: 'date-time' };
const EQ_IN = ['eq', 'in'] as const;
const EQ_ILIKE = ['eq', 'ilike'] as const;
const COMPARE = ['eq', 'gt', 'lt', 'gte', 'lte'] as const;

const idAndInserted = {
	id: { type: UUID, ops: EQ_IN },
	inserted_at: { type: DATE_TIME, ops: COMPARE },
};
const updated = { updated_at: { type: DATE_TIME, ops: COMPARE } };

export const EMPLOYEE_FIELDS = [
	'id', 'org_id', 'first_name', 'last_name', 'email', 'phone1', 'phone2', 'private_id_number',
	'employee_number', 'inserted_at', 'updated_at', 'properties',
] as const;

export const LIST_DEFS = {
	employees: {
		resource: 'employees',
		domain: 'employee',
		filters: {
			...idAndInserted,
			...updated,
			email: { type: STRING, ops: EQ_ILIKE },
			first_name: { type: STRING, ops: EQ_ILIKE },
			last_name: { type: STRING, ops: EQ_ILIKE },
			// The keys an HR import matches on (Create or Update); the spec leaves employee filters open.
			employee_number: { type: STRING, ops: EQ_IN },
			private_id_number: { type: STRING, ops: EQ_IN },
		},
		orderable: ['id', 'inserted_at', 'updated_at', 'first_name', 'last_name'],
		fields: EMPLOYEE_FIELDS,
	},
	timeReports: {
		resource: 'timeReports',
		domain: 'time_report',
		filters: {
			...idAndInserted,
			employee_id: { type: UUID, ops: EQ_IN },
			time_type_id: { type: STRING, ops: EQ_IN },
			start_date: { type: DATE, ops: COMPARE },
			end_date: { type: DATE, ops: COMPARE },
		},
		orderable: ['id', 'inserted_at', 'start_date'],
		fields: [
			'id', 'org_id', 'employee_id', 'start_date', 'end_date', 'from_time', 'to_time', 'minutes',
			'extent', 'comment', 'child_id', 'child_name', 'time_type_id',
			'source_external_time_type_id', 'source_system_slug', 'time_report_request_status',
			'inserted_at',
		],
	},
	orgUnits: {
		resource: 'orgUnits',
		domain: 'org_unit',
		filters: {
			...idAndInserted,
			...updated,
			parent_id: { type: UUID, ops: EQ_IN },
			tier: { type: { kind: 'enum', values: ORG_UNIT_TIERS }, ops: EQ_IN },
			name: { type: STRING, ops: EQ_ILIKE },
			deleted_at: { type: DATE_TIME, ops: COMPARE },
		},
		orderable: ['id', 'inserted_at', 'updated_at', 'deleted_at', 'name'],
		fields: [
			'id', 'org_id', 'parent_id', 'name', 'description', 'email', 'phone', 'tier', 'deleted_at',
			'inserted_at', 'updated_at', 'properties',
		],
	},
	competences: {
		resource: 'competences',
		domain: 'competence',
		filters: {
			...idAndInserted,
			...updated,
			type: { type: STRING, ops: EQ_IN },
			name: { type: STRING, ops: EQ_ILIKE },
		},
		orderable: ['id', 'inserted_at', 'updated_at', 'name'],
		fields: [
			'id', 'org_id', 'name', 'type', 'source_system', 'mappings', 'inserted_at', 'updated_at',
			'properties',
		],
	},
	employeeCompetences: {
		resource: 'employeeCompetences',
		domain: 'employee_competence',
		filters: {
			...idAndInserted,
			...updated,
			employee_id: { type: UUID, ops: EQ_IN },
			competence_id: { type: UUID, ops: EQ_IN },
			valid_from: { type: DATE, ops: COMPARE },
			valid_to: { type: DATE, ops: COMPARE },
		},
		orderable: ['id', 'inserted_at', 'updated_at', 'valid_from'],
		fields: [
			'id', 'org_id', 'competence_id', 'employee_id', 'source_system', 'mappings', 'valid_from',
			'valid_to', 'inserted_at', 'updated_at', 'properties',
		],
	},
	employeeMappings: {
		resource: 'employeeMappings',
		filters: {
			...idAndInserted,
			...updated,
			employee_id: { type: UUID, ops: EQ_IN },
			system_integration_id: { type: UUID, ops: EQ_IN },
			external_id: { type: STRING, ops: EQ_IN },
			status: { type: STRING, ops: EQ_IN },
		},
		orderable: ['id', 'inserted_at', 'updated_at'],
		fields: [
			'id', 'employee_id', 'external_id', 'system_integration_id', 'status', 'status_updated_at',
			'inserted_at', 'updated_at',
		],
	},
	conditions: {
		resource: 'conditions',
		filters: {
			domain: { type: { kind: 'enum', values: DOMAINS }, ops: EQ_IN },
			id: { type: STRING, ops: EQ_IN },
			name: { type: STRING, ops: EQ_ILIKE },
			inserted_at: { type: DATE_TIME, ops: COMPARE },
			updated_at: { type: DATE_TIME, ops: COMPARE },
		},
		orderable: ['id', 'name', 'domain', 'inserted_at', 'updated_at'],
		fields: [
			'id', 'name', 'domain', 'inserted_at', 'updated_at', 'description', 'summary', 'data_engine',
		],
	},
} as const satisfies Record<string, ListDef>;

export type ListName = keyof typeof LIST_DEFS;

/** Fields of single-resource GETs that accept `select[]`. */
export const ORG_UNIT_SELECTABLE = [
	'id', 'org_id', 'parent_id', 'updated_at', 'inserted_at', 'tier', 'name', 'description',
	'properties',
] as const;
