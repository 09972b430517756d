/**
 * The trigger's events per resource (docs/trigger.md, its generated block), from the event table
 * the trigger itself uses (nodes/PersonnelDataTrigger/events.ts): which resource offers which
 * event, the timestamp it reads, the `_event.type` it sends, the default, and which need a server
 * that sends a timestamp the spec does not promise. Written by `npm run docs:reference`.
 */
import { RESOURCES } from '../../nodes/shared/registry';
import { defaultEventOf, eventsOf, needsServerSupport } from '../../nodes/PersonnelDataTrigger/events';

export const TRIGGER_PAGE = 'docs/trigger.md';
export const TRIGGER_EVENTS_BLOCK = 'trigger events (npm run docs:reference)';

const code = (text: string) => `\`${text}\``;

export function renderTriggerEvents(): string {
	const rows = RESOURCES.filter((resource) => resource.paths.list && eventsOf(resource).length > 0).flatMap((resource) =>
		eventsOf(resource).map((event) => {
			const field = event.changeField(resource) as string;
			return [
				resource.displayName,
				event.name + (defaultEventOf(resource) === event.value ? ' (default)' : ''),
				code(field),
				code(event.type),
				needsServerSupport(resource, field) ? `only where the server sends ${code(field)} (the spec does not); otherwise activation stops saying so` : 'every server (the spec)',
			];
		}),
	);
	const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
	return [
		line(['Resource', 'Event', 'Reads', '`_event.type`', 'Works with']),
		line(['---', '---', '---', '---', '---']),
		...rows.map(line),
		'',
		'With *Created or Updated*, a record created (or deleted) at the time it was last updated is sent once with `_event.type` `created` (or `deleted`), never also as an update.',
	].join('\n');
}
