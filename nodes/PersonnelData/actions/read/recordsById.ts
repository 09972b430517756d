import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { deepCopy } from 'n8n-workflow';

import { idKey } from '../../../shared/ids';
import type { ResourceDefinition } from '../../../shared/registry';
import { credentialsOfRun } from '../../../shared/transport/runCredentials';
import { mapConcurrently } from '../concurrency';
import { credentialKey, isRefused, rememberRefusal } from './refusals';
import { chunksOf, distinctValues, listRequestsInFlight, readChunkWhere } from './recordsWhere';

/**
 * Whether Get may read a resource's records through its list: the list filters `id` with `in` and
 * serves the same version of the API as the single read. Organizational units are read with v2
 * (the v1 single read wraps properties in a container), their list is v1: one request per item.
 */
export function readsInBatches(resource: ResourceDefinition): boolean {
	const { get, list } = resource.paths;
	if (get === undefined || list === undefined) return false;
	const version = (path: string) => path.split('/')[1];
	return (resource.fields.id?.filter ?? []).includes('in') && version(get) === version(list);
}

/**
 * The records of one run's Get items, read through the list endpoint (`filters[id][op]=in`, up to
 * 100 ids a request) the first time any item asks, instead of one request per item.
 *
 * It only ever saves requests; it never decides an item's outcome. An id the answers leave out
 * (a list omits records the role may not read, spec authentication 8; or the record does not
 * exist) is not a record here, and its item asks for it on its own, getting the exact 403 or 404.
 * A chunk that fails in any way is read one item at a time the same way, so no run fails that
 * per-item Gets would have served; a 400 (the server does not take the `id` filter) also keeps
 * this credential's Gets one per item for a while (see refusals.ts).
 */
export class RecordsById {
	private readonly items: string[] = [];
	private loading?: Promise<Map<string, IDataObject>>;
	private readonly served = new Set<string>();

	constructor(
		private readonly context: IExecuteFunctions,
		private readonly resource: ResourceDefinition,
		private readonly concurrency: number,
	) {}

	/** Called while the items are prepared, before any is sent. */
	add(id: string): void {
		this.items.push(id);
	}

	/**
	 * The record with this id, or undefined when the item must ask for it on its own. An id named by
	 * several items is read once; each item after the first gets its own copy.
	 */
	async recordOf(id: string): Promise<IDataObject | undefined> {
		// Whatever goes wrong in the batch, the items read one by one and meet the error themselves.
		this.loading ??= this.load().catch(() => new Map<string, IDataObject>());
		const key = idKey(id);
		const record = (await this.loading).get(key);
		if (record === undefined) return undefined;
		if (!this.served.has(key)) {
			this.served.add(key);
			return record;
		}
		return deepCopy(record);
	}

	private async load(): Promise<Map<string, IDataObject>> {
		const byId = new Map<string, IDataObject>();
		const ids = distinctValues(this.resource, 'id', this.items);
		// One id: its own request is as few and gives the exact error at once.
		if (ids.length < 2) return byId;
		const context = this.context;
		const refusal = credentialKey(context.getNode(), await credentialsOfRun(context));
		if (isRefused(refusal)) return byId;

		const chunks = chunksOf(ids);
		let refused = false;
		const settled = await mapConcurrently(
			chunks.length,
			listRequestsInFlight(this.concurrency),
			async (index) => {
				try {
					return await readChunkWhere.call(context, { resource: this.resource, field: 'id', values: chunks[index] });
				} catch (error) {
					// Its items ask one by one. Only a 400 says the server does not take the filter at all.
					if ((error as { httpCode?: unknown }).httpCode === '400') refused = true;
					return undefined;
				}
			},
			() => refused || context.getExecutionCancelSignal()?.aborted === true,
		);
		if (refused) rememberRefusal(refusal);
		for (const result of settled) {
			if (result?.status !== 'fulfilled' || result.value === undefined) continue;
			for (const [id, records] of result.value) {
				// An id names one record; more than one is an answer to trust for none of them.
				if (records.length === 1) byId.set(idKey(id), records[0]);
			}
		}
		return byId;
	}
}
