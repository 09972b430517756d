/**
 * What was approved is what is applied: an apply writes an item only if it is exactly what the
 * preview gave. Every edit between the preview and the apply (a Set node, an expression, an item
 * built from scratch, a part taken from another item) is refused by name, and nothing of it is
 * written; the unedited items are written.
 */
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { useCredential, useTestBed } from '../../setup';
import type { RunOptions } from '../helpers';
import { apiRequests, outputOf, run } from '../helpers';

const V2: RunOptions = { typeVersion: 2 };
const items = (rows: IDataObject[]): INodeExecutionData[] => rows.map((json) => ({ json }));
const upsert = (writeMode: string): INodeParameters => ({
	resource: 'employee',
	operation: 'upsert',
	columns: { mappingMode: 'autoMapInputData', value: null, matchingColumns: ['employee_number'], schema: [] },
	options: { validFrom: '2027-05-01', writeMode },
});
const previewOf = (json: IDataObject): IDataObject => json.preview as IDataObject;

describe('Personnel Data, version 2: a preview is sealed; an edited item is not applied', () => {
	const bed = useTestBed();
	const sim = () => bed.simulator.sim;
	const writes = () => apiRequests(bed).filter((entry) => entry.method !== 'GET');
	let numberSeq = 0;
	const freshNumber = () => `S-${process.pid}-${++numberSeq}`;
	const existing = () => sim().createRecords('employees', 1, { restricted: false, overrides: { employee_number: freshNumber() } as never })[0];

	/** A preview of one update and one create, as n8n hands items to the next node (a copy). */
	async function previewed(): Promise<IDataObject[]> {
		const person = existing();
		const rows = [
			{ employee_number: person.employee_number, phone1: '+46 700 11' },
			{ employee_number: freshNumber(), first_name: 'New', last_name: 'Hire' },
		];
		const preview = outputOf(await run(bed, upsert('preview'), { ...V2, items: items(rows) }));
		expect(preview.map((item) => previewOf(item.json).outcome)).toEqual(['update', 'create']);
		return preview.map((item) => structuredClone(item.json));
	}

	async function applyRefused(json: IDataObject, named: string): Promise<void> {
		const result = await run(bed, upsert('apply'), { ...V2, items: items([json]) });
		expect(result.error?.message).toContain(`Input item › ${named}: edited since the preview`);
		expect(writes()).toEqual([]);
	}

	it('every preview item carries a nonce and a seal of each of its parts, which hold no value of the employee', async () => {
		const [update] = await previewed();
		const preview = previewOf(update);
		expect(typeof preview.nonce).toBe('string');
		const seal = preview.seal as IDataObject;
		for (const part of ['operation', 'outcome', 'employeeId', 'write', 'read', 'changes']) expect(seal[part]).toMatch(/^[0-9a-f]{32}$/);
		expect(JSON.stringify(seal)).not.toContain('+46 700 11');
	});

	it('a create whose body was edited (first_name) is not created', async () => {
		const [, create] = await previewed();
		(((previewOf(create).write as IDataObject).body as IDataObject).data as IDataObject).first_name = 'Edited';
		await applyRefused(create, 'preview.write');
		expect(sim().getRecords('employees').some((record) => record.first_name === 'Edited')).toBe(false);
	});

	it('an update whose body and changes were both edited, consistently, is not written', async () => {
		const [update] = await previewed();
		const preview = previewOf(update);
		(((preview.write as IDataObject).body as IDataObject).data as IDataObject).phone1 = '+46 000 00';
		(((preview.changes as IDataObject).fields as IDataObject).phone1 as IDataObject).after = '+46 000 00';
		await applyRefused(update, 'preview.changes, preview.write');
	});

	it.each([
		['the outcome', (preview: IDataObject) => (preview.outcome = 'unchanged'), 'preview.outcome'],
		['the operation', (preview: IDataObject) => (preview.operation = 'upsert '), 'preview.operation'],
		['what the preview read', (preview: IDataObject) => ((preview.read as IDataObject).updated_at = null), 'preview.read'],
		['the method', (preview: IDataObject) => ((preview.write as IDataObject).method = 'PUT'), 'preview.write'],
		['a part removed', (preview: IDataObject) => delete preview.changes, 'preview.changes'],
		['a part added', (preview: IDataObject) => (preview.note = 'approved'), 'preview.note'],
		['the seal', (preview: IDataObject) => ((preview.seal as IDataObject).write = '0'.repeat(32)), 'preview.write'],
	])('an edit of %s is refused, naming it', async (_, edit, named) => {
		const [update] = await previewed();
		edit(previewOf(update));
		const result = await run(bed, upsert('apply'), { ...V2, items: items([update]) });
		// Named among the edited parts; an edit the apply's own checks refuse first (a method, an
		// operation, a part missing) names the field there.
		const message = result.error?.message ?? '';
		expect(message.slice(0, message.indexOf(':'))).toContain(named);
		expect(message).toMatch(/edited since the preview|is not this item's write|was previewed; expected|: missing/);
		expect(writes()).toEqual([]);
	});

	it('an item built from scratch, with no seal or with the seal of another item, is refused', async () => {
		const [update, create] = await previewed();
		const forged = structuredClone(update);
		delete previewOf(forged).seal;
		await run(bed, upsert('apply'), { ...V2, items: items([forged]) }).then((result) => expect(result.error?.message).toContain('Input item › preview.seal: missing'));
		const swapped = structuredClone(create);
		previewOf(swapped).seal = previewOf(update).seal;
		previewOf(swapped).nonce = previewOf(update).nonce;
		await applyRefused(swapped, 'preview.changes, preview.match, preview.outcome, preview.write');
	});

	it('with Continue: the edited item fails, the unedited ones are written exactly as previewed', async () => {
		const [update, create] = await previewed();
		const [other] = await previewed();
		(((previewOf(other).write as IDataObject).body as IDataObject).data as IDataObject).phone1 = '+46 999';
		const applied = outputOf(await run(bed, upsert('apply'), { ...V2, continueOnFail: true, items: items([update, other, create]) }));
		expect(applied.map((item) => item.json.writeOutcome ?? 'error')).toEqual(['updated', 'error', 'created']);
		expect(String(applied[1].json.error)).toContain('Input item › preview.write: edited since the preview');
		expect(applied.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(writes().map((entry) => entry.body)).toEqual([previewOf(update).write, previewOf(create).write].map((write) => (write as IDataObject).body));
	});

	it('a preview applied with another credential is refused (its seal is the credential\'s)', async () => {
		const [update] = await previewed();
		useCredential(bed, 'admin', 'legacyToken');
		await applyRefused(update, 'preview.changes, preview.employeeId, preview.match, preview.operation, preview.outcome, preview.read, preview.write');
	});
});
