import type { INodeProperties } from 'n8n-workflow';

import { optionsCollection } from '../../../../shared/descriptions/labels';
import { writeConcurrencyOption } from '../../concurrency';
import { recordLocator } from '../../../../shared/descriptions/recordLocator';
import type { ResourceDefinition } from '../../../../shared/registry';
import type { MapperOperation } from './columns';
import { writeModeOption } from '../preview';

/** The output field that says what a version 2 write did (documented in docs/operations.md). */
export const WRITE_OUTCOME_FIELD = 'writeOutcome';

/** The resourceMapping method of the node (see ../../methods/resourceMapping.ts). */
export const COLUMNS_METHOD = 'getEmployeeColumns';

/**
 * n8n's mapper modes. Update finds its employee by the Employee locator, not by a column: in
 * 'update' mode the editor would want a column to match on and, with none, hide every column
 * ("No field that can be used for matching found"); 'map' shows the columns without one.
 */
const MAPPER_MODE: Record<MapperOperation, 'add' | 'map' | 'upsert'> = {
	create: 'add',
	replace: 'add',
	update: 'map',
	upsert: 'upsert',
};

function columnsProperty(operation: MapperOperation): INodeProperties {
	return {
		displayName: 'Columns',
		name: 'columns',
		type: 'resourceMapper',
		noDataExpression: true,
		default: { mappingMode: 'defineBelow', value: null },
		required: true,
		typeOptions: {
			loadOptionsDependsOn: ['operation'],
			resourceMapper: {
				resourceMapperMethod: COLUMNS_METHOD,
				mode: MAPPER_MODE[operation],
				fieldWords: { singular: 'field', plural: 'fields' },
				addAllFields: false,
				multiKeyMatch: false,
				supportAutoMap: true,
				...(operation === 'upsert'
					? {
							matchingFieldsLabels: {
								title: 'Columns to Match On',
								description: 'The field that finds the employee to update; no match creates one, several matches fail the item',
								hint: 'ID, Email and Employee Number are the usual keys; the server must be able to filter employees by the field',
							},
						}
					: {}),
			},
		},
	};
}

const VALID_FROM_OPTION: INodeProperties = {
	displayName: 'Valid From',
	name: 'validFrom',
	type: 'string',
	default: '',
	placeholder: 'YYYY-MM-DD',
	description:
		'The date a value given to a dated property (Title, Org Unit ID …) is valid from. Without this option: today in the workflow\'s time zone. Added but empty: from the beginning.',
};

const SEND_UNCHANGED_OPTION: INodeProperties = {
	displayName: 'Write Unchanged Records',
	name: 'writeUnchanged',
	type: 'boolean',
	default: false,
	description:
		'Whether to send the write even when the employee already has every value given. Off: nothing is sent and the item says "unchanged" (each write may start a replication job).',
};

const IGNORE_COLUMNS_OPTION: INodeProperties = {
	displayName: 'Ignore Columns',
	name: 'ignoreColumns',
	type: 'string',
	default: '',
	placeholder: 'e.g. notes, row_number',
	description: 'Keys of the input item that are not employee fields, separated by commas; without this a stray key fails the item',
};

const CUSTOM_PROPERTIES_OPTION: INodeProperties = {
	displayName: 'Custom Properties (JSON)',
	name: 'customProperties',
	type: 'json',
	default: '{}',
	description: 'Object stored as properties.custom_properties; on Update only the keys given are replaced. {} sends nothing.',
};

const OTHER_FIELDS_OPTION: INodeProperties = {
	displayName: 'Other Fields (JSON)',
	name: 'otherFields',
	type: 'json',
	default: '{}',
	description:
		'More fields as a JSON object, e.g. {"phone2": null} to clear a field; checked like the columns, which take precedence. {} sends nothing.',
};

/** Node version 2's form of Create, Update, Replace and Create or Update. */
export function employeeColumnsProperties(resource: ResourceDefinition, operation: MapperOperation): INodeProperties[] {
	const properties: INodeProperties[] = [];
	if (operation === 'update' || operation === 'replace') {
		properties.push(recordLocator({ name: 'id', displayName: resource.displayName, what: 'employee', searchMethod: 'searchRecords' }));
	}
	properties.push(columnsProperty(operation));
	const options = [VALID_FROM_OPTION, CUSTOM_PROPERTIES_OPTION, OTHER_FIELDS_OPTION, IGNORE_COLUMNS_OPTION];
	if (operation === 'update' || operation === 'upsert') options.push(SEND_UNCHANGED_OPTION);
	options.push(writeConcurrencyOption, writeModeOption(operation === 'create' ? ['write', 'preview'] : ['write', 'preview', 'apply']));
	properties.push(optionsCollection(options));
	return properties;
}
