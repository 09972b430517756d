/**
 * ItemParameters against n8n's own `getNodeParameter`, in n8n-core's real runtime: a probe node
 * reads each parameter both ways for every item and outputs both, and how often it had to ask n8n.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeParameters, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { ItemParameters } from '../../../nodes/PersonnelData/actions/itemParameters';
import { NodeRuntime } from '../../../scripts/harness';

interface Read {
	value?: unknown;
	error?: string;
}

const NAMES = ['text', 'count', 'flag', 'locator', 'options', 'options.inner', 'absent'] as const;
const FALLBACK: Record<(typeof NAMES)[number], unknown> = { text: '', count: 0, flag: false, locator: {}, options: {}, 'options.inner': 'none', absent: 'fallback' };

class ParameterProbe implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Parameter Probe',
		name: 'parameterProbe',
		group: ['transform'],
		version: 1,
		description: 'Reads its parameters two ways',
		defaults: { name: 'Parameter Probe' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [
			{ displayName: 'Text', name: 'text', type: 'string', default: '' },
			{ displayName: 'Count', name: 'count', type: 'number', default: 0 },
			{ displayName: 'Flag', name: 'flag', type: 'boolean', default: false },
			{
				displayName: 'Locator',
				name: 'locator',
				type: 'resourceLocator',
				default: { mode: 'id', value: '' },
				modes: [{ displayName: 'ID', name: 'id', type: 'string' }],
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				default: {},
				options: [{ displayName: 'Inner', name: 'inner', type: 'string', default: '' }],
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		let asked = 0;
		const counting = Object.assign(Object.create(this) as IExecuteFunctions, {
			getNodeParameter: ((...args: Parameters<IExecuteFunctions['getNodeParameter']>) => {
				asked++;
				return this.getNodeParameter(...args);
			}) as IExecuteFunctions['getNodeParameter'],
		});
		const reader = new ItemParameters(counting);
		const attempt = (read: () => unknown): Read => {
			try {
				return { value: read() };
			} catch (error) {
				return { error: (error as Error).message };
			}
		};
		const output = this.getInputData().map((_item, itemIndex): INodeExecutionData => {
			const fast: IDataObject = {};
			const n8n: IDataObject = {};
			for (const name of NAMES) {
				fast[name] = attempt(() => reader.read(name, itemIndex, FALLBACK[name])) as IDataObject;
				n8n[name] = attempt(() => this.getNodeParameter(name, itemIndex, FALLBACK[name] as never)) as IDataObject;
			}
			return { json: { fast, n8n } };
		});
		output.push({ json: { asked } });
		return [output];
	}
}

const runtime = new NodeRuntime({ nodeTypes: [new ParameterProbe()], credentialTypes: [], packageName: 'n8n-nodes-probe' });

async function probe(parameters: INodeParameters, items: IDataObject[]): Promise<{ reads: Array<{ fast: IDataObject; n8n: IDataObject }>; asked: number }> {
	const result = await runtime.execute({ nodeType: 'parameterProbe', parameters, items: items.map((json) => ({ json })) });
	if (result.error) throw result.error;
	const out = (result.items?.[0] ?? []).map((item) => item.json);
	const last = out.pop() as { asked: number };
	return { reads: out as Array<{ fast: IDataObject; n8n: IDataObject }>, asked: last.asked };
}

const ITEMS: IDataObject[] = [
	{ id: 'a1', n: 7, yes: true, nested: { id: 'inner-1', 'odd key': 'odd' }, list: ['x'] },
	{ id: 'b2', n: 0, yes: false, nested: { id: 'inner-2', 'odd key': 'odd 2' }, list: [] },
	{ id: 42, nested: null },
	{ n: 1.5, nested: { id: { deep: true } } },
	{ id: '', nested: 'text' },
	{},
];

describe('ItemParameters: the same values as getNodeParameter', () => {
	const expressions = [
		'={{ $json.id }}',
		'={{$json.id}}',
		'={{ $json["id"] }}',
		"={{ $json['nested']['odd key'] }}",
		'={{ $json.nested.id }}',
		'={{ $json.n }}',
		'={{ $json.yes }}',
		'={{ $json.list }}',
		'={{ $json.missing }}',
		'={{ $json.constructor }}',
		'={{ $json.__proto__ }}',
		'={{ $json.id }} ',
		'=id {{ $json.id }}',
		'={{ $json.id + "-x" }}',
		'={{ $json.nested?.id }}',
		'={{ $json.list[0] }}',
		'={{ $("Parameter Probe").item.json.id }}',
		'={{ $itemIndex }}',
	];

	it.each(expressions)('%s, as a text, a number, a record locator and inside a collection', async (expression) => {
		const { reads } = await probe(
			{ text: expression, count: expression, flag: expression, locator: { __rl: true, mode: 'id', value: expression }, options: { inner: expression } },
			ITEMS,
		);
		expect(reads).toHaveLength(ITEMS.length);
		for (const { fast, n8n } of reads) expect(fast).toEqual(n8n);
	});

	it('parameters without an expression: the same values, read from n8n once per run', async () => {
		const { reads, asked } = await probe({ text: 'plain', count: 3, flag: true, locator: { __rl: true, mode: 'id', value: 'abc' }, options: { inner: 'x' } }, ITEMS);
		for (const { fast, n8n } of reads) expect(fast).toEqual(n8n);
		expect(reads[0].fast).toMatchObject({ text: { value: 'plain' }, count: { value: 3 }, options: { value: { inner: 'x' } }, absent: { value: 'fallback' } });
		// One read per parameter name (and fallback), not per item.
		expect(asked).toBe(NAMES.length);
	});

	it('a field of the item ($json.id) is read from the item, not evaluated by n8n', async () => {
		const items = Array.from({ length: 50 }, (_, index) => ({ id: `id-${index}` }));
		const { reads, asked } = await probe({ text: '={{ $json.id }}', locator: { __rl: true, mode: 'id', value: '={{ $json.id }}' } }, items);
		expect(reads.map((read) => read.fast.text)).toEqual(items.map(({ id }) => ({ value: id })));
		expect(reads.map((read) => (read.fast.locator as Read).value)).toEqual(items.map(({ id }) => ({ __rl: true, mode: 'id', value: id })));
		for (const { fast, n8n } of reads) expect(fast).toEqual(n8n);
		// The five parameters without an expression once each; the two expressions never.
		expect(asked).toBe(NAMES.length - 2);
	});
});
