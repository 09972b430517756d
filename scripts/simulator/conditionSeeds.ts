import type { GenContext, Times } from './generators';
import type { Domain, JsonObject, SimRecord } from './types';

interface ConditionSpec {
	name: string;
	domain: Domain;
	summary: string | null;
	rule: JsonObject;
}

/** Named conditions seeded in every organization; tests find them by name. */
export const CONDITION_NAMES = {
	north: 'North office staff',
	fullTime: 'Full-time today',
	rare: 'One in a hundred',
	nobody: 'Nobody',
	consultants: 'Consultants',
	sickLeave: 'Sick leave reports',
	teams: 'Teams',
	certificates: 'Certificates',
	experts: 'Expert level',
	projects: 'Active projects',
	keyAccounts: 'Key accounts',
} as const;

const N = CONDITION_NAMES;

export const FIXED_CONDITIONS: readonly ConditionSpec[] = [
	{ name: N.north, domain: 'employee', summary: 'Email ends with @north.example', rule: { field: 'email', op: 'ends_with', value: '@north.example' } },
	{ name: N.fullTime, domain: 'employee', summary: 'Work percentage in force is 100', rule: { field: 'properties.work_percentage', op: 'eq', value: 100 } },
	{ name: N.rare, domain: 'employee', summary: null, rule: { hash: { field: 'id', mod: 100, eq: 7 } } },
	{ name: N.nobody, domain: 'employee', summary: 'Email ends with @nowhere.invalid', rule: { field: 'email', op: 'ends_with', value: '@nowhere.invalid' } },
	{
		name: N.consultants,
		domain: 'employee',
		summary: 'Employment type in force is consultant',
		rule: { all: [{ field: 'properties.employment_type', op: 'eq', value: 'consultant' }, { not: { field: 'email', op: 'is_null' } }] },
	},
	{ name: N.sickLeave, domain: 'time_report', summary: 'Time type is sick', rule: { field: 'time_type_id', op: 'eq', value: 'sick' } },
	{ name: N.teams, domain: 'org_unit', summary: 'Tier is team', rule: { field: 'tier', op: 'eq', value: 'team' } },
	{ name: N.certificates, domain: 'competence', summary: 'Type is certificate', rule: { field: 'type', op: 'eq', value: 'certificate' } },
	{ name: N.experts, domain: 'employee_competence', summary: 'Level in force is expert', rule: { field: 'properties.level', op: 'eq', value: 'expert' } },
	{ name: N.projects, domain: 'project', summary: null, rule: { field: 'status', op: 'eq', value: 'active' } },
	{ name: N.keyAccounts, domain: 'customer', summary: null, rule: { field: 'tier', op: 'eq', value: 'key' } },
];

function conditionRecord(ctx: GenContext, id: string, spec: ConditionSpec, times: Times): SimRecord {
	return {
		id,
		name: spec.name,
		domain: spec.domain,
		inserted_at: times.inserted_at,
		updated_at: times.updated_at,
		description: ctx.rng.chance(0.5) ? `Maintained by HR. ${spec.summary ?? ''}`.trim() : null,
		summary: spec.summary,
		data_engine: spec.rule,
	};
}

/** The first conditions are the fixed ones; further ones are generated employee hash rules. */
export function condition(ctx: GenContext, id: string, index: number, times: Times): SimRecord {
	const fixed = FIXED_CONDITIONS[index];
	if (fixed) return conditionRecord(ctx, id, fixed, times);
	const mod = ctx.rng.int(2, 9);
	return conditionRecord(
		ctx,
		id,
		{
			name: `Generated rule ${index}`,
			domain: 'employee',
			summary: `Hash of id modulo ${mod} is 0`,
			rule: { hash: { field: 'id', mod, eq: 0 } },
		},
		times,
	);
}
