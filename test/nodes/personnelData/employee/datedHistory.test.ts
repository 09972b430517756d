/**
 * Employee → Update keeps dated histories: "Add or Replace This Entry, Keep the Others" (default)
 * and "Remove the Entry of This Date" read the employee once and PATCH the merged history;
 * "Replace the Whole History" PATCHes the rows as they are. Checked on the simulator's state.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { useTestBed } from '../../setup';
import { apiRequests, byId, jsonOf, run } from '../helpers';

interface Row {
	property: string;
	validFrom: string;
	value?: string;
	mode?: 'keep' | 'remove' | 'replaceHistory';
}

describe('Personnel Data: Employee Update keeps dated histories', () => {
	const bed = useTestBed();

	const sim = () => bed.simulator.sim;
	const update = (id: string, rows: Row[], extra: INodeParameters = {}) =>
		run(bed, { resource: 'employee', operation: 'update', id: byId(id), datedValues: { entry: rows as unknown as INodeParameters[] }, ...extra });
	const historyOf = (id: string, property: string): unknown => {
		const record = sim().getRecords('employees').find((candidate) => candidate.id === id) as IDataObject;
		return (record.properties as IDataObject)[property];
	};

	/** An employee whose title has exactly these entries (set through the API, whole). */
	async function employeeWithTitles(entries: Array<{ valid_from: string | null; value: string }>): Promise<string> {
		const [employee] = sim().createRecords('employees', 1, { restricted: false });
		const rows: Row[] = entries.map((entry) => ({ property: 'title', mode: 'replaceHistory', validFrom: entry.valid_from ?? '', value: entry.value }));
		const set = await update(employee.id, rows);
		expect(set.error).toBeUndefined();
		expect(historyOf(employee.id, 'title')).toEqual(entries);
		return employee.id;
	}

	const methodsAndPaths = () => apiRequests(bed).map((entry) => `${entry.method} ${entry.path}`);

	it('adds a dated entry and keeps the 2 older ones: one read (id + properties only), one PATCH, output as the API returns it', async () => {
		const id = await employeeWithTitles([
			{ valid_from: '2024-01-01', value: 'Engineer' },
			{ valid_from: null, value: 'Trainee' },
		]);
		const result = await update(id, [{ property: 'title', validFrom: '2026-03-01', value: 'Team Lead' }]);
		expect(result.error).toBeUndefined();

		const expected = [
			{ valid_from: '2026-03-01', value: 'Team Lead' },
			{ valid_from: '2024-01-01', value: 'Engineer' },
			{ valid_from: null, value: 'Trainee' },
		];
		expect(historyOf(id, 'title')).toEqual(expected);
		expect(methodsAndPaths()).toEqual(['GET /v1/org/employees', `PATCH /v1/org/employees/${id}`]);
		const [read, patch] = apiRequests(bed);
		expect(read.rawQuery.split('&').map(decodeURIComponent).filter((pair) => pair.startsWith('select'))).toEqual([
			'select[]=id',
			'select[]=properties',
		]);
		expect(patch.body).toEqual({ data: { properties: { title: expected } } });
		const [output] = jsonOf(result);
		expect(output.id).toBe(id);
		expect((output.properties as IDataObject).title).toEqual(expected);
	});

	it('replaces the entry of an existing date and keeps the others', async () => {
		const id = await employeeWithTitles([
			{ valid_from: '2025-06-01', value: 'Senior Engineer' },
			{ valid_from: '2024-01-01', value: 'Engineer' },
		]);
		await update(id, [{ property: 'title', mode: 'keep', validFrom: '2025-06-01', value: 'Staff Engineer' }]);
		expect(historyOf(id, 'title')).toEqual([
			{ valid_from: '2025-06-01', value: 'Staff Engineer' },
			{ valid_from: '2024-01-01', value: 'Engineer' },
		]);
	});

	it('removes the entry of a date and keeps the others', async () => {
		const id = await employeeWithTitles([
			{ valid_from: '2025-06-01', value: 'Mistake' },
			{ valid_from: '2024-01-01', value: 'Engineer' },
			{ valid_from: null, value: 'Trainee' },
		]);
		const result = await update(id, [{ property: 'title', mode: 'remove', validFrom: '2025-06-01' }]);
		expect(result.error).toBeUndefined();
		expect(historyOf(id, 'title')).toEqual([
			{ valid_from: '2024-01-01', value: 'Engineer' },
			{ valid_from: null, value: 'Trainee' },
		]);
	});

	it('an empty Valid From is the "from the beginning" entry: replaced in place, removed, never doubled', async () => {
		const id = await employeeWithTitles([
			{ valid_from: '2024-01-01', value: 'Engineer' },
			{ valid_from: null, value: 'Trainee' },
		]);
		await update(id, [{ property: 'title', validFrom: '', value: 'Intern' }]);
		expect(historyOf(id, 'title')).toEqual([
			{ valid_from: '2024-01-01', value: 'Engineer' },
			{ valid_from: null, value: 'Intern' },
		]);
		await update(id, [{ property: 'title', mode: 'remove', validFrom: '' }]);
		expect(historyOf(id, 'title')).toEqual([{ valid_from: '2024-01-01', value: 'Engineer' }]);
	});

	it('starts a history for a property the employee does not have yet', async () => {
		const [employee] = sim().createRecords('employees', 1, { restricted: false });
		const before = (sim().getRecords('employees').find((r) => r.id === employee.id) as IDataObject).properties as IDataObject;
		await update(employee.id, [{ property: 'cost_center', validFrom: '2026-01-01', value: 'CC-9' }]);
		const after = historyOf(employee.id, 'cost_center') as unknown[];
		const previous = Array.isArray(before.cost_center) ? (before.cost_center as Array<{ valid_from: string | null }>) : [];
		expect(after).toContainEqual({ valid_from: '2026-01-01', value: 'CC-9' });
		expect(after).toHaveLength(previous.filter((entry) => entry.valid_from !== '2026-01-01').length + 1);
	});

	it('edits several properties with one read and one PATCH, leaving other dated properties untouched', async () => {
		const id = await employeeWithTitles([{ valid_from: '2024-01-01', value: 'Engineer' }]);
		const record = () => sim().getRecords('employees').find((r) => r.id === id) as IDataObject;
		const untouched = (record().properties as IDataObject).manager_id;
		const result = await update(id, [
			{ property: 'title', validFrom: '2026-05-01', value: 'Lead' },
			{ property: 'work_percentage', validFrom: '2026-05-01', value: '80' },
		]);
		expect(result.error).toBeUndefined();
		expect(methodsAndPaths()).toEqual(['GET /v1/org/employees', `PATCH /v1/org/employees/${id}`]);
		expect(historyOf(id, 'title')).toEqual([
			{ valid_from: '2026-05-01', value: 'Lead' },
			{ valid_from: '2024-01-01', value: 'Engineer' },
		]);
		expect(historyOf(id, 'work_percentage')).toContainEqual({ valid_from: '2026-05-01', value: 80 });
		expect((record().properties as IDataObject).manager_id).toEqual(untouched);
	});

	it('Replace the Whole History: one PATCH, no read, the rows become the history', async () => {
		const id = await employeeWithTitles([
			{ valid_from: '2024-01-01', value: 'Engineer' },
			{ valid_from: null, value: 'Trainee' },
		]);
		await update(id, [{ property: 'title', mode: 'replaceHistory', validFrom: '2026-01-01', value: 'Director' }]);
		expect(methodsAndPaths()).toEqual([`PATCH /v1/org/employees/${id}`]);
		expect(historyOf(id, 'title')).toEqual([{ valid_from: '2026-01-01', value: 'Director' }]);
	});

	it('plain fields only: one PATCH, no read', async () => {
		const [employee] = sim().createRecords('employees', 1, { restricted: false });
		await run(bed, { resource: 'employee', operation: 'update', id: byId(employee.id), fields: { phone2: '+46 70 111 11 11' } });
		expect(methodsAndPaths()).toEqual([`PATCH /v1/org/employees/${employee.id}`]);
	});

	it('several items: one read and one PATCH each', async () => {
		const ids = [await employeeWithTitles([{ valid_from: '2024-01-01', value: 'A' }]), await employeeWithTitles([{ valid_from: '2024-01-01', value: 'B' }])];
		const result = await run(
			bed,
			{ resource: 'employee', operation: 'update', id: byId('={{ $json.id }}'), datedValues: { entry: [{ property: 'title', validFrom: '2026-02-01', value: 'New' }] } },
			{ items: ids.map((id) => ({ json: { id } })) },
		);
		expect(result.error).toBeUndefined();
		expect(methodsAndPaths()).toEqual(ids.flatMap((id) => ['GET /v1/org/employees', `PATCH /v1/org/employees/${id}`]));
		for (const id of ids) expect((historyOf(id, 'title') as unknown[])).toHaveLength(2);
	});

	describe('bad rows are refused before any request', () => {
		const cases: Array<[string, Row[], string]> = [
			['a date that is not a date', [{ property: 'title', validFrom: 'tomorrow', value: 'X' }], 'Dated Values › Entry 1 › Valid From: "tomorrow" is not a date (title)'],
			[
				'the same date twice for one property',
				[
					{ property: 'title', validFrom: '2026-01-01', value: 'X' },
					{ property: 'title', mode: 'remove', validFrom: '2026-01-01' },
				],
				'Dated Values › Entry 2 › Valid From: Dated Values › Entry 1 already changes the title entry of this date',
			],
			[
				'whole-history and edit modes mixed on one property',
				[
					{ property: 'title', mode: 'replaceHistory', validFrom: '2026-01-01', value: 'X' },
					{ property: 'title', mode: 'keep', validFrom: '2026-02-01', value: 'Y' },
				],
				'Dated Values › Entry 2 › Mode: Dated Values › Entry 1 already replaces the whole history of title',
			],
			['an unknown mode', [{ property: 'title', mode: 'merge' as Row['mode'], validFrom: '2026-01-01', value: 'X' }], 'Dated Values › Entry 1 › Mode: "merge" is not a mode'],
			['a value of the wrong type', [{ property: 'work_percentage', validFrom: '2026-01-01', value: 'most' }], 'Dated Values › Entry 1 › Value: "most" is not valid'],
		];
		it.each(cases)('%s', async (_name, rows, message) => {
			const [employee] = sim().createRecords('employees', 1, { restricted: false });
			const result = await update(employee.id, rows);
			expect(result.error?.message).toContain(message);
			expect(apiRequests(bed)).toEqual([]);
		});

		it('the same property in Other Fields (JSON) and in an edit row', async () => {
			const [employee] = sim().createRecords('employees', 1, { restricted: false });
			const result = await update(employee.id, [{ property: 'title', validFrom: '2026-01-01', value: 'X' }], {
				otherFields: '{"properties": {"title": [{"valid_from": null, "value": "Y"}]}}',
			});
			expect(result.error?.message).toContain('Other Fields (JSON) › properties.title: also edited by Dated Values');
			expect(apiRequests(bed)).toEqual([]);
		});
	});

	describe('after the read, nothing is sent when the merge cannot be done', () => {
		it('removing a date the history does not have names the dates it has', async () => {
			const id = await employeeWithTitles([{ valid_from: '2024-01-01', value: 'Engineer' }]);
			const result = await update(id, [{ property: 'title', mode: 'remove', validFrom: '2023-01-01' }]);
			expect(result.error?.message).toBe(
				'Dated Values › Entry 1 › Valid From: title has no entry valid from 2023-01-01; expected one of its dates (2024-01-01)',
			);
			expect(methodsAndPaths()).toEqual(['GET /v1/org/employees']);
			expect(historyOf(id, 'title')).toEqual([{ valid_from: '2024-01-01', value: 'Engineer' }]);
		});

		it('an employee that does not exist: one read, no PATCH, a message naming it', async () => {
			const missing = '00000000-0000-4000-8000-00000000abcd';
			const result = await update(missing, [{ property: 'title', validFrom: '2026-01-01', value: 'X' }]);
			expect(result.error?.message).toContain(`Employee ${missing} was not found`);
			expect(methodsAndPaths()).toEqual(['GET /v1/org/employees']);
		});
	});
});
