import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { WRITE_ENVELOPE } from '../../../shared/apiChoices';
import { optionsCollection, withArticle } from '../../../shared/descriptions/labels';
import { InputError } from '../../../shared/errors';
import { systemTimeType } from '../../../shared/registry/resources/systemTimeType';
import type { ApiRequest } from '../../../shared/transport';
import { apiRequest } from '../../../shared/transport';
import { uuidSchema } from '../../../shared/validation';
import { writeConcurrencyOption } from '../concurrency';
import { parseJsonObject } from '../json';
import type { PerRun } from '../read/perRun';
import { inVersions, NODE_VERSION_COLUMNS } from '../versions';
import { recordPath, requireUuid } from '../recordPath';
import type { Operation, SendItem } from '../types';
import { previewJson, writeModeOf, writeModeOption } from '../employee/preview';

/** Fields the API derives or reports; sending them is a mistake the user should hear about. */
const RESPONSE_ONLY = ['source_system', 'id', 'org_id', 'system_integration_id', 'inserted_at', 'updated_at'];

const TRAITS: Array<{ name: string; displayName: string; description: string }> = [
	{ name: 'comment_as_child_name', displayName: 'Comment as Child Name', description: 'Whether the comment of a report holds the child\'s name' },
	{ name: 'enabled', displayName: 'Enabled', description: 'Whether the time type can be used' },
	{ name: 'must_be_full_day', displayName: 'Must Be Full Day', description: 'Whether reports of this type must cover whole days' },
];

const properties: INodeProperties[] = [
	{
		displayName: 'System Integration ID',
		name: 'systemIntegrationId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 3f2b8c1e-5d4a-4e7b-9c1d-2a6f8e0b7c9d',
		description: 'The integration the time type belongs to; it decides the source system',
	},
	{ displayName: 'Type Name', name: 'typeName', type: 'string', default: '', required: true },
	{
		displayName: 'Additional Fields',
		name: 'fields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: (
			[
				{ displayName: 'External Type ID', name: 'external_type_id', type: 'string', default: '' },
				...TRAITS.map((trait): INodeProperties => ({ ...trait, type: 'boolean', default: false })),
				{ displayName: 'Type Code', name: 'type_code', type: 'string', default: '' },
				{ displayName: 'Wider Unit Type ID', name: 'wider_unit_type_id', type: 'string', default: '', description: 'UUID of a wider unit type' },
			] as INodeProperties[]
		).sort((a, b) => a.displayName.localeCompare(b.displayName)),
	},
	{
		displayName: 'Other Fields (JSON)',
		name: 'otherFields',
		type: 'json',
		// An empty object, not empty text: n8n's JSON editor marks empty text as an error on a fresh node.
		default: '{}',
		description: 'Further fields as a JSON object; the fields above take precedence. The source system is never sent.',
	},
	inVersions(optionsCollection([writeConcurrencyOption, writeModeOption(['write', 'preview'])]), [NODE_VERSION_COLUMNS]),
];

function timeTypeBody(read: <T>(name: string, fallback: T) => T): IDataObject {
	const other = parseJsonObject(read('otherFields', ''), 'Other Fields (JSON)') ?? {};
	const fields = read<IDataObject>('fields', {});
	const traits: IDataObject = { ...((other.traits as IDataObject | undefined) ?? {}) };
	const data: IDataObject = { ...other };
	for (const [name, value] of Object.entries(fields)) {
		if (TRAITS.some((trait) => trait.name === name)) traits[name] = value;
		else data[name] = value;
	}
	const typeName = read<string>('typeName', '').trim();
	if (!typeName) throw new InputError('Type Name: required; expected non-empty text');
	data.type_name = typeName;
	if (Object.keys(traits).length > 0) data.traits = traits;

	for (const name of RESPONSE_ONLY) {
		if (name in data) throw new InputError(`${name}: cannot be supplied; the API derives it (the source system comes from the system integration)`);
	}
	if ('unit' in traits) throw new InputError('traits.unit: cannot be supplied; it only appears in responses');
	if (data.wider_unit_type_id !== undefined && data.wider_unit_type_id !== '' && !uuidSchema.safeParse(data.wider_unit_type_id).success) {
		throw new InputError(`Wider Unit Type ID: "${String(data.wider_unit_type_id)}" is not valid; expected a UUID`);
	}
	return { [WRITE_ENVELOPE]: data };
}

const identifier = (value: unknown): string | undefined =>
	typeof value === 'string' && value.trim() !== '' ? value.trim().toLowerCase() : undefined;

/**
 * The record an item writes, for the router's one-record-at-a-time rule. The API updates the type
 * of the integration with the same type_code or external_type_id, so two items naming different
 * identifiers may still reach one stored type (one with that code and that external ID). Only when
 * every item of an integration names exactly one identifier, the same kind for all, do different
 * values mean different types; otherwise the integration's items are written one after another.
 * Keys are compared in lower case: a server that matches without regard to case is covered too.
 */
function recordKeyOf(perRun: PerRun, integrationId: string, data: IDataObject): () => string {
	const code = identifier(data.type_code);
	const external = identifier(data.external_type_id);
	const kinds = perRun.of('timeTypeKinds', () => new Map<string, Set<string>>());
	const integration = integrationId.toLowerCase();
	const seen = kinds.get(integration) ?? new Set<string>();
	kinds.set(integration, seen);
	seen.add(code !== undefined && external === undefined ? 'code' : external !== undefined && code === undefined ? 'external' : 'other');
	// Read once every item is prepared (the router asks when it sends), so `seen` is the whole run's.
	return () => {
		if (seen.size === 1 && seen.has('code')) return `${integration}|code=${code}`;
		if (seen.size === 1 && seen.has('external')) return `${integration}|external=${external}`;
		return integration;
	};
}

export const createOrUpdate: Operation<'createOrUpdate'> = {
	name: 'createOrUpdate',
	offeredFor: (resource) => resource === systemTimeType,
	displayName: 'Create or Update',
	builderHint: { propertyHint: 'Define or change an absence or attendance type of one system integration; running it again updates the same type.' },
	action: (resource) => `Create or update ${withArticle(resource.displayName.toLowerCase())}`,
	description: () => 'Create a time type, or update the one with the same code in that integration; returns the stored time type',
	properties: () => properties,
	// Version 1 has no Options › Concurrency: its items run one at a time.
	adaptiveWrites: true,

	prepare(this: IExecuteFunctions, { resource, itemIndex, read, perRun }) {
		const integrationId = requireUuid(read<string>('systemIntegrationId', '').trim(), 'system integration', 'System Integration ID');
		const body = timeTypeBody(read);
		const path = recordPath(resource.paths.createOrUpdate as string, integrationId);
		// Version 1 has no Options › Write Mode: it writes, as it always did.
		if (this.getNode().typeVersion >= NODE_VERSION_COLUMNS && writeModeOf(read) !== 'write') {
			if (writeModeOf(read) === 'apply') throw new InputError('Options › Write Mode: system time types offer Write and Preview Only; expected one of write, preview');
			return async () => [
				previewJson({
					operation: 'createOrUpdate',
					outcome: 'createOrUpdate',
					note: 'The API creates the type, or updates the one of this integration with the same type_code or external_type_id; the spec offers no read to tell which beforehand',
					write: { method: 'POST', path, body },
				}),
			];
		}
		const recordKey = recordKeyOf(perRun, integrationId, body[WRITE_ENVELOPE] as IDataObject);
		const send: SendItem = async () => {
			const response = await apiRequest.call<IExecuteFunctions, [ApiRequest], Promise<IDataObject>>(this, {
				method: 'POST',
				path,
				body,
				subject: `System integration ${integrationId}`,
				itemIndex,
			});
			return [(response.data as IDataObject | undefined) ?? response];
		};
		return Object.defineProperty(send, 'recordKey', { get: recordKey, enumerable: true });
	},
};
