/**
 * The fields of employees, per customer. The spec leaves them "not shown" and says customers map
 * their data their own way, so the simulator can serve two field sets:
 *
 * - `standard`: the field set the package's registry describes (the default);
 * - `remapped`: another customer's mapping, as a spec-faithful server could serve it: a top-level
 *   `organizational_unit_id`, `employment_start_date` and `deleted_at`, dated `first_name`,
 *   `email`, `phone1` and `weekly_hours`, and of the registry's six dated properties only `title`.
 *
 * One schema decides everything employee-shaped: generated records, what `filters`, `order` and
 * `select` accept, and what a write accepts (anything else is a 400 naming the field).
 */
import { isValidDate } from './clock';
import { isUuid } from './filters';
import * as G from './generators';
import type { GenContext, Times } from './generators';
import * as P from './pools';
import type { FilterDef, ListDef } from './resources';
import { LIST_DEFS } from './resources';
import type { Json, SimRecord } from './types';

export const EMPLOYEE_SCHEMA_NAMES = ['standard', 'remapped'] as const;
export type EmployeeSchemaName = (typeof EMPLOYEE_SCHEMA_NAMES)[number];

/** How the value of one written field (or dated entry) is checked; `expected` words the 400. */
export interface ValueCheck {
	ok: (value: Json) => boolean;
	expected: string;
}

export interface EmployeeSchema {
	name: EmployeeSchemaName;
	list: ListDef;
	/** Top-level fields a write accepts, with their checks. */
	plainFields: Readonly<Record<string, ValueCheck>>;
	requiredFields: readonly string[];
	/** Top-level fields a write must not name. */
	readOnlyFields: readonly string[];
	/** Keys of `properties` that hold dated values, with the check of each entry's value. */
	datedProperties: Readonly<Record<string, ValueCheck>>;
	generate: (ctx: GenContext, id: string, index: number, times: Times) => SimRecord;
}

const TEXT: ValueCheck = { ok: (v) => v === null || typeof v === 'string', expected: 'a string or null' };
const NAME: ValueCheck = { ok: (v) => typeof v === 'string' && v.trim() !== '', expected: 'a non-empty string' };
const EMAIL: ValueCheck = {
	ok: (v) => v === null || (typeof v === 'string' && /^[^@\s]+@[^@\s]+$/.test(v)),
	expected: 'an email address or null',
};
const UUID_OR_NULL: ValueCheck = { ok: (v) => v === null || (typeof v === 'string' && isUuid(v)), expected: 'a uuid or null' };
const DATE_OR_NULL: ValueCheck = { ok: (v) => v === null || (typeof v === 'string' && isValidDate(v)), expected: 'a date (YYYY-MM-DD) or null' };
const percentage = (max: number): ValueCheck => ({
	ok: (v) => v === null || (typeof v === 'number' && v >= 0 && v <= max),
	expected: `a number from 0 to ${max} or null`,
});

const STANDARD: EmployeeSchema = {
	name: 'standard',
	list: LIST_DEFS.employees,
	plainFields: {
		first_name: NAME,
		last_name: NAME,
		email: EMAIL,
		phone1: TEXT,
		phone2: TEXT,
		private_id_number: TEXT,
		employee_number: TEXT,
	},
	requiredFields: ['first_name', 'last_name'],
	readOnlyFields: ['id', 'org_id', 'inserted_at', 'updated_at'],
	datedProperties: {
		title: TEXT,
		org_unit_id: UUID_OR_NULL,
		manager_id: UUID_OR_NULL,
		employment_type: TEXT,
		cost_center: TEXT,
		work_percentage: percentage(100),
	},
	generate: G.employee,
};

const COMPARE = ['eq', 'gt', 'lt', 'gte', 'lte'] as const;
const EQ_ILIKE = ['eq', 'ilike'] as const;
const text: FilterDef = { type: { kind: 'string' }, ops: EQ_ILIKE };

const REMAPPED_FIELDS = [
	'id', 'org_id', 'first_name', 'last_name', 'email', 'phone1', 'employee_number', 'organizational_unit_id',
	'employment_start_date', 'deleted_at', 'inserted_at', 'updated_at', 'properties',
] as const;

/** Another customer's employees (see the file comment); records keep the plain and the dated values in step. */
function remappedEmployee(ctx: GenContext, id: string, index: number, times: Times): SimRecord {
	const { rng } = ctx;
	const standard = G.employee(ctx, id, index, times);
	const unit = ctx.refs.orgUnits.length === 0 ? null : rng.pick(ctx.refs.orgUnits);
	const started = `${2000 + rng.int(0, 25)}-${String(rng.int(1, 12)).padStart(2, '0')}-${String(rng.int(1, 28)).padStart(2, '0')}`;
	const since = (value: Json): Json[] => [{ valid_from: started, value }];
	return {
		id,
		org_id: ctx.orgId,
		first_name: standard.first_name,
		last_name: standard.last_name,
		email: standard.email,
		phone1: standard.phone1,
		employee_number: standard.employee_number,
		organizational_unit_id: unit,
		employment_start_date: started,
		deleted_at: rng.chance(0.1) ? times.updated_at : null,
		inserted_at: times.inserted_at,
		updated_at: times.updated_at,
		properties: {
			custom_properties: { locker: `L-${rng.int(100, 999)}` },
			title: G.datedHistory(ctx, () => rng.pick(P.TITLES)),
			first_name: since(standard.first_name),
			email: since(standard.email),
			phone1: since(standard.phone1),
			weekly_hours: G.datedHistory(ctx, () => rng.pick([40, 40, 32, 20])),
		},
	};
}

const REMAPPED: EmployeeSchema = {
	name: 'remapped',
	list: {
		resource: 'employees',
		domain: 'employee',
		filters: {
			id: { type: { kind: 'uuid' }, ops: ['eq', 'in'] },
			inserted_at: { type: { kind: 'date-time' }, ops: COMPARE },
			updated_at: { type: { kind: 'date-time' }, ops: COMPARE },
			deleted_at: { type: { kind: 'date-time' }, ops: COMPARE },
			first_name: text,
			last_name: text,
			email: text,
			phone1: text,
			employee_number: { type: { kind: 'string' }, ops: ['eq', 'in'] },
			organizational_unit_id: { type: { kind: 'uuid' }, ops: ['eq', 'in'] },
			employment_start_date: { type: { kind: 'date' }, ops: COMPARE },
		},
		orderable: ['id', 'inserted_at', 'updated_at', 'last_name', 'employment_start_date'],
		fields: REMAPPED_FIELDS,
	},
	plainFields: {
		first_name: NAME,
		last_name: NAME,
		email: EMAIL,
		phone1: TEXT,
		employee_number: TEXT,
		organizational_unit_id: UUID_OR_NULL,
		employment_start_date: DATE_OR_NULL,
	},
	requiredFields: ['first_name', 'last_name'],
	readOnlyFields: ['id', 'org_id', 'inserted_at', 'updated_at', 'deleted_at'],
	datedProperties: { title: TEXT, first_name: TEXT, email: EMAIL, phone1: TEXT, weekly_hours: percentage(80) },
	generate: remappedEmployee,
};

export const EMPLOYEE_SCHEMAS: Readonly<Record<EmployeeSchemaName, EmployeeSchema>> = { standard: STANDARD, remapped: REMAPPED };

export function isEmployeeSchemaName(value: string): value is EmployeeSchemaName {
	return (EMPLOYEE_SCHEMA_NAMES as readonly string[]).includes(value);
}
