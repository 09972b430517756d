import type { IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { nodeProperties } from './actions/description';
import { route } from './actions/router';
import { answerAsTool, isToolCall } from './actions/toolMode';
import { searchConditions, searchRecords } from '../shared/methods/listSearch';
import { fieldPickers } from '../shared/methods/loadOptions';
import { resourceMapping } from './methods/resourceMapping';
import { DEFAULT_NODE_VERSION, NODE_VERSIONS } from './actions/versions';
import type { HintedNodeDescription } from '../shared/descriptions/builderHint';
import { NODE_TYPES } from '../shared/descriptions/builderHint';
import { DOCS_URLS } from '../shared/docsLinks';

export class PersonnelData implements INodeType {
	description: HintedNodeDescription = {
		displayName: 'Personnel Data',
		name: 'personnelData',
		icon: { light: 'file:personnelData.svg', dark: 'file:personnelData.dark.svg' },
		group: ['transform'],
		version: NODE_VERSIONS,
		defaultVersion: DEFAULT_NODE_VERSION,
		subtitle: '={{ $parameter["operation"] + ": " + $parameter["resource"] }}',
		description: 'Read employees, time reports, organizational units and more from the Personnel Data API, and write employees',
		defaults: { name: 'Personnel Data' },
		documentationUrl: DOCS_URLS.action,
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'personnelDataApi', required: true }],
		properties: nodeProperties,
		builderHint: {
			searchHint:
				'HR data of the Personnel Data API: employees (names, email, phones, employee number, title, manager, org unit), time reports (absence and attendance), organizational units, competences, employee competences, employee mappings, saved conditions, file transfers and replication jobs. Reads any of them; creates, updates or imports employees; creates or updates system time types. To start a workflow when such records change, use the Personnel Data Trigger instead.',
			relatedNodes: [
				{ nodeType: NODE_TYPES.trigger, relationHint: 'Starts a workflow when employees, time reports or other records are created or change' },
				{ nodeType: 'n8n-nodes-base.extractFromFile', relationHint: 'Turns a CSV of employees into items for Employee → Create or Update' },
				{ nodeType: 'n8n-nodes-base.convertToFile', relationHint: 'Writes listed employees or time reports to a CSV file' },
			],
		},
	};

	methods = { listSearch: { searchConditions, searchRecords }, loadOptions: fieldPickers, resourceMapping };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return isToolCall(this) ? await answerAsTool(this, route) : await route.call(this);
	}
}
