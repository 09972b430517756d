import type { IPollFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { ResourceDefinition } from '../shared/registry';
import type { ProductEvent } from './events';
import { needsServerSupport } from './events';

/**
 * What the trigger says when the customer's server, making a legal choice where the spec is
 * silent, cannot support the chosen event: it does not send the event's timestamp, or does not
 * filter or order the list by it. Said at activation (n8n shows it there), never guessed around.
 */

interface EventOnResource {
	resource: ResourceDefinition;
	event: ProductEvent;
	field: string;
}

/** Events of a timestamp the spec does not promise: the other events the resource has. */
function alternative({ resource, field }: EventOnResource): string {
	return needsServerSupport(resource, field)
		? ` The API spec does not give ${resource.pluralName.toLowerCase()} ${field}; only some servers send it.`
		: '';
}

/** The server's records lack the event's timestamp: every change would go unseen. */
export function missingChangeField(context: IPollFunctions, setup: EventOnResource): Error {
	return new NodeOperationError(
		context.getNode(),
		`This Personnel Data server sends ${setup.resource.pluralName.toLowerCase()} without ${setup.field}, which the ${setup.event.name} event reads, so it cannot be watched on this server.${alternative(setup)}`,
	);
}

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The API's inner error messages of a NodeApiError. */
function innerMessages(error: NodeApiError): string[] {
	const inner = (error.errorResponse as JsonObject | undefined)?.errors;
	return (Array.isArray(inner) ? inner : []).filter(isObject).map((entry) => String(entry.message ?? entry.reason ?? '')).filter((text) => text !== '');
}

/**
 * A 400 to the trigger's own list requests: when the server names the event's timestamp (or says
 * nothing more precise), the server does not accept filtering or ordering by it. Other errors pass.
 */
export function refusedByServer(context: IPollFunctions, error: unknown, setup: EventOnResource): Error | undefined {
	if (!(error instanceof NodeApiError) || error.httpCode !== '400') return undefined;
	const reasons = innerMessages(error);
	const naming = reasons.filter((text) => text.includes(setup.field));
	if (reasons.length > 0 && naming.length === 0) return undefined;
	return new NodeOperationError(
		context.getNode(),
		`This Personnel Data server does not let the trigger filter and order ${setup.resource.pluralName.toLowerCase()} by ${setup.field} (400${naming.length > 0 ? `: ${naming.join('; ')}` : ''}), which the ${setup.event.name} event needs, so it cannot be watched on this server.${alternative(setup)}`,
		{ description: error.description ?? undefined },
	);
}
