import type { FieldType as MapperFieldType, IDataObject, ResourceMapperField } from 'n8n-workflow';

import type { DiscoveredFields } from '../../../../shared/fields/discover';
import { labelOf } from '../../../../shared/descriptions/labels';
import { InputError } from '../../../../shared/errors';
import { checkFieldName } from '../../../../shared/fields/names';
import type { FieldType, ResourceDefinition } from '../../../../shared/registry';

/**
 * The columns of the employee writes' column mapper (node version 2): the registry's writable
 * fields, the customer's own fields the sampled records showed, and every dated property, whose
 * column takes one value (an entry valid from Options › Valid From) or a whole history
 * `[{valid_from, value}]`. Read-only fields (id, org_id, timestamps) are never offered to write;
 * `id` is offered to Create or Update only, as a column to match on.
 */

export type MapperOperation = 'create' | 'update' | 'replace' | 'upsert';

/** A dated property whose name is also a top-level field gets this suffix on its column id. */
const DATED_SUFFIX = ' (dated)';

const mapperType = (type: FieldType | undefined): MapperFieldType =>
	type === 'number' ? 'number' : type === 'boolean' ? 'boolean' : 'string';

function column(id: string, displayName: string, type: MapperFieldType, options: { required?: boolean; match?: boolean } = {}): ResourceMapperField {
	return {
		id,
		displayName,
		required: options.required ?? false,
		defaultMatch: false,
		canBeUsedToMatch: options.match ?? false,
		display: true,
		type,
	};
}

/**
 * A date-time named like the API's own timestamps (inserted_at, updated_at, deleted_at): set by
 * the server, so not offered as a column (Options › Other Fields (JSON) still sends one).
 */
const isServerTimestamp = (name: string, type: FieldType | undefined): boolean => type === 'dateTime' && name.endsWith('_at');

/** Top-level fields a write may set: the registry's writable ones, then the customer's own the records showed. */
function plainColumnTypes(resource: ResourceDefinition, discovered: DiscoveredFields): Map<string, FieldType | undefined> {
	const writable = resource.writable?.plainFields ?? [];
	const plain = new Map<string, FieldType | undefined>(writable.map((name) => [name, resource.fields[name]?.type]));
	for (const [name, type] of discovered.fields) {
		if (resource.fields[name] || plain.has(name) || type === 'object' || type === 'array' || isServerTimestamp(name, type)) continue;
		plain.set(name, type);
	}
	return plain;
}

function datedColumnTypes(resource: ResourceDefinition, discovered: DiscoveredFields): Map<string, FieldType | undefined> {
	const valueTypes = resource.writable?.datedValueTypes ?? {};
	const dated = new Map<string, FieldType | undefined>(resource.datedProperties.map((name) => [name, valueTypes[name] ?? 'string']));
	for (const [name, type] of discovered.datedProperties) if (!dated.has(name)) dated.set(name, type);
	return dated;
}

export function datedColumnId(property: string, plainNames: ReadonlySet<string>): string {
	return plainNames.has(property) ? `${property}${DATED_SUFFIX}` : property;
}

/** The mapper's columns for one write operation. */
export function employeeColumns(resource: ResourceDefinition, discovered: DiscoveredFields, operation: MapperOperation): ResourceMapperField[] {
	const required = operation === 'create' || operation === 'replace' ? (resource.writable?.requiredOnCreate ?? []) : [];
	const plain = plainColumnTypes(resource, discovered);
	const plainNames = new Set(plain.keys());
	const columns: ResourceMapperField[] = [];
	if (operation === 'upsert') columns.push(column('id', 'ID', 'string', { match: true }));
	for (const [name, type] of plain) {
		columns.push(column(name, labelOf(name), mapperType(type), { required: required.includes(name), match: operation === 'upsert' }));
	}
	for (const [name, type] of datedColumnTypes(resource, discovered)) {
		columns.push(column(datedColumnId(name, plainNames), `${labelOf(name)} (Dated)`, mapperType(type)));
	}
	return columns;
}

/** The values of one item, sorted by what they write. Empty values ('' or null) are not given. */
export interface MappedValues {
	/** Top-level fields: the registry's, checked later like the v1 form's; a customer's own, sent as given. */
	plain: IDataObject;
	/** Dated properties: one value, or a whole history (an array of entries). */
	dated: Map<string, unknown>;
}

const isEmpty = (value: unknown): boolean => value === undefined || value === null || (typeof value === 'string' && value.trim() === '');

interface ColumnKind {
	kind: 'plain' | 'dated' | 'id';
	name: string;
	/** The type a customer's own column showed in the sample (the registry's columns keep their own checks). */
	ownType?: MapperFieldType;
}

/** What the saved schema (the columns the editor loaded) says a column is; undefined: not a column. */
function kindOfColumn(resource: ResourceDefinition, schema: readonly ResourceMapperField[], key: string): ColumnKind | undefined {
	if (key === 'id') return { kind: 'id', name: 'id' };
	if (resource.writable?.plainFields.includes(key)) return { kind: 'plain', name: key };
	if (resource.datedProperties.includes(key)) return { kind: 'dated', name: key };
	const saved = schema.find((field) => field.id === key && field.removed !== true);
	if (key.endsWith(DATED_SUFFIX)) return { kind: 'dated', name: key.slice(0, -DATED_SUFFIX.length), ownType: saved?.type };
	if (!saved) return undefined;
	return { kind: saved.displayName.endsWith('(Dated)') ? 'dated' : 'plain', name: key, ownType: saved.type };
}

/**
 * A text value (a CSV cell) of a customer's own column whose sample showed numbers or true/false,
 * as that type: written as the records hold it, and compared equal to it on the next run.
 */
function asOwnType(value: unknown, type: MapperFieldType | undefined): unknown {
	if (typeof value !== 'string') return value;
	const text = value.trim();
	if (type === 'number' && text !== '' && Number.isFinite(Number(text))) return Number(text);
	if (type === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
	return value;
}

export interface MappingInput {
	/** The item's keys (Map Automatically) or the mapper's values (Map Each Column Manually). */
	values: IDataObject;
	automatic: boolean;
	/** The columns the editor loaded and saved with the node (`columns.schema`). */
	schema: readonly ResourceMapperField[];
	/** Keys of the input item left out on purpose (Options › Ignore Columns). */
	ignore: ReadonlySet<string>;
}

/**
 * Sorts an item's values into the fields they write. A key that names no column fails the item
 * (Map Automatically with a stray key in the input): nothing is silently dropped; read-only fields
 * of an employee read by another node (id, org_id, timestamps, properties) are left out under Map
 * Automatically, because the API sets them.
 */
export function mappedValues(resource: ResourceDefinition, input: MappingInput): MappedValues & { id?: string } {
	const plain: IDataObject = {};
	const dated = new Map<string, unknown>();
	let id: string | undefined;
	const where = input.automatic ? 'Columns (from the input item)' : 'Columns';
	for (const [key, value] of Object.entries(input.values)) {
		if (input.ignore.has(key) || isEmpty(value)) continue;
		const column = kindOfColumn(resource, input.schema, key);
		if (!column) {
			if (input.automatic && resource.fields[key]) continue;
			throw new InputError(
				`${where} › ${key}: not a column of an employee; expected a writable field or dated property (open the node to load your own fields), or list it in Options › Ignore Columns`,
			);
		}
		if (column.kind === 'id') {
			id = typeof value === 'string' ? value.trim() : String(value as string | number);
			continue;
		}
		const name = checkFieldName(column.name, `${where} › ${key}`);
		const given = asOwnType(value, column.ownType);
		if (column.kind === 'dated') dated.set(name, given);
		else if (resource.writable?.plainFields.includes(name)) plain[name] = typeof value === 'number' ? String(value) : (value as IDataObject[string]);
		else plain[name] = given as IDataObject[string];
	}
	return { plain, dated, id };
}
