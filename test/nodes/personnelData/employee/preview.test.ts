import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import type { INodeProperties } from 'n8n-workflow';

import { PersonnelData } from '../../../../nodes/PersonnelData/PersonnelData.node';
import { describeChange } from '../../../../nodes/PersonnelData/actions/employee/changes';
import { useTestBed } from '../../setup';
import type { RunOptions } from '../helpers';
import { PATCH_SERVERS } from '../helpers';
import { apiRequests, byId, jsonOf, outputOf, run, UNKNOWN_UUID } from '../helpers';

/** Node version 2: Options › Write Mode (Preview Only, Apply a Preview) and every write's change description. */
const V2: RunOptions = { typeVersion: 2 };

const items = (rows: IDataObject[]): INodeExecutionData[] => rows.map((json) => ({ json }));
const automatically = (extra: INodeParameters = {}): INodeParameters => ({ mappingMode: 'autoMapInputData', value: null, matchingColumns: [], schema: [], ...extra });

const upsertOn = (field: string, options: IDataObject = {}): INodeParameters => ({
	resource: 'employee',
	operation: 'upsert',
	columns: automatically({ matchingColumns: [field] }),
	options: { validFrom: '2027-05-01', ...options } as INodeParameters,
});

const previewOf = (item: IDataObject): IDataObject => item.preview as IDataObject;

describe.each(PATCH_SERVERS)('Personnel Data, version 2: preview, apply, and what each write changed, on a server that $name', ({ variation }) => {
	const bed = useTestBed({ variation });
	const sim = () => bed.simulator.sim;
	const writes = () => apiRequests(bed).filter((entry) => entry.method !== 'GET');
	const lookups = () => apiRequests(bed).filter((entry) => entry.method === 'GET');
	const stored = (id: string): IDataObject => {
		const record = sim()
			.getRecords('employees')
			.find((candidate) => candidate.id === id);
		if (!record) throw new Error(`no employee ${id}`);
		return structuredClone(record) as unknown as IDataObject;
	};
	let numberSeq = 0;
	const freshNumber = () => `P-${process.pid}-${++numberSeq}`;
	const existing = (count: number, overrides: IDataObject = {}) =>
		Array.from({ length: count }, () => sim().createRecords('employees', 1, { restricted: false, overrides: { employee_number: freshNumber(), ...overrides } as never })[0]);

	/** One file's rows, one for each outcome of Create or Update. */
	function fileOfEveryOutcome() {
		const [changing, same] = existing(2);
		const shared = freshNumber();
		existing(2, { employee_number: shared });
		const newNumber = freshNumber();
		const rows = [
			{ employee_number: changing.employee_number, phone1: '+46 700 01', title: 'Chief' },
			{ employee_number: same.employee_number, first_name: same.first_name },
			{ employee_number: newNumber, first_name: 'New', last_name: 'Person', title: 'Analyst' },
			{ employee_number: shared, phone1: '1' },
			{ employee_number: freshNumber(), first_name: 'Only' },
		];
		return { changing, same, newNumber, shared, rows };
	}

	describe('the option', () => {
		const writeModes = (operation: string): INodeProperties | undefined =>
			new PersonnelData().description.properties
				.filter((property) => property.name === 'options' && property.displayOptions?.show?.operation?.includes(operation) && property.displayOptions.show.resource?.includes(operation === 'createOrUpdate' ? 'systemTimeType' : 'employee'))
				.flatMap((property) => (property.options ?? []) as INodeProperties[])
				.find((option) => option.name === 'writeMode');

		it('Options › Write Mode defaults to Write (saved workflows keep writing); Create and system time types offer no Apply', () => {
			for (const operation of ['create', 'update', 'replace', 'upsert', 'createOrUpdate']) expect(writeModes(operation)?.default).toBe('write');
			const values = (operation: string) => (writeModes(operation)?.options as Array<{ value: string }>).map((option) => option.value);
			expect(values('upsert')).toEqual(['write', 'preview', 'apply']);
			expect(values('create')).toEqual(['write', 'preview']);
			expect(values('createOrUpdate')).toEqual(['write', 'preview']);
		});

		it('Create previews; asked to apply, it fails naming the option before anything is sent', async () => {
			const preview = jsonOf(await run(bed, { resource: 'employee', operation: 'create', columns: automatically(), options: { writeMode: 'preview', validFrom: '' } }, { ...V2, items: items([{ first_name: 'Pre', last_name: 'View', title: 'Intern' }]) }));
			expect(previewOf(preview[0])).toMatchObject({ outcome: 'create', write: { method: 'POST', body: { data: { first_name: 'Pre', last_name: 'View', properties: { title: [{ valid_from: null, value: 'Intern' }] } } } } });
			expect(((previewOf(preview[0]).changes as IDataObject).histories as IDataObject).title).toEqual({ added: [{ valid_from: null, value: 'Intern' }], replaced: [], removed: [], left: 0 });
			const applied = await run(bed, { resource: 'employee', operation: 'create', columns: automatically(), options: { writeMode: 'apply' } }, { ...V2, items: preview.map((json) => ({ json })) });
			expect(applied.error?.message).toMatch(/Options › Write Mode: Create cannot apply a preview/);
			expect(apiRequests(bed)).toEqual([]);
		});
	});

	describe('Preview Only', () => {
		it('says for each row what a real run does (create, update, unchanged, each error), sending only the lookup', async () => {
			const { changing, same, shared, rows } = fileOfEveryOutcome();
			const before = stored(String(changing.id));
			const previewed = jsonOf(await run(bed, upsertOn('employee_number', { writeMode: 'preview' }), { ...V2, items: items(rows) })).map(previewOf);

			expect(writes()).toEqual([]);
			expect(lookups()).toHaveLength(1);
			expect(previewed.map((item) => item.outcome)).toEqual(['update', 'unchanged', 'create', 'error', 'error']);
			expect(previewed[0]).toMatchObject({ operation: 'upsert', employeeId: changing.id, match: { field: 'employee_number', value: changing.employee_number } });
			expect(previewed[1].employeeId).toBe(same.id);
			expect(String(previewed[3].error)).toContain(`2 employees have employee_number ${shared}`);
			expect(String(previewed[4].error)).toMatch(/last_name: required to create an employee/);

			// The exact change: each field before and after, the history entries added and left.
			const changes = previewed[0].changes as IDataObject;
			expect(changes.fields).toEqual({ phone1: { before: before.phone1 ?? null, after: '+46 700 01' } });
			const titleBefore = ((before.properties as IDataObject).title as IDataObject[]) ?? [];
			expect((changes.histories as IDataObject).title).toEqual({
				added: [{ valid_from: '2027-05-01', value: 'Chief' }],
				replaced: [],
				removed: [],
				left: titleBefore.filter((entry) => entry.valid_from !== '2027-05-01').length,
			});
			expect(previewed[1].changes).toEqual({ fields: {}, customProperties: {}, histories: {} });
			expect((previewed[2].changes as IDataObject).fields).toEqual({ employee_number: { before: null, after: rows[2].employee_number }, first_name: { before: null, after: 'New' }, last_name: { before: null, after: 'Person' } });
			// The previewed record is what the server holds: the preview changed nothing.
			expect(stored(String(changing.id))).toEqual(before);

			// The real run of the same rows does what the preview said.
			const real = outputOf(await run(bed, upsertOn('employee_number'), { ...V2, continueOnFail: true, items: items(rows) }));
			expect(real.map((item) => item.json.writeOutcome ?? 'error')).toEqual(['updated', 'unchanged', 'created', 'error', 'error']);
			expect(real[3].json.error).toBe(previewed[3].error);
			expect(real[4].json.error).toBe(previewed[4].error);
			expect(real[0].json.writeChanges).toEqual(previewed[0].changes);
			expect(writes().map((entry) => entry.body)).toEqual([(previewed[0].write as IDataObject).body, (previewed[2].write as IDataObject).body]);
		});

		it('Update of an unknown id: the preview item says the 404; Replace previews the fields it clears; a bad column is the item\'s error; nothing written', async () => {
			const [person] = existing(1);
			const update = await run(
				bed,
				{ resource: 'employee', operation: 'update', id: byId(UNKNOWN_UUID), columns: automatically(), options: { writeMode: 'preview' } },
				{ ...V2, items: items([{ phone1: '1' }]) },
			);
			const [unknown] = jsonOf(update).map(previewOf);
			expect(unknown.outcome).toBe('error');
			expect(String(unknown.error)).toContain(UNKNOWN_UUID);
			expect(String(unknown.error)).toMatch(/404|not found/i);
			expect(writes()).toEqual([]);

			const replace = await run(
				bed,
				{ resource: 'employee', operation: 'replace', id: byId(String(person.id)), columns: automatically(), options: { writeMode: 'preview', validFrom: '' } },
				{ ...V2, items: items([{ first_name: 'Re', last_name: 'Placed' }, { first_name: 'X', last_name: 'Y', shoe_size: 43 }]) },
			);
			const [replaced, bad] = jsonOf(replace).map(previewOf);
			expect(replaced.outcome).toBe('update');
			expect((replaced.write as IDataObject).method).toBe('PUT');
			const fields = (replaced.changes as IDataObject).fields as IDataObject;
			expect(fields.first_name).toEqual({ before: person.first_name, after: 'Re' });
			if (person.email) expect(fields.email).toEqual({ before: person.email, after: null });
			expect(bad.outcome).toBe('error');
			expect(String(bad.error)).toMatch(/shoe_size: not a column of an employee/);
			expect(writes()).toEqual([]);
		});

		it('a preview of 250 rows costs the lookups only: ⌈250/100⌉ list requests, no write', async () => {
			const people = sim().createRecords('employees', 250, { restricted: false });
			sim().touchRecords('employees', people.slice(0, 100).map((person) => person.id), { changes: { phone2: '+46 31' } });
			const rows = people.map((person) => ({ id: person.id, phone2: '+46 31' }));
			const previewed = jsonOf(await run(bed, upsertOn('id', { writeMode: 'preview' }), { ...V2, items: items(rows) })).map(previewOf);
			expect(apiRequests(bed).map((entry) => `${entry.method} ${entry.path}`)).toEqual(Array.from({ length: 3 }, () => 'GET /v1/org/employees'));
			expect(previewed.map((item) => item.outcome)).toEqual([...Array.from({ length: 100 }, () => 'unchanged'), ...Array.from({ length: 150 }, () => 'update')]);
		});

		it('no token or secret in the preview items', async () => {
			const { rows } = fileOfEveryOutcome();
			const text = JSON.stringify(jsonOf(await run(bed, upsertOn('employee_number', { writeMode: 'preview' }), { ...V2, items: items(rows) })));
			const credentials = bed.simulator.credentials.admin;
			for (const secret of [credentials.refreshToken, credentials.legacyToken]) expect(text).not.toContain(secret);
			expect(text).not.toMatch(/Bearer|eyJ[A-Za-z0-9_-]{10,}/);
		});

		it('a system time type: the preview shows the write and sends nothing', async () => {
			const integration = sim().getRecords('systemIntegrations')[0];
			const result = await run(
				bed,
				{ resource: 'systemTimeType', operation: 'createOrUpdate', systemIntegrationId: String(integration.id), typeName: 'Parental leave', fields: { type_code: 'PARL-P' }, options: { writeMode: 'preview' } },
				V2,
			);
			const [item] = jsonOf(result).map(previewOf);
			expect(item).toMatchObject({ outcome: 'createOrUpdate', write: { method: 'POST', body: { data: { type_name: 'Parental leave', type_code: 'PARL-P' } } } });
			expect(apiRequests(bed)).toEqual([]);
		});
	});

	describe('Apply a Preview', () => {
		const applyParameters = (operation = 'upsert'): INodeParameters => ({ resource: 'employee', operation, columns: automatically({ matchingColumns: ['employee_number'] }), options: { writeMode: 'apply' } });

		it('writes exactly the previewed writes; replaying the apply writes nothing', async () => {
			const { changing, newNumber, rows } = fileOfEveryOutcome();
			const preview = outputOf(await run(bed, upsertOn('employee_number', { writeMode: 'preview' }), { ...V2, items: items(rows) }));
			const planned = preview.map((item) => previewOf(item.json).write as IDataObject | undefined).filter((write) => write !== undefined);

			const applied = outputOf(await run(bed, applyParameters(), { ...V2, items: preview.map((item) => ({ json: item.json })) }));
			expect(applied.map((item) => item.json.writeOutcome)).toEqual(['updated', 'unchanged', 'created', 'skipped', 'skipped']);
			expect(writes().map((entry) => ({ method: entry.method, path: entry.path, body: entry.body }))).toEqual(planned);
			expect(applied[0].json.writeChanges).toEqual(previewOf(preview[0].json).changes);
			expect(stored(String(changing.id)).phone1).toBe('+46 700 01');
			expect(sim().getRecords('employees').filter((record) => record.employee_number === newNumber)).toHaveLength(1);

			const replay = outputOf(await run(bed, applyParameters(), { ...V2, items: preview.map((item) => ({ json: item.json })) }));
			expect(writes()).toEqual([]);
			expect(replay.map((item) => item.json.writeOutcome)).toEqual(['unchanged', 'unchanged', 'unchanged', 'skipped', 'skipped']);
		});

		it('two rows for one employee: the second is previewed after the first, and both apply', async () => {
			const [person] = existing(1);
			const rows = [
				{ employee_number: person.employee_number, phone1: '+46 1' },
				{ employee_number: person.employee_number, phone2: '+46 2' },
			];
			const preview = outputOf(await run(bed, upsertOn('employee_number', { writeMode: 'preview' }), { ...V2, items: items(rows) }));
			const second = previewOf(preview[1].json);
			expect(((second.write as IDataObject).body as IDataObject).data).toEqual({ phone2: '+46 2' });
			expect((second.read as IDataObject).updated_at).toBeNull();
			const applied = outputOf(await run(bed, applyParameters(), { ...V2, items: preview.map((item) => ({ json: item.json })) }));
			expect(applied.map((item) => item.json.writeOutcome)).toEqual(['updated', 'updated']);
			expect(stored(String(person.id))).toMatchObject({ phone1: '+46 1', phone2: '+46 2' });
		});

		it('an employee changed by another client since the preview is refused, naming it and what changed; the others are written', async () => {
			const [underWrite, elsewhere, kept] = existing(3);
			const rows = [underWrite, elsewhere, kept].map((person) => ({ employee_number: person.employee_number, phone1: '+46 555', title: 'Lead' }));
			const preview = outputOf(await run(bed, upsertOn('employee_number', { writeMode: 'preview' }), { ...V2, items: items(rows) }));
			const text = JSON.stringify(preview);
			for (const person of [underWrite, elsewhere, kept]) if (person.private_id_number) expect(text).not.toContain(String(person.private_id_number));
			sim().advanceClock(1);
			sim().touchRecords('employees', [String(underWrite.id)], { changes: { phone1: '+46 444' } });
			sim().touchRecords('employees', [String(elsewhere.id)], { changes: { phone2: '+46 999' } });

			const result = outputOf(await run(bed, applyParameters(), { ...V2, continueOnFail: true, items: preview.map((item) => ({ json: item.json })) }));
			expect(String(result[0].json.error)).toContain(`Employee ${underWrite.id} changed since the preview (updated_at `);
			expect(String(result[0].json.error)).toMatch(/, phone1\); not written/);
			expect(String(result[1].json.error)).toContain(`Employee ${elsewhere.id} changed since the preview`);
			expect(String(result[1].json.error)).toContain('fields outside this write');
			expect(result.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
			expect(result[2].json.writeOutcome).toBe('updated');
			expect(writes().map((entry) => entry.path)).toEqual([`/v1/org/employees/${kept.id}`]);
			expect(stored(String(underWrite.id)).phone1).toBe('+46 444');
			expect(stored(String(elsewhere.id)).phone1).toBe(elsewhere.phone1);

			// A server whose updated_at does not move: the content alone tells.
			const [quiet] = existing(1);
			const quietPreview = outputOf(await run(bed, upsertOn('employee_number', { writeMode: 'preview' }), { ...V2, items: items([{ employee_number: quiet.employee_number, phone1: '+46 1' }]) }));
			sim().touchRecords('employees', [String(quiet.id)], { changes: { last_name: 'Renamed' }, timestamp: String(quiet.updated_at) });
			const refused = await run(bed, applyParameters(), { ...V2, items: quietPreview.map((item) => ({ json: item.json })) });
			expect(refused.error?.message).toContain(`Employee ${quiet.id} changed since the preview (fields outside this write)`);

			// On Error at its default: the node stops at the first moved item; nothing after it is written.
			const stopped = await run(bed, applyParameters(), { ...V2, items: preview.map((item) => ({ json: item.json })) });
			expect(stopped.error?.message).toContain(`Employee ${underWrite.id} changed since the preview`);
			expect(writes()).toEqual([]);
		});

		it('rows missing from the preview are not written; an item that is no preview fails naming the field', async () => {
			const people = existing(3);
			const rows = people.map((person) => ({ employee_number: person.employee_number, phone1: '+46 321' }));
			const preview = outputOf(await run(bed, upsertOn('employee_number', { writeMode: 'preview' }), { ...V2, items: items(rows) }));
			const approved = [preview[0], preview[2]].map((item) => ({ json: item.json }));
			await run(bed, applyParameters(), { ...V2, items: approved });
			expect(writes().map((entry) => entry.path)).toEqual([`/v1/org/employees/${people[0].id}`, `/v1/org/employees/${people[2].id}`]);
			expect(stored(String(people[1].id)).phone1).toBe(people[1].phone1);

			const notPreview = await run(bed, applyParameters(), { ...V2, items: items([{ employee_number: people[1].employee_number, phone1: '+46 321' }]) });
			expect(notPreview.error?.message).toMatch(/Input item › preview: missing/);
			const otherOperation = await run(bed, applyParameters('update'), { ...V2, items: [{ json: preview[1].json }] });
			expect(otherOperation.error?.message).toMatch(/preview\.operation: "upsert" was previewed; expected update/);
			const edited = structuredClone(preview[1].json);
			((edited.preview as IDataObject).write as IDataObject).path = `/v1/org/employees/${people[0].id}`;
			const moved = await run(bed, applyParameters(), { ...V2, items: [{ json: edited }] });
			expect(moved.error?.message).toMatch(/preview\.write: PATCH .* is not this item's write/);
			expect(apiRequests(bed)).toEqual([]);
		});
	});

	describe('every write says what it changed', () => {
		it('Update: the change equals the difference between the record before and after, read back from the server (fields, custom properties, histories)', async () => {
			const [person] = existing(1);
			const before = stored(String(person.id));
			const result = await run(
				bed,
				{
					resource: 'employee',
					operation: 'update',
					id: byId(String(person.id)),
					columns: automatically(),
					options: { validFrom: '2027-08-01', customProperties: JSON.stringify({ shoe: 43 }) },
				},
				{ ...V2, items: items([{ phone2: '+46 123', title: 'Principal', work_percentage: 60 }]) },
			);
			const [written] = jsonOf(result);
			const after = stored(String(person.id));
			expect(written.writeOutcome).toBe('updated');
			expect(written.writeChanges).toEqual(describeChange(before, after));
			const changes = written.writeChanges as IDataObject;
			expect(changes.fields).toEqual({ phone2: { before: before.phone2 ?? null, after: '+46 123' } });
			expect(changes.customProperties).toEqual({ shoe: { before: ((before.properties as IDataObject).custom_properties as IDataObject | undefined)?.shoe ?? null, after: 43 } });
			expect(((changes.histories as IDataObject).title as IDataObject).added).toEqual([{ valid_from: '2027-08-01', value: 'Principal' }]);
			expect(((changes.histories as IDataObject).work_percentage as IDataObject).added).toEqual([{ valid_from: '2027-08-01', value: 60 }]);
		});

		it('Replace: the preview equals the applied writeChanges and the stored difference, field by field; a dated column keeps the history', async () => {
			const [person] = existing(1);
			const before = stored(String(person.id));
			const parameters = (writeMode: string): INodeParameters => ({
				resource: 'employee',
				operation: 'replace',
				id: byId(String(person.id)),
				columns: automatically(),
				options: { validFrom: '2027-09-01', writeMode },
			});
			const row = { first_name: 'Whole', last_name: 'Record', title: 'Director', phone1: '+46 8' };
			const [preview] = outputOf(await run(bed, parameters('preview'), { ...V2, items: items([row]) }));
			const previewed = previewOf(preview.json).changes as IDataObject;
			expect((previewed.histories as IDataObject).title).toMatchObject({ added: [{ valid_from: '2027-09-01', value: 'Director' }], removed: [] });
			const [applied] = outputOf(await run(bed, { ...parameters('apply'), operation: 'replace' }, { ...V2, items: [{ json: preview.json }] }));
			expect(applied.json.writeOutcome).toBe('updated');
			expect(applied.json.writeChanges).toEqual(previewed);
			expect(describeChange(before, stored(String(person.id)))).toEqual(previewed);
		});

		it('Replace by a role that may not read the employee (403): written as before the read existed, writeChanges null', async () => {
			const [person] = existing(1);
			sim().queueFault({ pathPrefix: '/v1/org/employees', method: 'GET', status: 403, count: 2 });
			const [replaced] = jsonOf(
				await run(bed, { resource: 'employee', operation: 'replace', id: byId(String(person.id)), columns: automatically() }, { ...V2, items: items([{ first_name: 'Blind', last_name: 'Write' }]) }),
			);
			expect(replaced).toMatchObject({ writeOutcome: 'updated', writeChanges: null, first_name: 'Blind' });
			expect(writes().map((entry) => entry.method)).toEqual(['PUT']);
		});

		it('Replace and Create or Update: the same, read back from the server', async () => {
			const [person] = existing(1);
			const before = stored(String(person.id));
			const [replaced] = jsonOf(
				await run(
					bed,
					{ resource: 'employee', operation: 'replace', id: byId(String(person.id)), columns: automatically(), options: { validFrom: '' } },
					{ ...V2, items: items([{ first_name: 'Whole', last_name: 'New', title: 'Staff' }]) },
				),
			);
			const afterReplace = stored(String(person.id));
			expect(replaced.writeChanges).toEqual(describeChange(before, afterReplace));
			expect((replaced.writeChanges as IDataObject).fields).toMatchObject({ first_name: { before: before.first_name, after: 'Whole' } });

			const [upserted] = jsonOf(await run(bed, upsertOn('id'), { ...V2, items: items([{ id: person.id, phone1: '+46 1', title: 'Lead' }]) }));
			expect(upserted.writeChanges).toEqual(describeChange(afterReplace, stored(String(person.id))));
			// Replace kept the title's history (its column's value is one entry, as in Update): all of it is left.
			const titles = (afterReplace.properties as IDataObject).title as IDataObject[];
			const dated = (((before.properties as IDataObject).title as IDataObject[] | undefined) ?? []).filter((entry) => entry.valid_from !== null);
			expect(titles).toEqual(expect.arrayContaining([{ valid_from: null, value: 'Staff' }, ...dated]));
			expect(titles).toHaveLength(dated.length + 1);
			expect(((upserted.writeChanges as IDataObject).histories as IDataObject).title).toEqual({ added: [{ valid_from: '2027-05-01', value: 'Lead' }], replaced: [], removed: [], left: titles.length });
		});
	});
});

describe('Personnel Data, version 2: what a write changed in your own fields (the simulator\'s remapped schema)', () => {
	const bed = useTestBed({ employeeSchema: 'remapped' });
	const sim = () => bed.simulator.sim;

	it('Create or Update: your own plain field and dated property, as read back from the server; the preview said the same', async () => {
		const { fields: schema } = await bed.runtime.resourceMapping({ nodeType: 'personnelData', method: 'getEmployeeColumns', parameters: { resource: 'employee', operation: 'upsert' } });
		const [person] = sim().createRecords('employees', 1, { restricted: false, overrides: { employee_number: `RP-${process.pid}` } as never });
		const before = structuredClone(sim().getRecords('employees', [person.id])[0]) as unknown as IDataObject;
		const parameters = (options: IDataObject): INodeParameters => ({
			resource: 'employee',
			operation: 'upsert',
			columns: automatically({ matchingColumns: ['employee_number'], schema: schema as unknown as INodeParameters[] }),
			options: { validFrom: '2027-01-01', ...options } as INodeParameters,
		});
		const rows = items([{ employee_number: String(person.employee_number), weekly_hours: '24', employment_start_date: '2020-02-01' }]);
		const [previewed] = jsonOf(await run(bed, parameters({ writeMode: 'preview' }), { ...V2, items: rows })).map(previewOf);
		const [written] = jsonOf(await run(bed, parameters({}), { ...V2, items: rows }));
		const after = sim().getRecords('employees', [person.id])[0] as unknown as IDataObject;
		expect(written.writeChanges).toEqual(describeChange(before, after));
		const changes = written.writeChanges as IDataObject;
		expect((changes.fields as IDataObject).employment_start_date).toEqual({ before: before.employment_start_date ?? null, after: '2020-02-01' });
		expect(((changes.histories as IDataObject).weekly_hours as IDataObject).added).toEqual([{ valid_from: '2027-01-01', value: 24 }]);
		expect(previewed.changes).toEqual(written.writeChanges);
	});
});

describe('Personnel Data Tool, version 2: an agent previews before it writes', () => {
	const bed = useTestBed();
	const parameters = (writeMode: string): INodeParameters => ({
		resource: 'employee',
		operation: 'upsert',
		columns: {
			mappingMode: 'defineBelow',
			value: {
				employee_number: "={{ $fromAI('employee_number', 'The employee number', 'string') }}",
				first_name: "={{ $fromAI('first_name', 'First name, needed to create', 'string') }}",
				last_name: "={{ $fromAI('last_name', 'Last name, needed to create', 'string') }}",
			},
			matchingColumns: ['employee_number'],
			schema: [],
		},
		options: { writeMode },
	});

	it('Preview Only answers the model what would change and writes nothing; Apply a Preview is refused to a tool', async () => {
		const number = `AI-P-${process.pid}`;
		const args = { employee_number: number, first_name: 'Shown', last_name: 'First' };
		bed.simulator.sim.clearRequests();
		const previewed = await bed.runtime.invokeTool({ nodeType: 'personnelData', typeVersion: 2, parameters: parameters('preview'), args });
		expect(previewed.error).toBeUndefined();
		expect(JSON.parse(String(previewed.response))).toEqual([
			{ preview: expect.objectContaining({ outcome: 'create', changes: expect.objectContaining({ fields: expect.objectContaining({ first_name: { before: null, after: 'Shown' } }) }) }) },
		]);
		expect(apiRequests(bed).filter((entry) => entry.method !== 'GET')).toEqual([]);
		expect(bed.simulator.sim.getRecords('employees').filter((record) => record.employee_number === number)).toEqual([]);

		const applied = await bed.runtime.invokeTool({ nodeType: 'personnelData', typeVersion: 2, parameters: parameters('apply'), args });
		expect(String(applied.response)).toMatch(/may preview \(Preview Only\) but not apply a preview/);
		expect(apiRequests(bed).filter((entry) => entry.method !== 'GET')).toEqual([]);
	});
});
