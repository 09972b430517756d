import type { INodeProperties } from 'n8n-workflow';

import { conditionProperty, filtersProperty, selectOption } from '../shared/listQuery/description';
import { datedValuesAsOfOption, hasDatedValues, simplifyProperty } from '../shared/listQuery/simplify';
import type { HintedOption } from '../shared/descriptions/builderHint';
import { optionsCollection } from '../shared/descriptions/labels';
import { scoped } from '../shared/descriptions/scope';
import { maxRequestsOption } from '../shared/pagination';
import type { ResourceDefinition } from '../shared/registry';
import { RESOURCES } from '../shared/registry';
import { fieldsPicker } from '../shared/descriptions/fieldPicker';
import { defaultEventOf, eventsOf, needsServerSupport, TRIGGER_EVENTS } from './events';
import { timeBudgetOption } from './pollBudget';
import { LOOKBACK_MAX_MINUTES, MAX_CHANGES_CEILING, SETTLE_DEFAULT_MINUTES } from './setup';
import { WATCH_RECORDS_MAX } from './watchFields';

/** Resources the trigger can watch: listable, with at least one event. */
export const WATCHABLE = RESOURCES.filter((resource) => resource.paths.list && eventsOf(resource).length > 0);

const maxChangesOption: INodeProperties = {
	displayName: 'Max Changes per Poll',
	name: 'maxChangesPerPoll',
	type: 'number',
	typeOptions: { minValue: 0, maxValue: MAX_CHANGES_CEILING },
	default: 0,
	description:
		'Send at most this many changes per execution (oldest first); the next poll continues where this one stopped, each change still sent once. 0: no cap.',
};

/** Watch Fields and its companion: shown for the events that compare records (docs/trigger.md: Watch fields). */
const onlyWatchingEvents = { show: { '/event': TRIGGER_EVENTS.filter((event) => event.watchesFields).map((event) => event.value) } };

const watchOptions: INodeProperties[] = [
	{
		...fieldsPicker({
			displayName: 'Watch Fields',
			name: 'watchFields',
			method: 'getWatchFields',
			hint: `Send an update only when one of these changed (dated properties as whole histories; custom_properties.<key> by expression). Keeps these fields of up to ${WATCH_RECORDS_MAX.toLocaleString('en-US')} records.`,
		}),
		displayOptions: onlyWatchingEvents,
	},
	{
		displayName: 'Include Previous Values',
		name: 'includePreviousValues',
		type: 'boolean',
		default: false,
		description: 'Whether each item gets _event.previous with the watched fields\' values before the change (the trigger then keeps the values, not fingerprints)',
		displayOptions: onlyWatchingEvents,
	},
];

const resourceProperty: INodeProperties = {
	displayName: 'Resource',
	name: 'resource',
	type: 'options',
	noDataExpression: true,
	options: WATCHABLE.map((resource): HintedOption => ({ name: resource.displayName, value: resource.value, builderHint: resource.builderHint })).sort((a, b) =>
		a.name.localeCompare(b.name),
	),
	default: 'employee',
};

/** Why an event may be missing or refused: the spec gives the resource no such timestamp. */
function serverSupportHint(resource: ResourceDefinition): string | undefined {
	const plural = resource.pluralName.toLowerCase();
	const extra = Object.entries(resource.serverChangeFields ?? {}).filter(([, field]) => needsServerSupport(resource, field));
	if (extra.length > 0) {
		return extra
			.map(([kind, field]) => `${kind === 'updated' ? 'Created or Updated' : 'Deleted'} needs a server that sends ${field} on ${plural} (the API spec does not); elsewhere it stops at activation with an error saying so`)
			.join('. ');
	}
	return resource.changeFields?.updated ? undefined : `The API gives ${plural} no updated_at, so only new ones can be detected`;
}

function eventProperty(resource: ResourceDefinition): INodeProperties {
	const options = eventsOf(resource).map((event) => ({
		name: event.name,
		value: event.value,
		description: event.description(resource, event.changeField(resource) as string),
	}));
	return {
		displayName: 'Event',
		name: 'event',
		type: 'options',
		options,
		default: defaultEventOf(resource),
		hint: serverSupportHint(resource),
	};
}

/** What the first poll after the user activates or republishes the workflow does (docs/trigger.md: How the trigger works). */
const onActivationOption: INodeProperties = {
	displayName: 'On Activation',
	name: 'onActivation',
	type: 'options',
	options: [
		{
			name: 'Resume',
			value: 'resume',
			description: 'Send the changes made since the last poll, also those made while the workflow was off',
		},
		{
			name: 'Start From Now',
			value: 'startFromNow',
			description: 'Each time you activate or publish the workflow, skip what changed while it was off (n8n restarting still resumes)',
		},
		{
			name: 'Start From a Date',
			value: 'startFromDate',
			description: 'First send every record created or changed since Start Date, oldest first and a bounded number of polls at a time, then go on as usual',
		},
	],
	default: 'resume',
};

/** What a restart of n8n does (docs/trigger.md: Restarts). */
const onRestartOption: INodeProperties = {
	displayName: 'On Restart',
	name: 'onRestart',
	type: 'options',
	options: [
		{
			name: 'Repeat Nothing',
			value: 'repeatNothing',
			description: "Like n8n's own polling triggers: after a restart, the next poll sends only what changed since the last poll",
		},
		{
			name: 'Send the Last Poll Again',
			value: 'sendAgain',
			description:
				'At least once: after a restart, the changes of the last poll come again, marked _event.possiblyRepeated, in case n8n stopped before running them; drop repeats by _event.key with the Remove Duplicates node',
		},
	],
	default: 'repeatNothing',
};

/** On Activation → Start From a Date: the date. Changing it starts the backfill again from the new date. */
const startDateOption: INodeProperties = {
	displayName: 'Start Date',
	name: 'startDate',
	type: 'dateTime',
	default: '',
	description: 'With On Activation set to Start From a Date: send the changes made from this moment (UTC) on. Changing it starts again from the new date.',
};

function optionsProperty(resource: ResourceDefinition): INodeProperties {
	const options: INodeProperties[] = [
		{
			// Named lookbackMinutes since version 0.1: saved workflows keep their value.
			displayName: 'Settle Window (Minutes)',
			name: 'lookbackMinutes',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: LOOKBACK_MAX_MINUTES },
			default: SETTLE_DEFAULT_MINUTES,
			description: `How long after its change time a record may still appear on the server (a long transaction, an import committed at its end): each poll reads this window again and sends, once, what it has not sent. At most ${LOOKBACK_MAX_MINUTES} (7 days); 0: records that appear late are not seen.`,
		},
		onRestartOption,
		selectOption(),
		maxChangesOption,
		maxRequestsOption,
		onActivationOption,
		startDateOption,
		timeBudgetOption,
	];
	if (eventsOf(resource).some((event) => event.watchesFields)) options.push(...watchOptions);
	if (hasDatedValues(resource)) options.push(datedValuesAsOfOption);
	return optionsCollection(options);
}

/** The fields of one resource, each scoped to it here, once. */
function resourceFields(resource: ResourceDefinition): INodeProperties[] {
	return [
		eventProperty(resource),
		...conditionProperty(resource),
		...filtersProperty(resource),
		...simplifyProperty(resource),
		optionsProperty(resource),
	].map((property) => scoped(property, { show: { resource: [resource.value] } }));
}

export const triggerProperties: INodeProperties[] = [resourceProperty, ...WATCHABLE.flatMap(resourceFields)];
