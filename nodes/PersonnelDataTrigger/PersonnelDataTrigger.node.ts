import type { INodeExecutionData, INodeType, IPollFunctions } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import type { HintedNodeDescription } from '../shared/descriptions/builderHint';
import { NODE_TYPES } from '../shared/descriptions/builderHint';
import { DOCS_URLS } from '../shared/docsLinks';
import { searchConditions } from '../shared/methods/listSearch';
import { fieldPickers } from '../shared/methods/loadOptions';
import { triggerProperties } from './description';
import { pollChanges } from './poll';

export class PersonnelDataTrigger implements INodeType {
	description: HintedNodeDescription = {
		displayName: 'Personnel Data Trigger',
		name: 'personnelDataTrigger',
		icon: { light: 'file:personnelDataTrigger.svg', dark: 'file:personnelDataTrigger.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{ $parameter["event"] + ": " + $parameter["resource"] }}',
		description: 'Starts the workflow when employees, time reports or other Personnel Data records are created or change',
		defaults: { name: 'Personnel Data Trigger' },
		documentationUrl: DOCS_URLS.trigger,
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'personnelDataApi', required: true }],
		properties: triggerProperties,
		builderHint: {
			searchHint:
				'Starts a workflow when Personnel Data records are created, change or are deleted (polling, each change once): new or changed employees, new time reports, changed organizational units or competences. Watch Fields sends an employee only when chosen fields change, e.g. a new manager or title. To read or write records on demand, use the Personnel Data node.',
			relatedNodes: [{ nodeType: NODE_TYPES.action, relationHint: 'Reads more records or writes employees after a change arrives' }],
		},
	};

	methods = { listSearch: { searchConditions }, loadOptions: { getFilterFields: fieldPickers.getFilterFields, getSelectFields: fieldPickers.getSelectFields, getWatchFields: fieldPickers.getWatchFields } };

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		return await pollChanges.call(this);
	}
}
