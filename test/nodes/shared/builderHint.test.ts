/**
 * n8n's builder hints (nodes/shared/descriptions/builderHint.ts): every resource and operation
 * tells n8n's AI Workflow Builder what it is for, in the places n8n reads them, and an n8n whose
 * types lack the property (2.8, n8n-core's own loader) still loads the built package.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import type { INodeProperties, INodePropertyCollection, INodePropertyOptions } from 'n8n-workflow';
import { PackageDirectoryLoader } from 'n8n-core';

import { PersonnelData } from '../../../nodes/PersonnelData/PersonnelData.node';
import { PersonnelDataTrigger } from '../../../nodes/PersonnelDataTrigger/PersonnelDataTrigger.node';
import type { HintedNodeDescription, HintedOption } from '../../../nodes/shared/descriptions/builderHint';
import { NODE_TYPES } from '../../../nodes/shared/descriptions/builderHint';

const ROOT = join(__dirname, '../../..');
const DISCRIMINATORS = new Set(['resource', 'operation', 'mode']);
const descriptions: HintedNodeDescription[] = [new PersonnelData().description, new PersonnelDataTrigger().description];

type Item = INodeProperties | INodePropertyOptions | INodePropertyCollection;
const isProperty = (item: Item): item is INodeProperties => 'type' in item;

/** Every property, nested ones included, as n8n-core 2.41's validateNodeDescription visits them. */
function propertiesOf(items: readonly Item[] | undefined): INodeProperties[] {
	return (items ?? []).flatMap((item) => {
		if ('values' in item) return propertiesOf(item.values);
		return isProperty(item) ? [item, ...propertiesOf(item.options)] : [];
	});
}

describe('builder hints', () => {
	it.each(descriptions.map((description) => [description.name, description] as const))('%s has a search hint and related nodes that exist', (_name, description) => {
		expect(description.builderHint?.searchHint.length).toBeGreaterThan(40);
		for (const related of description.builderHint?.relatedNodes ?? []) {
			expect(related.relationHint).not.toBe('');
			if (related.nodeType.startsWith('n8n-nodes-personnel-data.')) expect(Object.values(NODE_TYPES)).toContain(related.nodeType);
		}
	});

	it('every Resource and Operation option carries a hint, and no discriminator property does (n8n 2.41 refuses to load that)', () => {
		for (const description of descriptions) {
			for (const property of propertiesOf(description.properties)) {
				if (!DISCRIMINATORS.has(property.name) || property.type !== 'options') continue;
				expect(property).not.toHaveProperty('builderHint');
				if (property.name === 'mode') continue;
				for (const option of (property.options ?? []) as HintedOption[]) {
					expect(option.builderHint?.propertyHint.length).toBeGreaterThan(20);
				}
			}
		}
	});

	it("n8n-core 2.8's loader, which knows no builder hints, loads the built package with them", async () => {
		if (!existsSync(join(ROOT, 'dist/nodes/PersonnelData/PersonnelData.node.js'))) throw new Error('dist/ is missing: run npm run build (npm test does)');
		const loader = new PackageDirectoryLoader(ROOT);
		await loader.loadAll();
		const loaded = loader.types.nodes as HintedNodeDescription[];
		expect(loaded.map((node) => node.name).sort()).toEqual(['personnelData', 'personnelDataTrigger']);
		expect(loaded.every((node) => node.builderHint?.searchHint)).toBe(true);
	});
});
