import { applyEmployeeWrite, validateEmployeeBody, type WriteMode } from './employeeWrite';
import { badRequest, forbidden, notFound } from './errors';
import { isUuid } from './filters';
import { parseSelect, project, runList, type ListResult } from './listing';
import { assertKnownParameters } from './query';
import { LIST_DEFS, ORG_UNIT_SELECTABLE, type ListName } from './resources';
import { listOk, ok, type ApiRequest, type Reply, type Route } from './routing';
import { upsertSystemTimeType, validateSystemTimeType } from './systemTimeTypes';
import { isJsonObject, type Json, type JsonObject, type ResourceName, type SimRecord } from './types';
import { listEnvelope, presentRecord, presentsAsStored, singleBody, variedListDef } from './variedAnswers';

function role(req: ApiRequest): 'admin' | 'limited' {
	return req.principal?.role ?? 'limited';
}

function list(name: ListName, req: ApiRequest): ListResult {
	const sim = req.sim;
	const def = variedListDef(sim.variation, name === 'employees' ? sim.employeeSchema.list : LIST_DEFS[name]);
	return runList(
		{
			collection: sim.collections[def.resource],
			conditions: sim.collections.conditions,
			def,
			role: role(req),
			cursors: sim.cursors,
			scanLimit: sim.scanLimit,
			today: sim.clock.today(),
			variation: sim.variation,
			newWalkSeed: () => sim.newWalkSeed(),
		},
		req.query,
	);
}

function listReply(name: ListName): Route['handle'] {
	return (req) => {
		const result = list(name, req);
		const records = result.select ? result.records.map((r) => project(r, result.select)) : result.records;
		return variedList(req, records, result.pagination as unknown as JsonObject);
	};
}

/** A list answer as this server writes it (variations.ts). */
function variedList(req: ApiRequest, records: readonly SimRecord[], pagination: JsonObject): Reply {
	const { variation } = req.sim;
	const { pagination: page, topLevel } = listEnvelope(variation, pagination);
	const written = presentsAsStored(variation) ? records : records.map((record) => presentRecord(variation, record));
	return listOk(written, page, topLevel);
}

/** A single-record answer as this server writes it. */
function single(req: ApiRequest, record: SimRecord, status = 200): Reply {
	return ok(singleBody(req.sim.variation, record), status);
}

/**
 * Single GET: 400 for a non-uuid id, 404 when missing (or not yet visible), 403 for a restricted
 * record under the limited role (lists silently omit the same records).
 */
function findOne(req: ApiRequest, resource: ResourceName, id: string, parameter: string): SimRecord {
	if (!isUuid(id)) throw badRequest('path', 'invalid_id', `${parameter}: "${id}" is not a valid uuid`);
	const collection = req.sim.collections[resource];
	const record = collection.get(id.toLowerCase());
	if (!record || collection.hidden.has(record.id)) throw notFound(resource, `${parameter}: ${id} does not exist`);
	if (role(req) === 'limited' && collection.restricted.has(record.id)) {
		throw forbidden(`${parameter}: the role in use has no access to ${id}`);
	}
	return record;
}

function getReply(resource: ResourceName, parameter: string): Route['handle'] {
	return (req, params) => {
		assertKnownParameters(req.query, []);
		return single(req, findOne(req, resource, params.id, parameter));
	};
}

function requireAdmin(req: ApiRequest, what: string): void {
	if (role(req) !== 'admin') throw forbidden(`${what}: the role in use lacks this permission`);
}

// ---- employees ----

function getEmployee(req: ApiRequest, params: Record<string, string>): Reply {
	assertKnownParameters(req.query, ['select']);
	const select = parseSelect(req.sim.employeeSchema.list.fields, req.query.select);
	return single(req, project(findOne(req, 'employees', params.id, 'id'), select));
}

function writeEmployee(mode: WriteMode): Route['handle'] {
	return (req, params) => {
		assertKnownParameters(req.query, []);
		requireAdmin(req, mode === 'create' ? 'employee create' : 'employee update');
		const { sim } = req;
		const schema = sim.employeeSchema;
		const data = validateEmployeeBody(req.body, mode, schema);
		const now = sim.clock.now();
		const employees = sim.collections.employees;
		if (mode === 'create') {
			const base = { id: sim.newId(), org_id: sim.orgId, inserted_at: now, updated_at: now };
			const record = applyEmployeeWrite(undefined, data, mode, base, schema);
			employees.insert(record);
			sim.conformToVariation({ resource: 'employees', ids: [record.id] });
			return single(req, employees.get(record.id) ?? record, 201);
		}
		const existing = findOne(req, 'employees', params.id, 'id');
		const base = { id: existing.id, org_id: existing.org_id ?? sim.orgId, inserted_at: existing.inserted_at ?? now, updated_at: now };
		const record = applyEmployeeWrite(existing, data, mode, base, schema, sim.variation.customPropertiesPatch, sim.variation.putDatedProperties);
		employees.replace(record);
		sim.conformToVariation({ resource: 'employees', ids: [record.id] });
		return single(req, employees.get(record.id) ?? record);
	};
}

/** POST /v1/org/employees/shape: `shape` maps output names to source paths like `properties.title`. */
function shapeEmployees(req: ApiRequest): Reply {
	const shape = validateShape(req.body, req.sim.employeeSchema.list.fields);
	const result = list('employees', req);
	const data = result.records.map((record) => {
		const out: SimRecord = { id: record.id };
		for (const [name, path] of Object.entries(shape)) out[name] = readPath(record, path);
		return out;
	});
	return variedList(req, data, result.pagination as unknown as JsonObject);
}

function validateShape(body: Json | undefined, fields: readonly string[]): Record<string, string> {
	if (!isJsonObject(body) || !isJsonObject(body.shape) || Object.keys(body.shape).length === 0) {
		throw badRequest('body', 'missing_field', 'shape: the body must be {"shape": {"<output name>": "<source field path>"}}');
	}
	const shape: Record<string, string> = {};
	for (const [name, path] of Object.entries(body.shape)) {
		if (typeof path !== 'string') throw badRequest('body', 'invalid_type', `shape.${name}: expected a source field path string`);
		const root = path.split('.')[0];
		if (!fields.includes(root)) {
			throw badRequest('body', 'unknown_field', `shape.${name}: unknown source field "${root}"; expected one of ${fields.join(', ')}`);
		}
		shape[name] = path;
	}
	return shape;
}

function readPath(record: SimRecord, path: string): Json {
	let current: Json = record;
	for (const segment of path.split('.')) {
		if (!isJsonObject(current)) return null;
		current = current[segment] ?? null;
	}
	return current;
}

// ---- organizational units ----

function orgUnitGet(version: 'v1' | 'v2'): Route['handle'] {
	return (req, params) => {
		assertKnownParameters(req.query, ['select']);
		const select = parseSelect(ORG_UNIT_SELECTABLE, req.query.select);
		const record = project(findOne(req, 'orgUnits', params.id, 'id'), select);
		// The deprecated v1 endpoint wraps properties in an internal container (spec: "does not match
		// the documented schema"), so a client still using it shows up in tests.
		if (version === 'v1' && record.properties !== undefined) {
			return single(req, { ...record, properties: { __container__: record.properties } });
		}
		return single(req, record);
	};
}

// ---- other ----

function getFileTransfer(req: ApiRequest, params: Record<string, string>): Reply {
	assertKnownParameters(req.query, []);
	const found = findOne(req, 'fileTransfers', params.id, 'file_transfer_id');
	return single(req, req.sim.readFileTransfer(found.id) ?? found);
}

function listConditions(req: ApiRequest): Reply {
	requireAdmin(req, 'conditions (Conditions grant)');
	return listReply('conditions')(req, {});
}

function createSystemTimeType(req: ApiRequest, params: Record<string, string>): Reply {
	assertKnownParameters(req.query, []);
	const data = validateSystemTimeType(req.body);
	const { sim } = req;
	const result = upsertSystemTimeType(
		{ types: sim.collections.systemTimeTypes, integrations: sim.collections.systemIntegrations, orgId: sim.orgId, now: sim.clock.now(), newId: () => sim.newId() },
		params.system_integration_id,
		data,
	);
	return ok({ data: result.record }, result.created ? 201 : 200);
}

function provisioning(step: 'begin' | 'refresh'): Route['handle'] {
	return (req) => {
		assertKnownParameters(req.query, []);
		const data = step === 'begin' ? req.sim.auth.begin(req.body) : req.sim.auth.refresh(req.body);
		return ok({ data });
	};
}

const api = (method: string, path: string, kind: string, handle: Route['handle']): Route => ({ method, path, kind, auth: true, handle });

export const API_ROUTES: readonly Route[] = [
	{ method: 'POST', path: '/provisioning/refresh-token/begin', kind: 'provisioning.begin', auth: false, handle: provisioning('begin') },
	{ method: 'POST', path: '/provisioning/refresh-token/refresh', kind: 'provisioning.refresh', auth: false, handle: provisioning('refresh') },
	api('GET', '/v1/org/employees', 'employees.list', listReply('employees')),
	api('POST', '/v1/org/employees', 'employees.create', writeEmployee('create')),
	api('POST', '/v1/org/employees/shape', 'employees.shape', shapeEmployees),
	api('GET', '/v1/org/employees/mappings', 'employeeMappings.list', listReply('employeeMappings')),
	api('GET', '/v1/org/employees/:id', 'employees.get', getEmployee),
	api('PATCH', '/v1/org/employees/:id', 'employees.patch', writeEmployee('patch')),
	api('PUT', '/v1/org/employees/:id', 'employees.put', writeEmployee('replace')),
	api('GET', '/v1/org/time-reports', 'timeReports.list', listReply('timeReports')),
	api('POST', '/v1/org/time-reports/system-time-types/:system_integration_id', 'systemTimeTypes.upsert', createSystemTimeType),
	api('GET', '/v1/org/time-reports/:id', 'timeReports.get', getReply('timeReports', 'time_report_id')),
	api('GET', '/v1/org/organizational-units', 'orgUnits.list', listReply('orgUnits')),
	api('GET', '/v1/org/organizational-units/:id', 'orgUnits.getV1', orgUnitGet('v1')),
	api('GET', '/v2/org/organizational-units/:id', 'orgUnits.getV2', orgUnitGet('v2')),
	api('GET', '/v1/org/competences', 'competences.list', listReply('competences')),
	api('GET', '/v1/org/competences/:id', 'competences.get', getReply('competences', 'competence_id')),
	api('GET', '/v1/org/employee-competences', 'employeeCompetences.list', listReply('employeeCompetences')),
	api('GET', '/v1/org/conditions', 'conditions.list', listConditions),
	api('GET', '/v1/org/file-transfers/:id', 'fileTransfers.get', getFileTransfer),
	api('GET', '/v1/org/jobs/:id', 'jobs.get', getReply('jobs', 'job_id')),
];
