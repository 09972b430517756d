import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { PersonnelDataApi } from '../../../../credentials/PersonnelDataApi.credentials';
import { readRecordsWhere } from '../../../../nodes/PersonnelData/actions/read/recordsWhere';
import { resourceByValue } from '../../../../nodes/shared/registry';
import { NodeRuntime } from '../../../../scripts/harness';

/**
 * A node that only calls the reader, so its tests run it inside n8n's execute context against real
 * HTTP: one output item per value asked, `{ value, records }`.
 */
export class ReaderProbe implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Reader Probe',
		name: 'readerProbe',
		group: ['transform'],
		version: 1,
		description: 'Calls readRecordsWhere',
		defaults: { name: 'Reader Probe' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'personnelDataApi', required: true }],
		properties: [
			{ displayName: 'Resource', name: 'resource', type: 'string', default: 'employee' },
			{ displayName: 'Field', name: 'field', type: 'string', default: 'id' },
			{ displayName: 'Values', name: 'values', type: 'json', default: '[]' },
			{ displayName: 'Select', name: 'select', type: 'json', default: '[]' },
			{ displayName: 'Concurrency', name: 'concurrency', type: 'number', default: 1 },
			{ displayName: 'Operator', name: 'operator', type: 'string', default: 'in' },
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const parse = (name: string) => JSON.parse(String(this.getNodeParameter(name, 0))) as string[];
		const found = await readRecordsWhere.call(this, {
			resource: resourceByValue(this.getNodeParameter('resource', 0) as string),
			field: this.getNodeParameter('field', 0) as string,
			values: parse('values'),
			select: parse('select'),
			concurrency: this.getNodeParameter('concurrency', 0) as number,
			operator: this.getNodeParameter('operator', 0) as 'in' | 'eq',
			itemIndex: 0,
		});
		return [[...found].map(([value, records]) => ({ json: { value, records: records as IDataObject[] } }))];
	}
}

export function probeRuntime(): NodeRuntime {
	return new NodeRuntime({ nodeTypes: [new ReaderProbe()], credentialTypes: [new PersonnelDataApi()] });
}
