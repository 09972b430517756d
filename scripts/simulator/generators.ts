import { addDays } from './clock';
import * as P from './pools';
import type { Rng } from './rng';
import type { Json, JsonObject, SimRecord } from './types';

/** What a generator needs: randomness, the organization, "today" and ids to reference. */
export interface GenContext {
	rng: Rng;
	orgId: string;
	today: string;
	refs: Refs;
}

export interface Refs {
	employees: readonly string[];
	orgUnits: readonly string[];
	competences: readonly string[];
	integrations: readonly SimRecord[];
}

export interface Times {
	inserted_at: string;
	updated_at: string;
}

function pickOrNull(rng: Rng, ids: readonly string[]): string | null {
	return ids.length === 0 ? null : rng.pick(ids);
}

/**
 * A dated property: 1–3 entries newest first; sometimes the newest is future-dated (not yet in
 * force) and sometimes the oldest has a null `valid_from` ("since always"), always last.
 */
export function datedHistory(ctx: GenContext, value: () => Json): JsonObject[] {
	const { rng, today } = ctx;
	const count = rng.int(1, 3);
	let date = rng.chance(0.1) ? addDays(today, rng.int(1, 90)) : addDays(today, -rng.int(0, 400));
	const entries: JsonObject[] = [];
	for (let i = 0; i < count; i++) {
		entries.push({ valid_from: date, value: value() });
		date = addDays(date, -rng.int(30, 900));
	}
	if (rng.chance(0.2)) entries[entries.length - 1].valid_from = null;
	return entries;
}

function mappingEntries(ctx: GenContext, times: Times): JsonObject[] {
	const { rng } = ctx;
	const count = ctx.refs.integrations.length === 0 ? 0 : rng.int(0, 2);
	return Array.from({ length: count }, () => ({
		id: rng.uuid(),
		external_id: `EXT-${rng.int(10000, 99999)}`,
		system_integration_id: rng.pick(ctx.refs.integrations).id,
		status: rng.pick(P.MAPPING_STATUSES),
		status_updated_at: times.updated_at,
	}));
}

function phone(rng: Rng): string {
	return `+46 7${rng.int(0, 9)} ${rng.int(100, 999)} ${rng.int(10, 99)} ${rng.int(10, 99)}`;
}

export function employee(ctx: GenContext, id: string, index: number, times: Times): SimRecord {
	const { rng } = ctx;
	const first = rng.pick(P.FIRST_NAMES);
	const last = rng.pick(P.LAST_NAMES);
	const birth = addDays('1960-01-01', rng.int(0, 15000)).replace(/-/g, '');
	return {
		id,
		org_id: ctx.orgId,
		first_name: first,
		last_name: last,
		email: `${P.asciiSlug(first)}.${P.asciiSlug(last)}.${index}@${rng.pick(P.EMAIL_DOMAINS)}`,
		phone1: phone(rng),
		phone2: rng.chance(0.3) ? phone(rng) : null,
		private_id_number: `${birth}-${rng.int(1000, 9999)}`,
		employee_number: `E${String(index + 1).padStart(6, '0')}`,
		inserted_at: times.inserted_at,
		updated_at: times.updated_at,
		properties: {
			custom_properties: { shirt_size: rng.pick(P.SHIRT_SIZES), badge_number: `B${rng.int(10000, 99999)}` },
			title: datedHistory(ctx, () => rng.pick(P.TITLES)),
			org_unit_id: datedHistory(ctx, () => pickOrNull(rng, ctx.refs.orgUnits)),
			manager_id: datedHistory(ctx, () => pickOrNull(rng, ctx.refs.employees)),
			employment_type: datedHistory(ctx, () => rng.pick(P.EMPLOYMENT_TYPES)),
			cost_center: datedHistory(ctx, () => `CC-${rng.int(1000, 1050)}`),
			work_percentage: datedHistory(ctx, () => rng.pick([100, 100, 100, 80, 75, 50])),
		},
	};
}

export function employeeMapping(ctx: GenContext, id: string, _index: number, times: Times): SimRecord {
	const { rng } = ctx;
	const integration = ctx.refs.integrations.length ? rng.pick(ctx.refs.integrations).id : null;
	return {
		id,
		employee_id: pickOrNull(rng, ctx.refs.employees),
		external_id: `EMP-${rng.int(100000, 999999)}`,
		system_integration_id: integration,
		status: rng.pick(P.MAPPING_STATUSES),
		status_updated_at: times.updated_at,
		inserted_at: times.inserted_at,
		updated_at: times.updated_at,
	};
}

/** Time reports have no `updated_at` in the spec, so the generator leaves it out. */
export function timeReport(ctx: GenContext, id: string, _index: number, times: Times): SimRecord {
	const { rng } = ctx;
	const start = addDays(ctx.today, -rng.int(0, 180));
	const days = rng.int(0, 4);
	const fullDay = rng.chance(0.6);
	const type = rng.pick(P.TIME_TYPES);
	const child = type === 'vab';
	const integration = ctx.refs.integrations.length ? rng.pick(ctx.refs.integrations) : null;
	return {
		id,
		org_id: ctx.orgId,
		employee_id: pickOrNull(rng, ctx.refs.employees),
		start_date: start,
		end_date: addDays(start, days),
		from_time: fullDay ? null : `${String(rng.int(6, 11)).padStart(2, '0')}:00`,
		to_time: fullDay ? null : `${String(rng.int(13, 18)).padStart(2, '0')}:30`,
		minutes: Array.from({ length: days + 1 }, () => (fullDay ? 480 : rng.int(60, 420))),
		extent: fullDay ? 1 : rng.pick([0.25, 0.5, 0.75]),
		comment: rng.chance(0.5) ? rng.pick(['Doctor visit', 'Planned', 'Inventory', 'Trip to Malmö', '']) : '',
		child_id: child ? rng.uuid() : null,
		child_name: child ? rng.pick(P.CHILD_NAMES) : null,
		time_type_id: type,
		source_external_time_type_id: `TT-${type.toUpperCase()}`,
		source_system_slug: integration ? String(integration.source_system) : 'personnel_data',
		time_report_request_status: rng.pick(P.REQUEST_STATUSES),
		inserted_at: times.inserted_at,
	};
}

/** Org units form a tree: index 0 is the company, then divisions, departments and teams. */
export function orgUnit(ctx: GenContext, id: string, index: number, times: Times): SimRecord {
	const { rng } = ctx;
	const tier = index === 0 ? 'company' : index <= 3 ? 'division' : index <= 12 ? 'department' : 'team';
	const parentPool = ctx.refs.orgUnits.slice(0, index <= 3 ? 1 : index <= 12 ? 4 : 13);
	const parent = index === 0 ? null : pickOrNull(rng, parentPool);
	const word = rng.pick(P.UNIT_WORDS);
	const name = tier === 'company' ? 'Example Group AB' : `${word} ${tier} ${index}`;
	const email = `${P.asciiSlug(word)}${index}@units.example`;
	const description = `${word} (${tier})`;
	const unitPhone = phone(rng);
	const external = `OU-${1000 + index}`;
	return {
		id,
		org_id: ctx.orgId,
		parent_id: parent,
		name,
		description,
		email,
		phone: unitPhone,
		tier,
		deleted_at: rng.chance(0.05) ? times.updated_at : null,
		inserted_at: times.inserted_at,
		updated_at: times.updated_at,
		properties: {
			custom_properties: { cost_center: `CC-${rng.int(1000, 1050)}` },
			description: [{ valid_from: null, value: description }],
			email: [{ valid_from: null, value: email }],
			name: [{ valid_from: addDays(ctx.today, -rng.int(0, 300)), value: name }, { valid_from: null, value: `${word} ${index}` }],
			phone: [{ valid_from: null, value: unitPhone }],
			source_external_id: [{ valid_from: null, value: external }],
			source_external_parent_id: [{ valid_from: null, value: parent ? 'OU-parent' : null }],
			tier: [{ valid_from: null, value: tier }],
		},
	};
}

export function competence(ctx: GenContext, id: string, index: number, times: Times): SimRecord {
	const { rng } = ctx;
	const name = `${rng.pick(P.COMPETENCE_NAMES)}${index >= P.COMPETENCE_NAMES.length ? ` ${index}` : ''}`;
	const type = rng.pick(P.COMPETENCE_TYPES);
	return {
		id,
		org_id: ctx.orgId,
		name,
		type,
		source_system: 'personnel_data',
		mappings: mappingEntries(ctx, times),
		inserted_at: times.inserted_at,
		updated_at: times.updated_at,
		properties: {
			custom_properties: {},
			code: [{ valid_from: null, value: `C${100 + index}` }],
			description: datedHistory(ctx, () => `About ${name.toLowerCase()}`),
			name: [{ valid_from: null, value: name }],
			source_external_id: [{ valid_from: null, value: `COMP-${index}` }],
			type: [{ valid_from: null, value: type }],
		},
	};
}

export function employeeCompetence(ctx: GenContext, id: string, _index: number, times: Times): SimRecord {
	const { rng } = ctx;
	const from = addDays(ctx.today, -rng.int(0, 1500));
	const to = rng.chance(0.6) ? addDays(from, rng.int(365, 1800)) : null;
	return {
		id,
		org_id: ctx.orgId,
		competence_id: pickOrNull(rng, ctx.refs.competences),
		employee_id: pickOrNull(rng, ctx.refs.employees),
		source_system: 'personnel_data',
		mappings: mappingEntries(ctx, times),
		valid_from: from,
		valid_to: to,
		inserted_at: times.inserted_at,
		updated_at: times.updated_at,
		properties: {
			custom_properties: {},
			issued_by: [{ valid_from: null, value: rng.pick(['Red Cross', 'Transport Agency', 'Internal', 'Goethe-Institut']) }],
			level: datedHistory(ctx, () => rng.pick(P.LEVELS)),
			notes: [{ valid_from: null, value: rng.chance(0.3) ? 'Renewal booked' : null }],
			source_external_id: [{ valid_from: null, value: `EC-${rng.int(10000, 99999)}` }],
			valid_from: [{ valid_from: null, value: `${from}T00:00:00.000000Z` }],
			valid_to: [{ valid_from: null, value: to === null ? null : `${to}T00:00:00.000000Z` }],
		},
	};
}

export function job(ctx: GenContext, id: string, _index: number, times: Times): SimRecord {
	const { rng } = ctx;
	const status = rng.pick(P.JOB_STATUSES);
	const integration = ctx.refs.integrations.length ? rng.pick(ctx.refs.integrations) : null;
	return {
		id,
		org_id: ctx.orgId,
		status,
		type: rng.pick(P.JOB_TYPES),
		parent_id: rng.chance(0.3) ? rng.uuid() : null,
		domain_mapping_id: rng.uuid(),
		sync_trigger_id: rng.uuid(),
		system_integration_id: integration?.id ?? null,
		system_slug: integration ? String(integration.source_system) : null,
		completed_at: status === 'completed' || status === 'failed' ? times.updated_at : null,
		inserted_at: times.inserted_at,
		updated_at: times.updated_at,
	};
}

/** A file transfer starts `pending`; the simulator delivers it after N reads (see fileTransfers.ts). */
export function fileTransfer(ctx: GenContext, id: string, index: number, times: Times): SimRecord {
	const { rng } = ctx;
	const integration = ctx.refs.integrations.length ? rng.pick(ctx.refs.integrations).id : null;
	return {
		id,
		org_id: ctx.orgId,
		status: 'pending',
		file_name: `payslip-${index + 1}.pdf`,
		content_type: 'application/pdf',
		content_sha256: rng.hex(32),
		size: rng.int(10_000, 900_000),
		bytes_retain_until: null,
		delivered_at: null,
		delivery_job_id: rng.uuid(),
		job_id: rng.uuid(),
		domain_mapping_id: rng.uuid(),
		employee_id: pickOrNull(rng, ctx.refs.employees),
		system_integration_id: integration,
		idempotency_key: rng.hex(16),
		remote_id: null,
		remote_employee_id: `R-${rng.int(1000, 9999)}`,
		remote_path: `/archive/${index + 1}`,
		metadata: { category: 'payslip' },
		remote_metadata: {},
		inserted_at: times.inserted_at,
		updated_at: times.updated_at,
	};
}

/** System integrations are not served by the API; they give system time types their source system. */
export const INTEGRATIONS = [
	{ name: 'Personnel Data (own)', source_system: 'personnel_data' },
	{ name: 'Nordic Payroll', source_system: 'nordic_payroll' },
	{ name: 'Timekeeper', source_system: 'timekeeper' },
] as const;

export function systemIntegration(ctx: GenContext, id: string, index: number, times: Times): SimRecord {
	const spec = INTEGRATIONS[index % INTEGRATIONS.length];
	return { id, org_id: ctx.orgId, ...spec, inserted_at: times.inserted_at, updated_at: times.updated_at };
}
