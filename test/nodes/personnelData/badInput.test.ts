import type { INodeParameters } from 'n8n-workflow';

import { useCredential, useTestBed } from '../setup';
import { apiRequests, byId, run, UNKNOWN_UUID } from './helpers';

/**
 * One bad input per row. `sent: false`: the node must catch it before any API request (the
 * request log stays empty). `sent: true`: only the server can tell, and its answer must reach
 * the user. Either way the message names the field and says what was expected.
 */
interface BadInput {
	name: string;
	parameters: (ids: Ids) => INodeParameters;
	/** Substrings of the error (message, plus description for API errors). */
	expected: Array<string | RegExp>;
	/** Substrings the error must not contain (e.g. an internal path instead of the form's label). */
	notExpected?: string[];
	sent: boolean;
}

interface Ids {
	employee: string;
	integration: string;
	otherDomainCondition: string;
	transfer: string;
}

const getEmployee = (id: string): INodeParameters => ({ resource: 'employee', operation: 'get', id: byId(id) });
const listEmployees = (extra: INodeParameters): INodeParameters => ({ resource: 'employee', operation: 'getMany', ...extra });
const filter = (field: string, operator: string, value: string) => ({ filters: { filter: [{ field, operator, value }] } });
const listWith = (resource: string, field: string, operator: string, value: string): INodeParameters => ({
	resource,
	operation: 'getMany',
	...filter(field, operator, value),
});
const create = (extra: INodeParameters): INodeParameters => ({
	resource: 'employee',
	operation: 'create',
	first_name: 'Ada',
	last_name: 'Lovelace',
	...extra,
});
const timeType = (integration: string, extra: INodeParameters): INodeParameters => ({
	resource: 'systemTimeType',
	operation: 'createOrUpdate',
	systemIntegrationId: integration,
	typeName: 'Overtime',
	...extra,
});
const rows = (...entries: Array<[string, string, string]>) => ({
	datedValues: { entry: entries.map(([property, validFrom, value]) => ({ property, validFrom, value })) },
});
const EXPECT_UUID = 'expected a UUID';

const TABLE: BadInput[] = [
	// ---- record locators
	{ name: 'employee id not a uuid', parameters: () => getEmployee('not-a-uuid'), expected: ['Employee', '"not-a-uuid"', EXPECT_UUID], sent: false },
	{ name: 'employee id empty', parameters: () => getEmployee(''), expected: ['Employee', 'ID is required', EXPECT_UUID], sent: false },
	{ name: 'time report id too short', parameters: () => ({ resource: 'timeReport', operation: 'get', id: byId('1c87fa56-d7cd-4f21-a093-9b9974ca404') }), expected: ['Time Report', EXPECT_UUID], sent: false },
	{ name: 'org unit id not hex', parameters: () => ({ resource: 'organizationalUnit', operation: 'get', id: byId('g0000000-0000-4000-8000-000000000000') }), expected: ['Organizational Unit', EXPECT_UUID], sent: false },
	{ name: 'competence id in braces', parameters: () => ({ resource: 'competence', operation: 'get', id: byId(`{${UNKNOWN_UUID}}`) }), expected: ['Competence', EXPECT_UUID], sent: false },
	{ name: 'file transfer id a number', parameters: () => ({ resource: 'fileTransfer', operation: 'get', id: byId('12345') }), expected: ['File Transfer', '"12345"', EXPECT_UUID], sent: false },
	{ name: 'job id with a path', parameters: () => ({ resource: 'job', operation: 'get', id: byId(`${UNKNOWN_UUID}/../x`) }), expected: ['Job', EXPECT_UUID], sent: false },
	{ name: 'update: employee id malformed', parameters: () => ({ resource: 'employee', operation: 'update', id: byId('abc'), fields: { phone1: '1' } }), expected: ['Employee', '"abc"', EXPECT_UUID], sent: false },
	{ name: 'replace: employee id malformed', parameters: () => ({ resource: 'employee', operation: 'replace', id: byId('abc'), first_name: 'A', last_name: 'B' }), expected: ['Employee', EXPECT_UUID], sent: false },
	{ name: 'time type: integration id malformed', parameters: () => timeType('integration-1', {}), expected: ['System Integration ID', '"integration-1"', EXPECT_UUID], sent: false },
	{ name: 'condition locator not a uuid', parameters: () => listEmployees({ condition: byId('north-office') }), expected: ['Condition', '"north-office"', EXPECT_UUID], sent: false },

	// ---- filters
	{ name: 'filter id eq not a uuid', parameters: () => listEmployees(filter('id', 'eq', 'nope')), expected: ['Filter 1 › Value', '"nope"', 'ID', EXPECT_UUID], sent: false },
	{ name: 'filter id in with one bad value', parameters: ({ employee }) => listEmployees(filter('id', 'in', `${employee}, bad`)), expected: ['Filter 1 › Value', '"bad"', EXPECT_UUID], sent: false },
	{ name: 'filter employee_id eq not a uuid', parameters: () => listWith('timeReport', 'employee_id', 'eq', '42'), expected: ['Value', '"42"', 'Employee ID', EXPECT_UUID], sent: false },
	{ name: 'filter field name with a space', parameters: () => listEmployees(filter('first name', 'eq', 'Ada')), expected: ['Filter 1 › Field', '"first name"', 'not a field name', 'expected letters'], sent: false },
	{ name: 'filter field name with brackets', parameters: () => listEmployees(filter('email][op', 'eq', 'x')), expected: ['Filter 1 › Field', 'not a field name'], sent: false },
	{ name: 'filter on a field the registry does not know, without a value', parameters: () => listEmployees(filter('salary', 'gt', ' ')), expected: ['Filter 1 › Value', 'a value is required', 'Salary'], sent: false },
	{ name: 'operator not allowed for the field', parameters: () => listEmployees(filter('email', 'gt', 'a')), expected: ['Filter 1 › Operator', '"gt"', 'Email', 'expected one of eq, ilike'], sent: false },
	{ name: 'unknown operator', parameters: () => listEmployees(filter('updated_at', 'like', '2026-01-01T00:00:00Z')), expected: ['Operator', '"like"', 'expected one of eq, gt, lt, gte, lte'], sent: false },
	{ name: '"in" on a date-time', parameters: () => listEmployees(filter('updated_at', 'in', '2026-01-01T00:00:00Z')), expected: ['Operator', '"in"', 'Updated At'], sent: false },
	{ name: 'date-time filter with words', parameters: () => listEmployees(filter('updated_at', 'gte', 'yesterday')), expected: ['Value', '"yesterday"', 'Updated At', 'ISO 8601'], sent: false },
	{ name: 'date-time filter with a date only', parameters: () => listEmployees(filter('inserted_at', 'gte', '2026-11-01')), expected: ['Value', '"2026-11-01"', 'ISO 8601'], sent: false },
	{ name: 'impossible date 2026-02-30', parameters: () => listWith('timeReport', 'start_date', 'gte', '2026-02-30'), expected: ['Value', '"2026-02-30"', 'Start Date', 'YYYY-MM-DD'], sent: false },
	{ name: 'impossible month 2026-13-01', parameters: () => listWith('employeeCompetence', 'valid_to', 'lt', '2026-13-01'), expected: ['Value', '"2026-13-01"', 'YYYY-MM-DD'], sent: false },
	{ name: 'impossible date-time 2026-02-30T10:00:00Z', parameters: () => listEmployees(filter('updated_at', 'gt', '2026-02-30T10:00:00Z')), expected: ['Value', '"2026-02-30T10:00:00Z"', 'ISO 8601'], sent: false },
	{ name: 'condition domain not in the enumeration', parameters: () => listWith('condition', 'domain', 'eq', 'employees'), expected: ['Value', '"employees"', 'Domain', 'one of finance'], sent: false },
	{ name: 'empty filter value', parameters: () => listEmployees(filter('last_name', 'eq', '')), expected: ['Filter 1 › Value', 'required', 'Last Name'], sent: false },
	{ name: '"in" with only commas', parameters: () => listWith('organizationalUnit', 'tier', 'in', ' , ,'), expected: ['Value', 'required', 'Tier'], sent: false },

	{
		name: 'two filters on the same field (the second would replace the first)',
		parameters: () =>
			listEmployees({
				filters: {
					filter: [
						{ field: 'updated_at', operator: 'gte', value: '2025-01-01T00:00:00Z' },
						{ field: 'updated_at', operator: 'lt', value: '2026-01-01T00:00:00Z' },
					],
				},
			}),
		expected: ['Filter 2 › Field', 'Updated At', 'already filtered by Filter 1', 'each field once'],
		sent: false,
	},

	// ---- limit, order, select, shape
	{ name: 'limit 0', parameters: () => listEmployees({ limit: 0 }), expected: ['Limit', 'whole number from 1'], sent: false },
	{ name: 'limit -1', parameters: () => listEmployees({ limit: -1 }), expected: ['Limit', 'whole number from 1', '-1'], sent: false },
	{ name: 'limit 1.5', parameters: () => listEmployees({ limit: 1.5 }), expected: ['Limit', 'whole number', '1.5'], sent: false },
	{ name: 'limit over the maximum', parameters: () => listEmployees({ limit: 10_000_001 }), expected: ['Limit', 'to 10000000', '10000001'], sent: false },
	{ name: 'limit as text from an expression', parameters: () => listEmployees({ limit: '={{ "ten" }}' }), expected: ['Limit'], sent: false },
	{ name: 'order by a malformed field name', parameters: () => listEmployees({ options: { orderBy: 'last_name&x=1', orderDirection: 'asc' } }), expected: ['Order By', '"last_name&x=1"', 'not a field name'], sent: false },
	{ name: 'order direction unknown', parameters: () => listEmployees({ options: { orderBy: 'id', orderDirection: 'up' } }), expected: ['Order Direction', 'asc or desc', '"up"'], sent: false },
	{ name: 'select a malformed field name', parameters: () => listEmployees({ options: { select: ['first_name', 'a b'] } }), expected: ['Fields to Return › Field 2', '"a b"', 'not a field name'], sent: false },
	{ name: 'shape not valid JSON', parameters: () => listEmployees({ options: { shape: '{name: first_name' } }), expected: ['Shape (JSON)', 'not valid JSON'], sent: false },
	{ name: 'shape a JSON array', parameters: () => listEmployees({ options: { shape: '["first_name"]' } }), expected: ['Shape (JSON)', 'expected a JSON object', 'array'], sent: false },

	// ---- employee writes
	{ name: 'create without first_name', parameters: () => create({ first_name: '' }), expected: ['first_name', 'required', 'non-empty text'], sent: false },
	{ name: 'replace with a blank last_name', parameters: ({ employee }) => ({ resource: 'employee', operation: 'replace', id: byId(employee), first_name: 'A', last_name: '   ' }), expected: ['last_name', 'required'], sent: false },
	{ name: 'update emptying first_name', parameters: ({ employee }) => ({ resource: 'employee', operation: 'update', id: byId(employee), fields: { first_name: ' ' } }), expected: ['first_name', 'cannot be emptied', 'non-empty text'], sent: false },
	{ name: 'bad email', parameters: () => create({ fields: { email: 'ada-at-example' } }), expected: ['email', '"ada-at-example"', 'name@domain'], sent: false },
	{ name: 'update with nothing to update', parameters: ({ employee }) => ({ resource: 'employee', operation: 'update', id: byId(employee) }), expected: ['Update Fields', 'nothing to update'], sent: false },
	{ name: 'dated rows: two null valid_from', parameters: () => create(rows(['title', '', 'A'], ['title', ' ', 'B'])), expected: ['title', '2 entries have an empty valid_from', 'at most one'], sent: false },
	{
		name: 'Other Fields JSON: two null valid_from',
		parameters: () => create({ otherFields: JSON.stringify({ properties: { title: [{ valid_from: null, value: 'A' }, { valid_from: null, value: 'B' }] } }) }),
		expected: ['title', 'empty valid_from', 'Other Fields (JSON) › properties.title[0]', 'properties.title[1]', 'at most one'],
		sent: false,
	},
	{
		name: 'dated rows: the same date twice',
		parameters: () => create(rows(['cost_center', '2026-01-01', 'A'], ['cost_center', '2026-01-01', 'B'])),
		expected: ['Dated Values › Entry 2 › Valid From', 'cost_center', 'already valid from 2026-01-01 in Dated Values › Entry 1', 'each date once'],
		sent: false,
	},
	{
		name: 'dated row: valid_from "tomorrow" names the form row',
		parameters: () => create(rows(['title', '', 'Trainee'], ['title', 'tomorrow', 'Lead'])),
		expected: ['Dated Values › Entry 2 › Valid From', '"tomorrow"', 'title', 'YYYY-MM-DD'],
		notExpected: ['data.properties', '[0]', '[1]'],
		sent: false,
	},
	{
		name: 'Other Fields JSON: the same date twice',
		parameters: () => create({ otherFields: JSON.stringify({ properties: { title: [{ valid_from: '2025-01-01', value: 'A' }, { valid_from: '2025-01-01', value: 'B' }] } }) }),
		expected: ['Other Fields (JSON) › properties.title[1].valid_from', 'already valid from 2025-01-01', 'properties.title[0]', 'each date once'],
		sent: false,
	},
	{ name: 'dated row: impossible date', parameters: () => create(rows(['title', '2026-02-30', 'A'])), expected: ['Dated Values › Entry 1 › Valid From', 'title', '"2026-02-30"', 'YYYY-MM-DD'], sent: false },
	{
		name: 'Other Fields JSON: valid_from in words',
		parameters: () => create({ otherFields: JSON.stringify({ properties: { title: [{ valid_from: 'yesterday', value: 'A' }] } }) }),
		expected: ['Other Fields (JSON) › properties.title[0].valid_from', '"yesterday"', 'YYYY-MM-DD'],
		sent: false,
	},
	{
		name: 'Other Fields JSON: a dated entry without value',
		parameters: () => create({ otherFields: JSON.stringify({ properties: { title: [{ valid_from: '2025-01-01' }] } }) }),
		expected: ['Other Fields (JSON) › properties.title[0].value', 'missing', 'valid_from'],
		sent: false,
	},
	{ name: 'dated row: work percentage not a number', parameters: () => create(rows(['work_percentage', '2026-01-01', 'eighty'])), expected: ['Entry 1 › Value', '"eighty"', 'a number'], sent: false },
	{ name: 'dated row: org unit not a uuid', parameters: () => create(rows(['org_unit_id', '2026-01-01', 'sales'])), expected: ['Entry 1 › Value', '"sales"', EXPECT_UUID], sent: false },
	{ name: 'dated row: malformed property name', parameters: () => create(rows(['job title', '2026-01-01', '1'])), expected: ['Entry 1 › Property', '"job title"', 'not a field name'], sent: false },
	{ name: 'dated row: custom_properties', parameters: () => create(rows(['custom_properties', '2026-01-01', '1'])), expected: ['Entry 1 › Property', 'Custom Properties (JSON)'], sent: false },
	{ name: 'field by name: read-only in the registry', parameters: () => create({ fieldsByName: { field: [{ name: 'inserted_at', value: '2026-01-01T00:00:00Z' }] } }), expected: ['Fields by Name › Field 1 › Name', 'inserted_at', 'not writable'], sent: false },
	{ name: 'field by name: also set above', parameters: () => create({ fields: { phone1: '1' }, fieldsByName: { field: [{ name: 'phone1', value: '2' }] } }), expected: ['Fields by Name', 'phone1', 'already set'], sent: false },
	{ name: 'field by name: without a value', parameters: () => create({ fieldsByName: { field: [{ name: 'nickname', value: '' }] } }), expected: ['Fields by Name › Field 1 › Value', 'nickname', 'null'], sent: false },
	{ name: 'field by name: known email checked', parameters: () => create({ fieldsByName: { field: [{ name: 'email', value: 'ada-at-example' }] } }), expected: ['email', '"ada-at-example"', 'name@domain'], sent: false },
	{
		name: 'dated row: a property the server does not know (its reason is shown)',
		parameters: () => create(rows(['salary', '2026-01-01', '1'])),
		expected: ['400', 'data.properties.salary', 'unknown property'],
		sent: true,
	},
	{ name: 'Other Fields not valid JSON', parameters: () => create({ otherFields: '{"phone1": ' }), expected: ['Other Fields (JSON)', 'not valid JSON'], sent: false },
	{ name: 'Custom Properties a JSON array', parameters: () => create({ customProperties: '[1, 2]' }), expected: ['Custom Properties (JSON)', 'expected a JSON object', 'array'], sent: false },
	{
		name: 'work percentage over 100 (only the server knows)',
		parameters: () => create(rows(['work_percentage', '2026-01-01', '150'])),
		expected: ['400', 'data.properties.work_percentage[0].value', 'from 0 to 100'],
		sent: true,
	},

	// ---- Other Fields (JSON) and Custom Properties (JSON): the checks the form fields get
	{ name: 'Other Fields JSON: a __proto__ key', parameters: () => create({ otherFields: '{"__proto__": {"polluted": true}}' }), expected: ['Other Fields (JSON) › __proto__', 'not allowed'], sent: false },
	{ name: 'Other Fields JSON: a constructor key', parameters: () => create({ otherFields: '{"constructor": {"prototype": {"polluted": true}}}' }), expected: ['Other Fields (JSON) › constructor', 'not allowed'], sent: false },
	{ name: 'Custom Properties JSON: a nested prototype key', parameters: () => create({ customProperties: '{"shirt": {"prototype": "M"}}' }), expected: ['Custom Properties (JSON) › shirt.prototype', 'not allowed'], sent: false },
	{ name: 'Custom Properties JSON: a __proto__ key', parameters: () => create({ customProperties: '{"__proto__": {"isAdmin": true}}' }), expected: ['Custom Properties (JSON) › __proto__', 'not allowed'], sent: false },
	{
		name: 'Other Fields JSON: __proto__ inside properties',
		parameters: () => create({ otherFields: '{"properties": {"custom_properties": {"__proto__": {"x": 1}}}}' }),
		expected: ['Other Fields (JSON) › properties.custom_properties.__proto__', 'not allowed'],
		sent: false,
	},
	{ name: 'Other Fields JSON: properties a string', parameters: () => create({ otherFields: '{"properties": "abc"}' }), expected: ['Other Fields (JSON) › properties', 'expected an object', '"abc"'], sent: false },
	{ name: 'Other Fields JSON: custom_properties a list', parameters: () => create({ otherFields: '{"properties": {"custom_properties": [1]}}' }), expected: ['Other Fields (JSON) › properties.custom_properties', 'expected an object'], sent: false },
	{
		name: 'Other Fields JSON: a dated entry without valid_from',
		parameters: () => create({ otherFields: JSON.stringify({ properties: { title: [{ value: 'Lead' }] } }) }),
		expected: ['Other Fields (JSON) › properties.title[0].valid_from', 'missing', 'YYYY-MM-DD'],
		sent: false,
	},
	{
		name: 'Other Fields JSON: valid_from a number',
		parameters: () => create({ otherFields: JSON.stringify({ properties: { title: [{ valid_from: 20260101, value: 'Lead' }] } }) }),
		expected: ['Other Fields (JSON) › properties.title[0].valid_from', '20260101', 'YYYY-MM-DD'],
		sent: false,
	},
	{
		name: 'Other Fields JSON: valid_from 2026-02-30',
		parameters: () => create({ otherFields: JSON.stringify({ properties: { cost_center: [{ valid_from: '2026-02-30', value: 'CC' }] } }) }),
		expected: ['Other Fields (JSON) › properties.cost_center[0].valid_from', '"2026-02-30"', 'YYYY-MM-DD'],
		sent: false,
	},
	{
		name: 'Other Fields JSON: a dated property that is not a list',
		parameters: () => create({ otherFields: JSON.stringify({ properties: { title: 'Lead' } }) }),
		expected: ['Other Fields (JSON) › properties.title', 'expected a list'],
		sent: false,
	},
	{
		// A customer may have its own dated properties (see "Your own fields"): the server decides.
		name: 'Other Fields JSON: a property this server does not have (the server says)',
		parameters: () => create({ otherFields: JSON.stringify({ properties: { salary: [{ valid_from: null, value: 1 }] } }) }),
		expected: ['400', 'unknown_field', 'data.properties.salary', 'custom_properties', 'title'],
		sent: true,
	},
	{
		name: 'Other Fields JSON: work_percentage value not a number',
		parameters: () => create({ otherFields: JSON.stringify({ properties: { work_percentage: [{ valid_from: '2026-01-01', value: 'eighty' }] } }) }),
		expected: ['Other Fields (JSON) › properties.work_percentage[0].value', '"eighty"', 'a number'],
		sent: false,
	},
	{
		name: 'Other Fields JSON: manager_id value not a uuid',
		parameters: () => create({ otherFields: JSON.stringify({ properties: { manager_id: [{ valid_from: null, value: 'boss' }] } }) }),
		expected: ['Other Fields (JSON) › properties.manager_id[0].value', '"boss"', EXPECT_UUID],
		sent: false,
	},
	...['id', 'org_id', 'inserted_at', 'updated_at'].map(
		(field): BadInput => ({
			name: `Other Fields JSON: read-only ${field}`,
			parameters: () => create({ otherFields: JSON.stringify({ [field]: field.endsWith('_at') ? '2026-01-01T00:00:00Z' : UNKNOWN_UUID }) }),
			expected: [`Other Fields (JSON) › ${field}`, 'cannot be supplied', 'the API sets it'],
			sent: false,
		}),
	),
	{
		name: 'Other Fields JSON: update emptying first_name',
		parameters: ({ employee }) => ({ resource: 'employee', operation: 'update', id: byId(employee), otherFields: '{"first_name": ""}' }),
		expected: ['Other Fields (JSON) › first_name', 'cannot be emptied', 'non-empty text'],
		sent: false,
	},
	{ name: 'Other Fields JSON: replace with last_name null', parameters: ({ employee }) => ({ resource: 'employee', operation: 'replace', id: byId(employee), first_name: 'A', last_name: 'B', otherFields: '{"last_name": null}' }), expected: ['Other Fields (JSON) › last_name', 'expected text', 'null'], sent: false },
	{ name: 'Other Fields JSON: malformed email', parameters: () => create({ otherFields: '{"email": "ada-at-example"}' }), expected: ['Other Fields (JSON) › email', '"ada-at-example"', 'name@domain'], sent: false },
	{ name: 'Other Fields JSON: phone1 a number', parameters: () => create({ otherFields: '{"phone1": 46701234567}' }), expected: ['Other Fields (JSON) › phone1', 'expected text', '46701234567'], sent: false },
	{ name: 'Other Fields JSON: a field this server does not have (the server says)', parameters: () => create({ otherFields: '{"salary": 1}' }), expected: ['400', 'unknown_field', 'data.salary'], sent: true },
	{ name: 'Other Fields JSON: a malformed field name', parameters: () => create({ otherFields: '{"sal ary": 1}' }), expected: ['Other Fields (JSON) › sal ary', 'not a field name'], sent: false },
	{
		name: 'Other Fields JSON: a customer property history with a bad date',
		parameters: () => create({ otherFields: JSON.stringify({ properties: { weekly_hours: [{ valid_from: '2026-13-01', value: 1 }] } }) }),
		expected: ['Other Fields (JSON) › properties.weekly_hours[0].valid_from', '"2026-13-01" is not a date'],
		sent: false,
	},
	{ name: 'Shape JSON: a constructor key', parameters: () => listEmployees({ options: { shape: '{"constructor": "first_name"}' } }), expected: ['Options › Shape (JSON) › constructor', 'not allowed'], sent: false },

	// ---- node-wide options
	...[
		['0', '={{ 0 }}'],
		['1000', '={{ 1000 }}'],
		['-5', '={{ -5 }}'],
		['"abc"', '={{ "abc" }}'],
		['2.5', '={{ 2.5 }}'],
	].map(
		([shown, expression]): BadInput => ({
			name: `Concurrency ${shown} from an expression`,
			parameters: ({ employee }) => ({ ...getEmployee(employee), options: { concurrency: expression } }),
			expected: ['Options › Concurrency', 'whole number from 1 to 10', shown],
			sent: false,
		}),
	),
	{ name: 'Dated Values As Of 2026-02-30 (Get)', parameters: ({ employee }) => ({ ...getEmployee(employee), simplify: true, options: { asOfDate: '2026-02-30' } }), expected: ['Options › Dated Values As Of', '"2026-02-30"', 'YYYY-MM-DD'], sent: false },
	{ name: 'Dated Values As Of garbage (Get Many)', parameters: () => listEmployees({ simplify: true, options: { asOfDate: 'garbage' } }), expected: ['Options › Dated Values As Of', '"garbage"', 'YYYY-MM-DD'], sent: false },
	{ name: 'Dated Values As Of with an impossible time', parameters: () => listEmployees({ simplify: true, options: { asOfDate: '2026-02-01T25:00:00' } }), expected: ['Options › Dated Values As Of', '"2026-02-01T25:00:00"'], sent: false },

	// ---- system time types
	{ name: 'time type: __proto__ in JSON', parameters: ({ integration }) => timeType(integration, { otherFields: '{"__proto__": {"x": 1}}' }), expected: ['Other Fields (JSON) › __proto__', 'not allowed'], sent: false },
	{ name: 'time type: source_system in JSON', parameters: ({ integration }) => timeType(integration, { otherFields: '{"source_system": "x"}' }), expected: ['source_system', 'cannot be supplied'], sent: false },
	{ name: 'time type: empty Type Name', parameters: ({ integration }) => timeType(integration, { typeName: ' ' }), expected: ['Type Name', 'required'], sent: false },
	{ name: 'time type: wider unit type not a uuid', parameters: ({ integration }) => timeType(integration, { fields: { wider_unit_type_id: 'days' } }), expected: ['Wider Unit Type ID', '"days"', EXPECT_UUID], sent: false },
	{ name: 'time type: traits.unit in JSON', parameters: ({ integration }) => timeType(integration, { otherFields: '{"traits": {"unit": "days"}}' }), expected: ['traits.unit', 'cannot be supplied'], sent: false },
	{ name: 'time type: id in JSON', parameters: ({ integration }) => timeType(integration, { otherFields: `{"id": "${UNKNOWN_UUID}"}` }), expected: ['id', 'cannot be supplied'], sent: false },

	// ---- waiting
	{ name: 'wait timeout 0', parameters: ({ transfer }) => ({ resource: 'fileTransfer', operation: 'get', id: byId(transfer), options: { waitUntilDone: true, waitTimeout: 0 } }), expected: ['Wait Timeout (Seconds)', 'positive number'], sent: false },
	{ name: 'poll interval negative', parameters: ({ transfer }) => ({ resource: 'fileTransfer', operation: 'get', id: byId(transfer), options: { waitUntilDone: true, waitInterval: -1 } }), expected: ['First Poll Interval (Seconds)', 'positive number'], sent: false },

	// ---- only the server can tell
	{
		name: 'filter on a field the server does not filter on',
		parameters: () => listEmployees(filter('phone1', 'eq', '1')),
		expected: ['400', 'filters/unknown_field', 'filters[phone1]', 'not filterable'],
		sent: true,
	},
	{
		name: 'condition summary is not filterable (the server says)',
		parameters: () => listWith('condition', 'summary', 'eq', 'x'),
		expected: ['400', 'filters[summary]', 'expected one of domain, id, name, inserted_at, updated_at'],
		sent: true,
	},
	{
		name: 'order by a field the server does not order by',
		parameters: () => listEmployees({ options: { orderBy: 'email', orderDirection: 'asc' } }),
		expected: ['400', 'order/invalid_order_field', '"email" is not orderable'],
		sent: true,
	},
	{
		name: 'select a field the server does not have',
		parameters: () => listEmployees({ options: { select: ['salary'] } }),
		expected: ['400', 'select/unknown_field', 'select[]: field "salary"'],
		sent: true,
	},
	{
		name: 'a UUID with version digit 0 is a UUID (zod 4 would refuse it); the server says 404',
		parameters: () => getEmployee('00000000-0000-0000-0000-000000000001'),
		expected: ['Employee 00000000-0000-0000-0000-000000000001 was not found'],
		sent: true,
	},
	{
		name: 'condition of another domain',
		parameters: ({ otherDomainCondition }) => listEmployees({ condition: byId(otherDomainCondition) }),
		expected: ['400', 'condition_id/domain_mismatch', 'time_report'],
		sent: true,
	},
	{
		name: 'condition that does not exist',
		parameters: () => listEmployees({ condition: byId(UNKNOWN_UUID) }),
		expected: ['400', 'condition_id/unknown_condition', UNKNOWN_UUID],
		sent: true,
	},
];

describe('Personnel Data: bad input', () => {
	const bed = useTestBed();
	let ids: Ids;

	beforeAll(() => {
		const { sim } = bed.simulator;
		ids = {
			employee: sim.getRecords('employees')[0].id,
			integration: sim.getRecords('systemIntegrations')[0].id,
			otherDomainCondition: sim.conditionIds().sickLeave,
			transfer: sim.createFileTransfer().id,
		};
	});

	it('has at least 40 rows', () => {
		expect(TABLE.length).toBeGreaterThanOrEqual(40);
		expect(new Set(TABLE.map((row) => row.name)).size).toBe(TABLE.length);
	});

	it.each(TABLE.map((row) => [row.name, row] as const))('%s', async (_name, row) => {
		const result = await run(bed, row.parameters(ids));
		expect(result.error).toBeDefined();
		const error = result.error as Error & { description?: string | null };
		const text = `${error.message}\n${error.description ?? ''}`;
		for (const part of row.expected) {
			if (typeof part === 'string') expect(text).toContain(part);
			else expect(text).toMatch(part);
		}
		for (const part of row.notExpected ?? []) expect(text).not.toContain(part);
		const requests = apiRequests(bed);
		if (row.sent) expect(requests.length).toBeGreaterThan(0);
		else expect(requests.map((entry) => `${entry.method} ${entry.path}`)).toEqual([]);
	});

	it('with Continue On Fail, a bad item becomes an error item and the good ones still run', async () => {
		const good = ids.employee;
		const result = await run(
			bed,
			{ resource: 'employee', operation: 'get', id: byId('={{ $json.id }}'), simplify: false },
			{ items: [{ json: { id: good } }, { json: { id: 'bad' } }, { json: { id: good } }], continueOnFail: true },
		);
		const items = result.items?.[0] ?? [];
		expect(items.map((item) => item.json.id ?? item.json.error)).toEqual([good, expect.stringContaining('"bad"'), good]);
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(apiRequests(bed)).toHaveLength(2);
	});

	describe('credential Base URL', () => {
		afterEach(() => useCredential(bed));

		const BAD_BASE_URLS: Array<[string, (base: string) => string, string]> = [
			['not a URL', () => 'not a url', 'is not a URL'],
			['a file: URL', () => 'file:///etc/passwd', 'uses file:'],
			['a javascript: URL', () => 'javascript:alert(1)', 'uses javascript:'],
			['empty', () => '', 'is empty'],
			['a leading space', (base) => ` ${base}`, 'spaces around it'],
			['a fragment', (base) => `${base}#section`, 'fragment'],
			['a query', (base) => `${base}?x=`, 'query'],
		];

		it.each(BAD_BASE_URLS)('%s: an error naming Base URL, nothing sent, not retried', async (_name, baseUrlOf, why) => {
			for (const authMode of ['refreshToken', 'legacyToken'] as const) {
				useCredential(bed, 'admin', authMode);
				bed.runtime.setCredentials('personnelDataApi', {
					...bed.runtime.storedCredentials('personnelDataApi'),
					baseUrl: baseUrlOf(bed.simulator.baseUrl),
				});
				const result = await run(bed, getEmployee(ids.employee));
				expect(result.error?.message).toContain('Base URL');
				expect(result.error?.message).toContain(why);
				expect(result.error?.message).toContain('expected an absolute http(s) address');
				// Nothing reached the simulator: neither the request nor a token request.
				expect(bed.simulator.sim.requests()).toEqual([]);
			}
		});

		it('the credential test names Base URL too', async () => {
			bed.runtime.setCredentials('personnelDataApi', { ...bed.runtime.storedCredentials('personnelDataApi'), baseUrl: 'file:///etc/passwd' });
			bed.simulator.sim.clearRequests();
			const tested = await bed.runtime.testCredential('personnelDataApi');
			expect(tested.status).toBe('Error');
			expect(tested.message).toContain('Base URL');
			expect(bed.simulator.sim.requests()).toEqual([]);
		});

		it('a Base URL with a trailing slash still works', async () => {
			bed.runtime.setCredentials('personnelDataApi', { ...bed.runtime.storedCredentials('personnelDataApi'), baseUrl: `${bed.simulator.baseUrl}/` });
			const result = await run(bed, getEmployee(ids.employee));
			expect(result.error).toBeUndefined();
			expect(apiRequests(bed).map((entry) => entry.path)).toEqual([`/v1/org/employees/${ids.employee}`]);
		});
	});

	it.each([
		['1e12', 1e12],
		['-1', -1],
		['10081 (a minute over 7 days)', 10_081],
	])('trigger Settle Window %s: an error naming it with its maximum, nothing sent', async (_name, lookbackMinutes) => {
		bed.simulator.sim.clearRequests();
		const result = await bed.runtime.poll({
			nodeType: 'personnelDataTrigger',
			nodeName: `Look-back ${lookbackMinutes}`,
			parameters: { resource: 'employee', event: 'createdOrUpdated', options: { lookbackMinutes } },
		});
		expect(result.error?.message).toContain('Options › Settle Window (Minutes)');
		expect(result.error?.message).toContain('from 0 to 10080 (7 days)');
		expect(apiRequests(bed)).toEqual([]);
	});

	it('a tampered cursor (list search pagination token) is refused by the server with its reason', async () => {
		const page = await bed.runtime.listSearch({ nodeType: 'personnelData', method: 'searchRecords', parameters: { resource: 'employee' } });
		const token = String(page.paginationToken);
		const tampered = `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`;
		bed.simulator.sim.clearRequests();
		await expect(
			bed.runtime.listSearch({ nodeType: 'personnelData', method: 'searchRecords', parameters: { resource: 'employee' }, paginationToken: tampered }),
		).rejects.toMatchObject({ description: expect.stringContaining('pagination/invalid_cursor') });
		expect(apiRequests(bed).map((entry) => entry.status)).toEqual([400]);
	});
});
