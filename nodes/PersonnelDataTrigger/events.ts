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
	/**
	 * Happens once in a record's life (a creation): a later version at the same timestamp (a server
	 * that keeps seconds, a second change in the creation's second) is an update, not this again.
	 * A deletion is not `once`: a server that keeps seconds cannot tell a change and then a deletion
	 * within one second from a deletion and then a change, and a deletion is never sent as less.
	 */
	once?: boolean;
	/** Options → Watch Fields compares the records this event sends (docs/trigger.md: Watch fields). */
	watchesFields?: boolean;
}

/**
 * Every change timestamp of the resource: the spec's, and those only some servers send
 * (`serverChangeFields`: time reports' updated_at, employees' deleted_at).
 */
export function changeFieldsOf(resource: ResourceDefinition): { created?: string; updated?: string; deleted?: string } {
	return { ...resource.serverChangeFields, ...resource.changeFields };
}

/** Whether `field` is a change timestamp the spec does not promise for this resource. */
export function needsServerSupport(resource: ResourceDefinition, field: string): boolean {
	return Object.values(resource.serverChangeFields ?? {}).includes(field) && !Object.values(resource.changeFields ?? {}).includes(field);
}

/** The form's words for an event that needs the server's support. */
const serverNote = (resource: ResourceDefinition, field: string) =>
	needsServerSupport(resource, field) ? `; only where your server sends ${field} on ${resource.pluralName.toLowerCase()} (the API spec does not)` : '';

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
		changeField: (resource) => changeFieldsOf(resource).updated,
		description: (resource, field) => `${subject(resource)} is created or changes (${field})${serverNote(resource, field)}`,
		type: 'updated',
		watchesFields: true,
	}),
	row({
		value: 'created',
		name: 'Created',
		changeField: (resource) => changeFieldsOf(resource).created,
		description: (resource, field) => `${subject(resource, 'new ')} appears (${field})${serverNote(resource, field)}`,
		type: 'created',
		alsoAnUpdate: true,
		once: true,
	}),
	row({
		value: 'deleted',
		name: 'Deleted',
		changeField: (resource) => changeFieldsOf(resource).deleted,
		description: (resource, field) => `${subject(resource)} is deleted (${field} is set)${serverNote(resource, field)}`,
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

/**
 * The Event option a new node shows: the first the resource offers (the table's order) that every
 * server supports. n8n does not store a parameter left at its default, so this must never change
 * for a resource: time reports keep Created although Created or Updated is now offered.
 */
export function defaultEventOf(resource: ResourceDefinition): string {
	const offered = eventsOf(resource);
	const everywhere = offered.find((event) => !needsServerSupport(resource, event.changeField(resource) as string));
	return (everywhere ?? offered[0])?.value ?? TRIGGER_EVENTS[0].value;
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
 * labelled as a creation; a later version at a timestamp whose first version was sent
 * (`laterInItsTime`) is not labelled by a `once` row again; any other change gets its event's own type.
 */
export function labeller<Row extends TriggerEvent>(events: readonly Row[]) {
	return (event: Row, record: IDataObject, resource: ResourceDefinition, { firstSeen = false, laterInItsTime = false }: LabelContext = {}): Row['type'] => {
		const fields = changeFieldsOf(resource);
		const createdField = fields.created;
		if (firstSeen && createdField !== undefined) return events.find((row) => row.changeField(resource) === createdField)?.type ?? event.type;
		const updateField = fields.updated;
		if (updateField === undefined || event.changeField(resource) !== updateField) return event.type;
		const marking = events.filter((row) => {
			const field = row.alsoAnUpdate && !(row.once && laterInItsTime) ? row.changeField(resource) : undefined;
			return field !== undefined && sameTime(record[field], record[updateField]);
		});
		return marking.at(-1)?.type ?? event.type;
	};
}

/** What the feed and Watch Fields know of a change beyond the record. */
export interface LabelContext {
	/** Options → Watch Fields had never seen the record. */
	firstSeen?: boolean;
	/** Another version of the record at the same timestamp was sent before. */
	laterInItsTime?: boolean;
}

/** The product's labels: `labelOf(event, record, resource, context)`. */
export const labelOf = labeller<ProductEvent>(TRIGGER_EVENTS);
