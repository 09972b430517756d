import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { ResourceDefinition } from '../../../shared/registry';
import { readRecordsWhere } from '../read/recordsWhere';

/**
 * The employees the items of one execution look up, read together on first use: every item is
 * prepared (and so registers its value) before the first is sent, and the first to need a record
 * reads them all, in list requests of at most 100 values. A write records its result here, so a
 * later item of the same run with the same key sees the employee as that write left it (two rows
 * of one file for one person: one record, changed in input order, never created twice).
 */
export class EmployeeLookup {
	private readonly wanted: string[] = [];
	private loaded: Promise<Map<string, IDataObject[]>> | undefined;
	private readonly written = new Map<string, IDataObject[]>();

	constructor(
		private readonly context: IExecuteFunctions,
		private readonly resource: ResourceDefinition,
		readonly field: string,
	) {}

	want(value: string): void {
		this.wanted.push(value);
	}

	/** The employees whose `field` is `value`, as read or as this run's last write left them. */
	async find(value: string, itemIndex: number): Promise<IDataObject[]> {
		const written = this.written.get(this.keyOf(value));
		if (written) return written;
		this.loaded ??= readRecordsWhere.call(this.context, { resource: this.resource, field: this.field, values: this.wanted, itemIndex });
		// A failed read fails every item that needs it, each with the same error.
		const found = await this.loaded;
		return found.get(value) ?? [];
	}

	/** After a write: the employee with this key is now `record`. */
	wrote(value: string, record: IDataObject): void {
		this.written.set(this.keyOf(value), [record]);
	}

	private keyOf(value: string): string {
		return this.resource.fields[this.field]?.type === 'uuid' ? value.toLowerCase() : value;
	}
}

/** One lookup per execution context and field (the router hands every item the same context). */
const lookups = new WeakMap<object, Map<string, EmployeeLookup>>();

export function lookupFor(context: IExecuteFunctions, resource: ResourceDefinition, field: string): EmployeeLookup {
	const byField = lookups.get(context) ?? new Map<string, EmployeeLookup>();
	lookups.set(context, byField);
	let lookup = byField.get(field);
	if (!lookup) {
		lookup = new EmployeeLookup(context, resource, field);
		byField.set(field, lookup);
	}
	return lookup;
}
