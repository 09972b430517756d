import type { IExecuteFunctions, INodeParameters, NodeParameterValueType } from 'n8n-workflow';
import { deepCopy, isExpression } from 'n8n-workflow';

/**
 * The node's parameters for each item of a run, as `getNodeParameter` gives them, without paying
 * its per-item cost where the answer is known beforehand.
 *
 * Why: `getNodeParameter` evaluates a parameter anew for every item, and an expression costs the
 * most (n8n 2.41 runs each in an isolate: about 0.35 ms). On 1,000 items read in 10 batched
 * requests, evaluating `{{ $json.id }}` was two thirds of the node's time. So:
 * - a parameter without any expression in it is the same for every item: read once through
 *   `getNodeParameter` (its defaults, checks and errors), a copy handed to each item;
 * - a parameter that is exactly `={{ $json.<name>… }}` (dotted names or ['quoted'] keys; also as a
 *   record locator's value) is the current item's own field: read from the input item when that
 *   field holds a string, number or boolean, the values n8n's evaluation returns unchanged;
 * - everything else (other expressions, a field that is missing, an object, a path through an
 *   inherited property) goes through `getNodeParameter`, as before.
 * `test/nodes/personnelData/itemParameters.test.ts` checks each answer against n8n's own.
 */
export class ItemParameters {
	private readonly sameForEveryItem = new Map<string, { value: unknown }>();
	private readonly parameters: INodeParameters;
	private readonly inputJson: (itemIndex: number) => unknown;

	constructor(private readonly context: IExecuteFunctions) {
		this.parameters = context.getNode().parameters;
		const items = context.getInputData();
		this.inputJson = (itemIndex) => items[itemIndex]?.json;
	}

	read<T>(name: string, itemIndex: number, fallback: T): T {
		const raw = valueAtPath(this.parameters, name);
		if (!containsExpression(raw)) return this.readOnce(name, itemIndex, fallback);
		const field = this.fieldOfItem(raw, itemIndex);
		return field === undefined ? this.readEach(name, itemIndex, fallback) : (field.value as T);
	}

	private readEach<T>(name: string, itemIndex: number, fallback: T): T {
		return this.context.getNodeParameter(name, itemIndex, fallback as never) as T;
	}

	private readOnce<T>(name: string, itemIndex: number, fallback: T): T {
		const key = `${name}\u0000${JSON.stringify(fallback) ?? ''}`;
		let known = this.sameForEveryItem.get(key);
		if (known === undefined) {
			known = { value: this.readEach(name, itemIndex, fallback) };
			this.sameForEveryItem.set(key, known);
		}
		// Each item gets its own copy: an operation may change what it was handed.
		return (typeof known.value === 'object' && known.value !== null ? deepCopy(known.value) : known.value) as T;
	}

	/** `={{ $json.… }}`'s value for this item (or a record locator holding it), when it is plain. */
	private fieldOfItem(raw: NodeParameterValueType | undefined, itemIndex: number): { value: unknown } | undefined {
		if (typeof raw === 'string') {
			const value = plainField(this.inputJson(itemIndex), raw);
			return value === undefined ? undefined : { value };
		}
		const locator: unknown = raw;
		if (isRecordLocator(locator) && typeof locator.value === 'string' && onlyValueIsExpression(locator)) {
			const value = plainField(this.inputJson(itemIndex), locator.value);
			return value === undefined ? undefined : { value: { ...locator, value } };
		}
		return undefined;
	}
}

/** `={{ $json.a.b }}`, `={{ $json["a"] }}`, `={{$json['a'].b}}`; nothing before or after. */
const JSON_FIELD_EXPRESSION = /^=\{\{\s*\$json((?:\s*\.\s*[A-Za-z_$][\w$]*|\s*\[\s*(?:'[^'\\]*'|"[^"\\]*")\s*\])+)\s*\}\}$/;
const PATH_STEP = /\.\s*([A-Za-z_$][\w$]*)|\[\s*(?:'([^'\\]*)'|"([^"\\]*)")\s*\]/g;

/** The field names `={{ $json.… }}` walks, or null for any other expression (parsed once per text). */
const pathsOfExpressions = new Map<string, string[] | null>();
const MAX_REMEMBERED_EXPRESSIONS = 1_000;

function fieldPath(expression: string): string[] | null {
	let path = pathsOfExpressions.get(expression);
	if (path === undefined) {
		const steps = JSON_FIELD_EXPRESSION.exec(expression)?.[1];
		path = steps === undefined ? null : Array.from(steps.matchAll(PATH_STEP), (step) => step[1] ?? step[2] ?? step[3]);
		if (pathsOfExpressions.size >= MAX_REMEMBERED_EXPRESSIONS) pathsOfExpressions.clear();
		pathsOfExpressions.set(expression, path);
	}
	return path;
}

/** The field's value when `expression` names one of `json`'s own fields and it holds a string, number or boolean. */
function plainField(json: unknown, expression: string): string | number | boolean | undefined {
	const path = fieldPath(expression);
	if (path === null) return undefined;
	let value: unknown = json;
	for (const name of path) {
		if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, name)) return undefined;
		value = (value as Record<string, unknown>)[name];
	}
	return typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value)) ? value : undefined;
}

function valueAtPath(parameters: INodeParameters, name: string): NodeParameterValueType | undefined {
	let value: unknown = parameters;
	for (const step of name.split('.')) {
		if (typeof value !== 'object' || value === null || !Object.hasOwn(value, step)) return undefined;
		value = (value as Record<string, unknown>)[step];
	}
	return value as NodeParameterValueType;
}

function containsExpression(value: unknown): boolean {
	if (typeof value === 'string') return isExpression(value);
	if (Array.isArray(value)) return value.some(containsExpression);
	if (typeof value === 'object' && value !== null) return Object.values(value).some(containsExpression);
	return false;
}

interface RecordLocator {
	__rl: true;
	mode: string;
	value: unknown;
	[key: string]: unknown;
}

function isRecordLocator(value: unknown): value is RecordLocator {
	return typeof value === 'object' && value !== null && (value as { __rl?: unknown }).__rl === true;
}

function onlyValueIsExpression(locator: RecordLocator): boolean {
	return Object.entries(locator).every(([key, each]) => key === 'value' || !containsExpression(each));
}
