/**
 * Which of the service's permissions each operation needs (docs/permissions.md, its generated
 * block): every resource and operation of the registry, with the grants the spec names for it.
 * The spec checks every request "per domain and per action (`list`, `create`, `update`)" and names
 * few grants itself; what it names is written here, keyed by resource, so a new resource or
 * operation shows up in the table (and type-checks) only with its line. Written by
 * `npm run docs:reference`.
 */
import type { OperationName } from '../../nodes/PersonnelData/actions/operations';
import { operationsOf } from '../../nodes/PersonnelData/actions/operations';
import { RESOURCES } from '../../nodes/shared/registry';

export const PERMISSIONS_PAGE = 'docs/permissions.md';
export const PERMISSIONS_BLOCK = 'permissions (npm run docs:reference)';

const code = (text: string) => `\`${text}\``;

/** What the spec says a resource's requests need (`resource.operation` first, then `resource`). */
const SPEC_GRANTS: Readonly<Record<string, string>> = {
	'employee.get': 'Employee List (the spec\'s own example of a permission)',
	'employee.getMany': 'Employee List (the spec\'s own example of a permission)',
	employee: 'The `create` and/or `update` permission of the `employee` domain (spec, *Write semantics for the employee domain*)',
	employeeMapping: 'Employee List **and** SystemIntegration List (spec)',
	condition: 'The Conditions grant (spec). Filtering another resource by a condition needs no grant on conditions',
	systemTimeType: 'Not stated beyond the general permission check (spec)',
};

const ACTIONS: Record<OperationName, string> = {
	get: '`list` of the domain (a record the role may not read: 403)',
	getMany: '`list` of the domain (records the role may not read are left out, silently)',
	create: '`create`',
	update: '`update` (a dated column first reads the history: `list` too)',
	replace: '`update`',
	upsert: '`list` (the lookup), `create` (new rows), `update` (changed rows)',
	createOrUpdate: 'see the note',
};

export function renderPermissions(): string {
	const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
	const rows = RESOURCES.flatMap((resource) =>
		operationsOf(resource).map((operation) =>
			line([resource.displayName, operation.displayName, ACTIONS[operation.name as OperationName], SPEC_GRANTS[`${resource.value}.${operation.name}`] ?? SPEC_GRANTS[resource.value] ?? '—']),
		),
	);
	return [
		line(['Resource', 'Operation', 'Action needed (per the spec\'s domain and action rule)', 'What the spec names']),
		line(['---', '---', '---', '---']),
		...rows,
		'',
		`The trigger lists its resource: it needs what ${code('Get Many')} needs. The credential's **Test** lists one employee: a role without Employee List fails the test although its own operations work (the message says so).`,
	].join('\n');
}
