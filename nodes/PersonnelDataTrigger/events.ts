import type { IDataObject } from 'n8n-workflow';

import { withArticle } from '../shared/descriptions/labels';
import { InputError } from '../shared/errors';
import type { ResourceDefinition } from '../shared/registry';
import { compareTimestamps } from '../shared/timestamps';

/**
 * One event the trigger can watch. Everything the form, the poll and the labels know about an
 * event is in its row: the timestamp it reads (from the registry's `changeFields`), how the form
 * describes it, the `_event.type` it sends, and how Created or Updated tells its changes apart.
 * An event is offered exactly for the resources where it finds its timestamp.
 */
export interface TriggerEvent<Type extends string = string> {
	value: string;
	name: string;
	/** The timestamp field a change of this kind sets; undefined: the resource does not offer it. */
	changeField: (resource: ResourceDefinition) => string | undefined;
	/** The Event option's description, e.g. "An employee is created or changes (updated_at)". */
	description: (resource: ResourceDefinition, field: string) => string;
	/** `_event.type` of the records this event sends. */
	type: Type;
	/**
	 * The change this event's timestamp records sets the update timestamp to the same time (a
	 * creation, a soft delete): Created or Updated sends that change with this event's type, once,
	 * never as an update. When several rows match one change (created and deleted at once), the
	 * later row wins: the table lists a record's life in order.
	 */
	alsoAnUpdate?: boolean;
	/** Options → Watch Fields compares the records this event sends (docs/trigger.md: Watch fields). */
	watchesFields?: boolean;
}

/** "An employee", "A new time report": the start of an Event option's description. */
function subject(resource: ResourceDefinition, adjective = ''): string {
	const phrase = withArticle(`${adjective}${resource.displayName.toLowerCase()}`);
	return phrase.charAt(0).toUpperCase() + phrase.slice(1);
}

/** A row of the table, its `type` kept as the literal it is (so `EmittedType` lists them). */
const row = <Type extends string>(event: TriggerEvent<Type>): TriggerEvent<Type> => event;

/** In the order the form lists them (the first offered one is the default), and a record's life in order. */
export const TRIGGER_EVENTS = [
	row({
		value: 'createdOrUpdated',
		name: 'Created or Updated',
		changeField: (resource) => resource.changeFields?.updated,
		description: (resource, field) => `${subject(resource)} is created or changes (${field})`,
		type: 'updated',
		watchesFields: true,
	}),
	row({
		value: 'created',
		name: 'Created',
		changeField: (resource) => resource.changeFields?.created,
		description: (resource, field) => `${subject(resource, 'new ')} appears (${field})`,
		type: 'created',
		alsoAnUpdate: true,
	}),
	row({
		value: 'deleted',
		name: 'Deleted',
		changeField: (resource) => resource.changeFields?.deleted,
		description: (resource, field) => `${subject(resource)} is deleted (${field} is set)`,
		type: 'deleted',
		alsoAnUpdate: true,
	}),
] as const;

/** `_event.type` of an emitted record. */
export type EmittedType = (typeof TRIGGER_EVENTS)[number]['type'];

/** A row of the product's table. */
export type ProductEvent = TriggerEvent<EmittedType>;

export function eventsOf(resource: ResourceDefinition): ProductEvent[] {
	return TRIGGER_EVENTS.filter((event) => event.changeField(resource) !== undefined);
}

/** The Event option a new node shows: the first the resource offers (the table's order). */
export function defaultEventOf(resource: ResourceDefinition): string {
	return eventsOf(resource)[0]?.value ?? TRIGGER_EVENTS[0].value;
}

/** The event the user chose, with the field it reads; an event the resource lacks is an input error. */
export function eventOf(resource: ResourceDefinition, value: string): { event: ProductEvent; field: string } {
	const offered = eventsOf(resource);
	const event = offered.find((candidate) => candidate.value === value);
	if (!event) {
		throw new InputError(
			`Event: ${resource.pluralName} have no timestamp for "${value}"; choose ${offered.map((e) => e.name).join(' or ')}`,
		);
	}
	return { event, field: event.changeField(resource) as string };
}

const sameTime = (a: unknown, b: unknown) => typeof a === 'string' && typeof b === 'string' && compareTimestamps(a, b) === 0;

/**
 * How the changes an event reads are labelled (`_event.type`), by the rows of `events`. A change
 * read at the update timestamp that is also the change of an `alsoAnUpdate` row (its timestamp
 * equals the update time) gets that row's type; a record Options → Watch Fields had never seen is
 * labelled as a creation; any other change gets its event's own type.
 */
export function labeller<Row extends TriggerEvent>(events: readonly Row[]) {
	return (event: Row, record: IDataObject, resource: ResourceDefinition, firstSeen = false): Row['type'] => {
		const fields = resource.changeFields;
		const createdField = fields?.created;
		if (firstSeen && createdField !== undefined) return events.find((row) => row.changeField(resource) === createdField)?.type ?? event.type;
		const updateField = fields?.updated;
		if (updateField === undefined || event.changeField(resource) !== updateField) return event.type;
		const marking = events.filter((row) => {
			const field = row.alsoAnUpdate ? row.changeField(resource) : undefined;
			return field !== undefined && sameTime(record[field], record[updateField]);
		});
		return marking.at(-1)?.type ?? event.type;
	};
}

/** The product's labels: `labelOf(event, record, resource, firstSeen)`. */
export const labelOf = labeller<ProductEvent>(TRIGGER_EVENTS);
