import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { resourceByValue } from '../../shared/registry';

/**
 * How the node answers an AI Agent that calls it as a tool.
 *
 * n8n offers every `usableAsTool` node a second type, `<name>Tool` ("Personnel Data Tool"), built
 * at run time from this node's own description. An agent's tool call runs `execute` with the
 * model's arguments as the single input item; n8n then puts `JSON.stringify` of the output items'
 * json into one message to the model, whatever its size, and when `execute` throws, n8n 2.8 ends
 * the agent's whole run. So, as a tool, the node
 * - shows at most TOOL_MAX_RECORDS records: Return All and a larger Limit are capped. It fetches
 *   one record more than it shows, to tell the model whether more match;
 * - keeps the answer under TOOL_MAX_BYTES of JSON, dropping whole records from the end;
 * - ends a shortened answer with a marker item `{ truncated: "…" }` that says how many records
 *   are missing, why, and what to do;
 * - answers a mistake (bad argument, API error) with a readable `{ error, details, hint }` item the
 *   model can act on, instead of failing the run. Bad input is still found before anything is sent.
 */
export const TOOL_MAX_RECORDS = 50;
export const TOOL_MAX_BYTES = 64_000;

/** Room kept under TOOL_MAX_BYTES for the marker item. */
const MARKER_ROOM = 1_000;

/** Whether n8n runs the node as an agent's tool (its type is `…personnelDataTool`). */
export function isToolCall(context: Pick<IExecuteFunctions, 'getNode'>): boolean {
	return context.getNode().type.endsWith('Tool');
}

/** How many records a call shows, and which setting was capped to get there (e.g. "Return All"). */
export interface ShownRecords {
	count: number;
	capped?: string;
}

/**
 * The node's context with Return All off and Limit replaced by what the tool shows, plus one (see
 * above). The operations read their parameters through the context; this one hands them the
 * capped values and leaves a Limit that is not a number to the operation's own check and error.
 */
function withFetchCap(context: IExecuteFunctions, shown: ShownRecords): IExecuteFunctions {
	const getNodeParameter = ((name: string, itemIndex: number, fallback?: unknown, options?: IDataObject) => {
		if (name === 'returnAll') return false;
		const value: unknown = context.getNodeParameter(name, itemIndex, fallback as never, options);
		if (name !== 'limit') return value;
		const asked = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
		if (context.getNodeParameter('returnAll', itemIndex, false) === true) {
			Object.assign(shown, { count: TOOL_MAX_RECORDS, capped: 'Return All' });
		} else if (typeof asked === 'number' && Number.isInteger(asked) && asked >= 1) {
			Object.assign(shown, asked > TOOL_MAX_RECORDS ? { count: TOOL_MAX_RECORDS, capped: `Limit ${asked}` } : { count: asked });
		} else {
			return value;
		}
		return shown.count + 1;
	}) as IExecuteFunctions['getNodeParameter'];
	return Object.assign(Object.create(context) as IExecuteFunctions, { getNodeParameter });
}

const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8');

function recordsNoun(context: IExecuteFunctions): string {
	try {
		return resourceByValue(context.getNodeParameter('resource', 0) as string).pluralName.toLowerCase();
	} catch {
		return 'records';
	}
}

/**
 * The items the model gets: at most `shown.count` records and TOOL_MAX_BYTES of JSON, marker
 * included. Records are dropped whole, from the end, and the marker counts them; more records
 * than `shown.count` means the API has more than were fetched.
 */
export function fitForModel(items: INodeExecutionData[], noun: string, shown: ShownRecords): INodeExecutionData[] {
	const kept: INodeExecutionData[] = [];
	let bytes = 2; // the brackets of the array n8n sends
	for (const item of items.slice(0, shown.count)) {
		const size = jsonBytes(item.json) + 1; // and its comma
		if (bytes + size > TOOL_MAX_BYTES - MARKER_ROOM) break;
		kept.push(item);
		bytes += size;
	}
	const notShown = items.length - kept.length;
	if (notShown === 0) return items;

	const moreMatch = items.length > shown.count;
	const reasons: string[] = [];
	if (moreMatch) {
		reasons.push(
			shown.capped
				? `${shown.capped} is capped at ${TOOL_MAX_RECORDS} ${noun} when Personnel Data is used as a tool`
				: `the Limit is ${shown.count} (at most ${TOOL_MAX_RECORDS} when Personnel Data is used as a tool)`,
		);
	}
	if (kept.length < Math.min(items.length, shown.count)) {
		reasons.push(`the answer is capped at ${TOOL_MAX_BYTES / 1000} kB of JSON`);
	}
	const count = `${moreMatch ? 'at least ' : ''}${notShown} more ${notShown === 1 ? 'record' : 'records'}`;
	const marker: INodeExecutionData = {
		json: {
			truncated: `${count} not shown (${kept.length} shown): ${reasons.join('; ')}. Narrow the filter (or ask for fewer fields) to get the rest.`,
		},
		pairedItem: { item: 0 },
	};
	return [...kept, marker];
}

/** The model's answer to a failed call: what was wrong and what is expected, in the node's words. */
export function errorAnswer(error: unknown): IDataObject {
	const { message, description } = (error instanceof Error ? error : new Error(String(error))) as Error & {
		description?: string | null;
	};
	return {
		error: message,
		...(description && !message.includes(description) ? { details: description } : {}),
		hint: 'Nothing was returned. Correct the arguments as the error says and call the tool again.',
	};
}

/**
 * Runs the node as a tool (see above): `run` is the node's normal execution. A cancelled execution
 * still ends with its error; every other failure becomes the answer.
 */
export async function answerAsTool(
	context: IExecuteFunctions,
	run: (this: IExecuteFunctions) => Promise<INodeExecutionData[][]>,
): Promise<INodeExecutionData[][]> {
	const shown: ShownRecords = { count: TOOL_MAX_RECORDS };
	try {
		const [items = []] = await run.call(withFetchCap(context, shown));
		return [fitForModel(items, recordsNoun(context), shown)];
	} catch (error) {
		if (context.getExecutionCancelSignal()?.aborted) {
			throw error instanceof NodeOperationError ? error : new NodeOperationError(context.getNode(), errorAnswer(error).error as string);
		}
		return [[{ json: errorAnswer(error), pairedItem: { item: 0 } }]];
	}
}
