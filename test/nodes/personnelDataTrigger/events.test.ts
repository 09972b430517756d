/** Personnel Data Trigger: the Event options and the poll read one table of events (TRIGGER_EVENTS). */
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { PersonnelDataTrigger } from '../../../nodes/PersonnelDataTrigger/PersonnelDataTrigger.node';
import { WATCHABLE } from '../../../nodes/PersonnelDataTrigger/description';
import { TRIGGER_EVENTS } from '../../../nodes/PersonnelDataTrigger/events';
import { resourceByValue } from '../../../nodes/shared/registry';
import { useTestBed } from '../setup';
import { listRequestsSince, lastSeq, poll, stateOf } from './helpers';

const properties = new PersonnelDataTrigger().description.properties;

function eventProperty(resource: string): INodeProperties {
	const shown = properties.filter((property) => property.name === 'event' && property.displayOptions?.show?.resource?.includes(resource));
	expect(shown).toHaveLength(1);
	return shown[0];
}

/** For each watchable resource: every event of the table it lacks, and one the table does not have. */
const refused = WATCHABLE.flatMap((resource) =>
	[...TRIGGER_EVENTS.filter((event) => event.changeField(resource) === undefined).map((event) => event.value), 'noSuchEvent'].map(
		(event) => [resource.value, event] as const,
	),
);

describe('Personnel Data Trigger: events', () => {
	const bed = useTestBed();

	it.each(WATCHABLE.map((resource) => [resource.value, resource] as const))(
		'%s: the Event options are the events of TRIGGER_EVENTS that find their timestamp on it, the first one the default',
		(value, resource) => {
			const offered = TRIGGER_EVENTS.filter((event) => event.changeField(resource) !== undefined);
			expect(offered.length).toBeGreaterThan(0);
			const property = eventProperty(value);
			expect((property.options as INodePropertyOptions[]).map((option) => option.value)).toEqual(offered.map((event) => event.value));
			expect(property.default).toBe(offered[0].value);
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
