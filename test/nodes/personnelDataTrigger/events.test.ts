/** Personnel Data Trigger: the Event options, the poll and the labels read one table of events (TRIGGER_EVENTS). */
import type { IDataObject, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { PersonnelDataTrigger } from '../../../nodes/PersonnelDataTrigger/PersonnelDataTrigger.node';
import { triggerProperties, WATCHABLE } from '../../../nodes/PersonnelDataTrigger/description';
import type { TriggerEvent } from '../../../nodes/PersonnelDataTrigger/events';
import { labeller, labelOf, needsServerSupport, TRIGGER_EVENTS } from '../../../nodes/PersonnelDataTrigger/events';
import { resourceByValue } from '../../../nodes/shared/registry';
import { useTestBed } from '../setup';
import { listRequestsSince, lastSeq, poll, stateOf } from './helpers';

const properties = new PersonnelDataTrigger().description.properties;

function eventProperty(resource: string): INodeProperties {
	const shown = properties.filter((property) => property.name === 'event' && property.displayOptions?.show?.resource?.includes(resource));
	expect(shown).toHaveLength(1);
	return shown[0];
}

/** For each watchable resource: every event of the table it lacks, and a value no event could have. */
const refused = WATCHABLE.flatMap((resource) =>
	[...TRIGGER_EVENTS.filter((event) => event.changeField(resource) === undefined).map((event) => event.value), 'no such event'].map(
		(event) => [resource.value, event] as const,
	),
);

describe('Personnel Data Trigger: events', () => {
	const bed = useTestBed();

	it.each(WATCHABLE.map((resource) => [resource.value, resource] as const))(
		'%s: the Event options are the events of TRIGGER_EVENTS that find their timestamp on it, the first that every server supports the default',
		(value, resource) => {
			const offered = TRIGGER_EVENTS.filter((event) => event.changeField(resource) !== undefined);
			expect(offered.length).toBeGreaterThan(0);
			const property = eventProperty(value);
			expect((property.options as INodePropertyOptions[]).map((option) => option.value)).toEqual(offered.map((event) => event.value));
			const everywhere = offered.filter((event) => !needsServerSupport(resource, event.changeField(resource) as string));
			expect(property.default).toBe(everywhere[0].value);
		},
	);

	it.each(refused)('%s: the event "%s" is an error naming the events it offers, and nothing is read', async (resource, event) => {
		const definition = resourceByValue(resource);
		const offered = TRIGGER_EVENTS.filter((candidate) => candidate.changeField(definition) !== undefined).map((candidate) => candidate.name);
		const from = lastSeq(bed.simulator.sim);
		const result = await poll(bed, { resource, event });
		expect(result.error?.message).toBe(`Event: ${definition.pluralName} have no timestamp for "${event}"; choose ${offered.join(' or ')}`);
		expect(result.items).toBeUndefined();
		expect(listRequestsSince(bed.simulator.sim, from)).toEqual([]);
		expect(stateOf(bed)).toEqual({});
	});
});

describe('Personnel Data Trigger: labels and descriptions come from the events table', () => {
	const employee = resourceByValue('employee');
	const unit = resourceByValue('organizationalUnit');
	const event = (value: string) => TRIGGER_EVENTS.find((row) => row.value === value) as (typeof TRIGGER_EVENTS)[number];
	const createdOrUpdated = event('createdOrUpdated');
	const EARLIER = '2026-03-01T08:00:00.000000Z';
	const AT = '2026-03-02T09:30:00.123456Z';

	it('describes each event with the right article: "An employee…", "A new time report…", "An organizational unit…"', () => {
		const descriptionOf = (resource: string, value: string) =>
			(eventProperty(resource).options as INodePropertyOptions[]).find((option) => option.value === value)?.description;
		expect(descriptionOf('employee', 'createdOrUpdated')).toBe('An employee is created or changes (updated_at)');
		expect(descriptionOf('employee', 'created')).toBe('A new employee appears (inserted_at)');
		expect(descriptionOf('timeReport', 'created')).toBe('A new time report appears (inserted_at)');
		expect(descriptionOf('organizationalUnit', 'deleted')).toBe('An organizational unit is deleted (deleted_at is set)');
	});

	it('Created or Updated labels a change by the row whose timestamp it also set: created, deleted, else updated', () => {
		const record = (fields: IDataObject): IDataObject => ({ id: 'r1', inserted_at: EARLIER, updated_at: AT, deleted_at: null, ...fields });
		expect(labelOf(createdOrUpdated, record({}), unit)).toBe('updated');
		expect(labelOf(createdOrUpdated, record({ inserted_at: AT }), unit)).toBe('created');
		expect(labelOf(createdOrUpdated, record({ deleted_at: AT }), unit)).toBe('deleted');
		// Created and deleted in one change: the later row of the table (a record's life in order) wins.
		expect(labelOf(createdOrUpdated, record({ inserted_at: AT, deleted_at: AT }), unit)).toBe('deleted');
		// The events that read their own timestamp send their own type, whatever the other timestamps say.
		expect(labelOf(event('created'), record({ deleted_at: AT, inserted_at: AT }), unit)).toBe('created');
		expect(labelOf(event('deleted'), record({ deleted_at: AT }), unit)).toBe('deleted');
		// A record Watch Fields had never seen is labelled as a creation.
		expect(labelOf(createdOrUpdated, record({}), employee, { firstSeen: true })).toBe('created');
		// A later version at the creation's timestamp (a server that keeps seconds) is an update; a deletion stays one.
		expect(labelOf(createdOrUpdated, record({ inserted_at: AT }), unit, { laterInItsTime: true })).toBe('updated');
		expect(labelOf(createdOrUpdated, record({ deleted_at: AT }), unit, { laterInItsTime: true })).toBe('deleted');
	});

	it('a new soft-delete-like row is labelled by its own type, with no change outside its row', () => {
		// Built here, not a product event: an archive that sets archived_at and updated_at to one time.
		const archived: TriggerEvent = {
			value: 'archivedForThisTest',
			name: 'Archived',
			changeField: (resource) => (resource === employee ? 'archived_at' : undefined),
			description: (resource, field) => `${resource.displayName} archived (${field})`,
			type: 'archived',
			alsoAnUpdate: true,
		};
		const label = labeller<TriggerEvent>([...TRIGGER_EVENTS, archived]);
		const archivedNow: IDataObject = { id: 'e1', inserted_at: EARLIER, updated_at: AT, archived_at: AT };
		expect(label(createdOrUpdated, archivedNow, employee)).toBe('archived');
		expect(label(archived, archivedNow, employee)).toBe('archived');
		// An ordinary update of an employee archived earlier stays an update; a creation stays one.
		expect(label(createdOrUpdated, { ...archivedNow, archived_at: EARLIER }, employee)).toBe('updated');
		expect(label(createdOrUpdated, { ...archivedNow, inserted_at: AT, archived_at: null }, employee)).toBe('created');
		// The product's table has no such row: the same record is an update there.
		expect(labelOf(createdOrUpdated, archivedNow, employee)).toBe('updated');
	});
});

describe('Personnel Data Trigger: every field is scoped to one resource', () => {
	it.each(triggerProperties.filter((property) => property.name !== 'resource').map((property) => [property.name, property] as const))(
		'%s: shown for exactly one resource',
		(_name, property) => {
			expect(property.displayOptions?.show?.resource).toHaveLength(1);
		},
	);
});
