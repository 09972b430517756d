import { useTestBed } from '../../setup';
import { apiRequests, jsonOf, run } from '../helpers';

describe('Personnel Data: System Time Type: Create or Update', () => {
	const bed = useTestBed();

	const sim = () => bed.simulator.sim;
	const integration = () => sim().getRecords('systemIntegrations')[1];

	it('POSTs to the integration\'s path without source_system, and updates the same code', async () => {
		const target = integration();
		const params = {
			resource: 'systemTimeType',
			operation: 'createOrUpdate',
			systemIntegrationId: target.id,
			typeName: 'Parental leave',
			fields: { type_code: 'PL1', must_be_full_day: true, enabled: true, external_type_id: 'X-PL' },
		};
		const created = jsonOf(await run(bed, params))[0];
		const [request] = apiRequests(bed);
		expect(`${request.method} ${request.path}`).toBe(`POST /v1/org/time-reports/system-time-types/${target.id}`);
		expect(request.status).toBe(201);
		expect(request.body).toEqual({
			data: {
				type_code: 'PL1',
				external_type_id: 'X-PL',
				type_name: 'Parental leave',
				traits: { must_be_full_day: true, enabled: true },
			},
		});
		expect(JSON.stringify(request.body)).not.toContain('source_system');
		expect(created).toMatchObject({ source_system: target.source_system, type_name: 'Parental leave', system_integration_id: target.id });

		const updated = jsonOf(await run(bed, { ...params, typeName: 'Parental leave (renamed)' }))[0];
		expect(updated.id).toBe(created.id);
		expect(updated.type_name).toBe('Parental leave (renamed)');
		expect(apiRequests(bed)[0].status).toBe(200);
	});

	it('an attempt to send source_system through Other Fields (JSON) is rejected before sending', async () => {
		const result = await run(bed, {
			resource: 'systemTimeType',
			operation: 'createOrUpdate',
			systemIntegrationId: integration().id,
			typeName: 'Overtime',
			otherFields: '{"source_system": "hacked"}',
		});
		expect(result.error?.message).toContain('source_system');
		expect(result.error?.message).toContain('cannot be supplied');
		expect(apiRequests(bed)).toEqual([]);
	});
});
