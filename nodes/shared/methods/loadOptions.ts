import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import type { DiscoveredFields } from '../fields/discover';
import { discoverFields } from '../fields/discover';
import {
	datedPropertyChoices,
	filterFieldChoices,
	orderFieldChoices,
	selectFieldChoices,
	watchFieldChoices,
	writableFieldChoices,
} from '../fields/choices';
import type { ResourceDefinition } from '../registry';
import { resourceByValue } from '../registry';

type Choices = (resource: ResourceDefinition, discovered: DiscoveredFields) => INodePropertyOptions[];

/** A load-options method: the choices of the node's current resource, its records sampled once. */
const fieldPicker = (choices: Choices) =>
	async function (this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
		const resource = resourceByValue(this.getNodeParameter('resource', 'employee') as string);
		return choices(resource, await discoverFields(this, resource));
	};

/** The field pickers of both nodes (Filters › Field, Order By, Fields to Return, Dated Values › Property, Fields by Name). */
export const fieldPickers = {
	getFilterFields: fieldPicker(filterFieldChoices),
	getOrderFields: fieldPicker(orderFieldChoices),
	getSelectFields: fieldPicker(selectFieldChoices),
	getDatedProperties: fieldPicker(datedPropertyChoices),
	getWritableFields: fieldPicker(writableFieldChoices),
	getWatchFields: fieldPicker(watchFieldChoices),
};

export type FieldPickerMethod = keyof typeof fieldPickers;
