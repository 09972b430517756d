import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { toNodeError } from '../../../../shared/errors';
import type { ResourceDefinition } from '../../../../shared/registry';
import type { PerRun } from '../../read/perRun';
import { keyOf, readRecordsWhere } from '../../read/recordsWhere';

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
		this.loaded ??= this.readWanted(itemIndex);
		// A failed read fails every item that needs it, each with the same error.
		const found = await this.loaded;
		return found.get(value) ?? [];
	}

	/**
	 * In lists of up to 100 values (`in`); one request per distinct value (`eq`) for a field the
	 * registry knows to filter with `eq` only (an email), or when the server answers 400 to `in` on
	 * this field: the spec leaves the operators of each field to the server, and `eq` is the one a
	 * field to match on must have.
	 */
	private async readWanted(itemIndex: number): Promise<Map<string, IDataObject[]>> {
		const operators = this.resource.fields[this.field]?.filter;
		const eqOnly = operators !== undefined && operators.includes('eq') && !operators.includes('in');
		const lookup = { resource: this.resource, field: this.field, values: this.wanted, itemIndex };
		if (!eqOnly) {
			try {
				return await readRecordsWhere.call(this.context, lookup);
			} catch (error) {
				if ((error as { httpCode?: unknown }).httpCode !== '400') throw toNodeError(this.context.getNode(), error, itemIndex);
			}
		}
		return await readRecordsWhere.call(this.context, { ...lookup, operator: 'eq' });
	}

	/** After a write: the employee with this key is now `record`. */
	wrote(value: string, record: IDataObject): void {
		this.written.set(this.keyOf(value), [record]);
	}

	/** The value as the run's writes are keyed by it (an id in any letter case is one record). */
	keyOf(value: string): string {
		return keyOf(this.resource, this.field, value) as string;
	}
}

/** One lookup per node run and field: every item of the run shares it (see ../read/perRun.ts). */
export function lookupFor(perRun: PerRun, context: IExecuteFunctions, resource: ResourceDefinition, field: string): EmployeeLookup {
	return perRun.of(`employee lookup by ${field}`, () => new EmployeeLookup(context, resource, field));
}
