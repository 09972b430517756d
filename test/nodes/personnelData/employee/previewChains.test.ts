/**
 * Rows that build on each other apply as previewed: several rows of one file for one employee, or
 * for one new key, are previewed as a chain (each against the state the row before leaves) and
 * applied as that chain (each checked against, and written on, the state the row before's write
 * left). The summary counts what the apply does.
 */
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { useTestBed } from '../../setup';
import type { RunOptions } from '../helpers';
import { apiRequests, outputOf, PATCH_SERVERS, run } from '../helpers';

const V2: RunOptions = { typeVersion: 2 };
const items = (rows: IDataObject[]): INodeExecutionData[] => rows.map((json) => ({ json }));
const upsert = (writeMode: string): INodeParameters => ({
	resource: 'employee',
	operation: 'upsert',
	columns: { mappingMode: 'autoMapInputData', value: null, matchingColumns: ['employee_number'], schema: [] },
	options: { validFrom: '2027-05-01', writeMode },
});
const previewOf = (item: INodeExecutionData): IDataObject => item.json.preview as IDataObject;
const titleOf = (record: IDataObject): unknown => (((record.properties as IDataObject).title as IDataObject[] | undefined) ?? [])[0];

describe.each(PATCH_SERVERS)('Personnel Data, version 2: rows that build on each other, previewed and applied as a chain, on a server that $name', ({ variation }) => {
	const bed = useTestBed({ variation });
	const sim = () => bed.simulator.sim;
	const writes = () => apiRequests(bed).filter((entry) => entry.method !== 'GET');
	let numberSeq = 0;
	const freshNumber = () => `K-${process.pid}-${++numberSeq}`;
	const withNumber = (number: string): IDataObject[] => sim().getRecords('employees').filter((record) => record.employee_number === number) as unknown as IDataObject[];
	const apply = async (preview: INodeExecutionData[], options: RunOptions = {}) => outputOf(await run(bed, upsert('apply'), { ...V2, ...options, items: preview.map((item) => ({ json: item.json })) }));

	it('two rows for one employee (a phone, then a title): the second is a step after the first, and both apply; a replay writes nothing', async () => {
		const [person] = sim().createRecords('employees', 1, { restricted: false, overrides: { employee_number: freshNumber() } as never });
		const number = String(person.employee_number);
		const preview = outputOf(await run(bed, upsert('preview'), { ...V2, items: items([{ employee_number: number, phone1: '+46 1' }, { employee_number: number, title: 'Chief' }]) }));
		expect(preview.map((item) => previewOf(item).outcome)).toEqual(['update', 'update']);
		expect(previewOf(preview[1]).chain).toEqual({ after: previewOf(preview[0]).nonce });
		expect(previewOf(preview[0]).chain).toBeUndefined();

		const applied = await apply(preview);
		expect(applied.map((item) => item.json.writeOutcome)).toEqual(['updated', 'updated']);
		expect(writes()).toHaveLength(2);
		const [stored] = withNumber(number);
		expect(stored.phone1).toBe('+46 1');
		expect(titleOf(stored)).toEqual({ valid_from: '2027-05-01', value: 'Chief' });
		expect(applied[1].json.writeChanges).toEqual(previewOf(preview[1]).changes);

		const replay = await apply(preview);
		expect(replay.map((item) => item.json.writeOutcome)).toEqual(['unchanged', 'unchanged']);
		expect(writes()).toEqual([]);
	});

	it('three rows for one new key: one create, then two updates of the employee it creates; the apply creates one employee and writes the rest on it', async () => {
		const number = freshNumber();
		const rows = [
			{ employee_number: number, first_name: 'Nova', last_name: 'Hire' },
			{ employee_number: number, phone1: '+46 2' },
			{ employee_number: number, title: 'Analyst' },
		];
		const preview = outputOf(await run(bed, upsert('preview'), { ...V2, items: items(rows) }));
		// What a summary counts: one new employee, two updates of it.
		expect(preview.map((item) => previewOf(item).outcome)).toEqual(['create', 'update', 'update']);
		expect(previewOf(preview[1])).toMatchObject({ chain: { after: previewOf(preview[0]).nonce }, write: { method: 'PATCH', path: '/v1/org/employees/{id}' } });
		expect(previewOf(preview[1]).employeeId).toBeUndefined();
		expect(previewOf(preview[2]).chain).toEqual({ after: previewOf(preview[1]).nonce });
		expect(writes()).toEqual([]);

		const applied = await apply(preview);
		expect(applied.map((item) => item.json.writeOutcome)).toEqual(['created', 'updated', 'updated']);
		const created = withNumber(number);
		expect(created).toHaveLength(1);
		expect(created[0]).toMatchObject({ first_name: 'Nova', phone1: '+46 2' });
		expect(titleOf(created[0])).toEqual({ valid_from: '2027-05-01', value: 'Analyst' });
		expect(writes().map((entry) => `${entry.method} ${entry.path}`)).toEqual([
			'POST /v1/org/employees',
			`PATCH /v1/org/employees/${String(created[0].id)}`,
			`PATCH /v1/org/employees/${String(created[0].id)}`,
		]);
		preview.forEach((item, index) => expect(applied[index].json.writeChanges).toEqual(previewOf(item).changes));

		const replay = await apply(preview);
		expect(replay.map((item) => item.json.writeOutcome)).toEqual(['unchanged', 'unchanged', 'unchanged']);
		expect(writes()).toEqual([]);
	});

	it('a step whose earlier row is not applied (left out, or refused) is not written, naming the chain', async () => {
		const number = freshNumber();
		const preview = outputOf(
			await run(bed, upsert('preview'), { ...V2, items: items([{ employee_number: number, first_name: 'Solo', last_name: 'Step' }, { employee_number: number, phone1: '+46 3' }]) }),
		);
		const alone = await run(bed, upsert('apply'), { ...V2, items: [{ json: preview[1].json }] });
		expect(alone.error?.message).toContain('Input item › preview.chain: this row builds on an earlier row of the preview');
		expect(writes()).toEqual([]);

		// The first row refused (another client created the employee since): the second is not written either.
		sim().createRecords('employees', 1, { restricted: false, overrides: { employee_number: number } as never });
		const refused = await apply(preview, { continueOnFail: true });
		expect(String(refused[0].json.error)).toContain(`has employee_number ${number} now`);
		expect(String(refused[1].json.error)).toContain('preview.chain');
		expect(writes()).toEqual([]);
	});

	it('a step applied in another run than its earlier row is refused; the earlier row\'s write stays', async () => {
		const [person] = sim().createRecords('employees', 1, { restricted: false, overrides: { employee_number: freshNumber() } as never });
		const number = String(person.employee_number);
		const preview = outputOf(await run(bed, upsert('preview'), { ...V2, items: items([{ employee_number: number, phone1: '+46 4' }, { employee_number: number, phone1: '+46 5' }]) }));
		expect(previewOf(preview[1]).chain).toBeDefined();
		// Row 1 alone is applied; row 2 later, in another apply: it does not build on that run's write.
		await apply([preview[0]]);
		const later = await run(bed, upsert('apply'), { ...V2, items: [{ json: preview[1].json }] });
		expect(later.error?.message).toContain('preview.chain');
		expect(withNumber(number)[0].phone1).toBe('+46 4');
	});

	it('a chain whose rows write the same field: applied, then replayed, the replay fails its first row and writes nothing', async () => {
		const [person] = sim().createRecords('employees', 1, { restricted: false, overrides: { employee_number: freshNumber() } as never });
		const number = String(person.employee_number);
		const preview = outputOf(await run(bed, upsert('preview'), { ...V2, items: items([{ employee_number: number, phone1: '+46 6' }, { employee_number: number, phone1: '+46 7' }]) }));
		expect((await apply(preview)).map((item) => item.json.writeOutcome)).toEqual(['updated', 'updated']);
		const replay = await apply(preview, { continueOnFail: true });
		expect(String(replay[0].json.error)).toContain('changed since the preview');
		expect(String(replay[1].json.error)).toContain('preview.chain');
		expect(writes()).toEqual([]);
		expect(withNumber(number)[0].phone1).toBe('+46 7');
	});
});
