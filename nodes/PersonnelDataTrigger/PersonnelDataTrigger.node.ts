import type { INodeExecutionData, INodeType, INodeTypeDescription, IPollFunctions } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { searchConditions } from '../shared/methods/listSearch';
import { fieldPickers } from '../shared/methods/loadOptions';
import { triggerProperties } from './description';
import { pollChanges } from './poll';

export class PersonnelDataTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Personnel Data Trigger',
		name: 'personnelDataTrigger',
		icon: { light: 'file:personnelDataTrigger.svg', dark: 'file:personnelDataTrigger.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{ $parameter["event"] + ": " + $parameter["resource"] }}',
		description: 'Starts the workflow when employees, time reports or other Personnel Data records are created or change',
		defaults: { name: 'Personnel Data Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'personnelDataApi', required: true }],
		properties: triggerProperties,
	};

	methods = { listSearch: { searchConditions }, loadOptions: { getFilterFields: fieldPickers.getFilterFields, getSelectFields: fieldPickers.getSelectFields, getWatchFields: fieldPickers.getWatchFields } };

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		return await pollChanges.call(this);
	}
}
