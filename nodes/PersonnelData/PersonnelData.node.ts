import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { nodeProperties } from './actions/description';
import { route } from './actions/router';
import { answerAsTool, isToolCall } from './actions/toolMode';
import { searchConditions, searchRecords } from '../shared/methods/listSearch';
import { fieldPickers } from '../shared/methods/loadOptions';
import { resourceMapping } from './methods/resourceMapping';
import { DEFAULT_NODE_VERSION, NODE_VERSIONS } from './actions/versions';

export class PersonnelData implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Personnel Data',
		name: 'personnelData',
		icon: { light: 'file:personnelData.svg', dark: 'file:personnelData.dark.svg' },
		group: ['transform'],
		version: NODE_VERSIONS,
		defaultVersion: DEFAULT_NODE_VERSION,
		subtitle: '={{ $parameter["operation"] + ": " + $parameter["resource"] }}',
		description: 'Read employees, time reports, organizational units and more from the Personnel Data API, and write employees',
		defaults: { name: 'Personnel Data' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'personnelDataApi', required: true }],
		properties: nodeProperties,
	};

	methods = { listSearch: { searchConditions, searchRecords }, loadOptions: fieldPickers, resourceMapping };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return isToolCall(this) ? await answerAsTool(this, route) : await route.call(this);
	}
}
