import type { IDataObject } from 'n8n-workflow';

import { InputError } from '../shared/errors';
import type { ResourceDefinition } from '../shared/registry';
import { compareTimestamps } from '../shared/timestamps';

/** `_event.type` of an emitted record. */
export type EmittedType = 'created' | 'updated' | 'deleted';

/**
 * One event the trigger can watch: which timestamp it reads (the registry's `changeFields`), and
 * how an emitted record is labelled. An event is offered exactly for the resources where it finds
 * its timestamp; the form, the poll and the labels all read this table.
 */
export interface TriggerEvent {
	value: string;
	name: string;
	/** The timestamp field a change of this kind sets; undefined: the resource does not offer it. */
	changeField: (resource: ResourceDefinition) => string | undefined;
	description: (resource: ResourceDefinition, field: string) => string;
	typeOf: (record: IDataObject, resource: ResourceDefinition) => EmittedType;
}

const sameTime = (a: unknown, b: unknown) => typeof a === 'string' && typeof b === 'string' && compareTimestamps(a, b) === 0;

/**
 * A record whose change time equals its creation time was created by that change; one whose change
 * time equals its deletion time was deleted by it (sent once, as a deletion, never as an update).
 */
function createdOrUpdatedType(record: IDataObject, resource: ResourceDefinition): EmittedType {
	const fields = resource.changeFields;
	const updated = record[fields?.updated ?? ''];
	if (fields?.deleted !== undefined && sameTime(record[fields.deleted], updated)) return 'deleted';
	return sameTime(record[fields?.created ?? ''], updated) ? 'created' : 'updated';
}

/** In the order the form lists them; the first offered one is the default. */
export const TRIGGER_EVENTS: readonly TriggerEvent[] = [
	{
		value: 'createdOrUpdated',
		name: 'Created or Updated',
		changeField: (resource) => resource.changeFields?.updated,
		description: (resource, field) => `A ${resource.displayName.toLowerCase()} is created or changes (${field})`,
		typeOf: createdOrUpdatedType,
	},
	{
		value: 'created',
		name: 'Created',
		changeField: (resource) => resource.changeFields?.created,
		description: (resource, field) => `A new ${resource.displayName.toLowerCase()} appears (${field})`,
		typeOf: () => 'created',
	},
	{
		value: 'deleted',
		name: 'Deleted',
		changeField: (resource) => resource.changeFields?.deleted,
		description: (resource, field) => `A ${resource.displayName.toLowerCase()} is deleted (${field} is set)`,
		typeOf: () => 'deleted',
	},
];

export function eventsOf(resource: ResourceDefinition): TriggerEvent[] {
	return TRIGGER_EVENTS.filter((event) => event.changeField(resource) !== undefined);
}

/** The event the user chose, with the field it reads; an event the resource lacks is an input error. */
export function eventOf(resource: ResourceDefinition, value: string): { event: TriggerEvent; field: string } {
	const offered = eventsOf(resource);
	const event = offered.find((candidate) => candidate.value === value);
	if (!event) {
		throw new InputError(
			`Event: ${resource.pluralName} have no timestamp for "${value}"; choose ${offered.map((e) => e.name).join(' or ')}`,
		);
	}
	return { event, field: event.changeField(resource) as string };
}
