import { forgetRefusals, isRefused, rememberRefusal, REFUSAL_MEMORY_MAX, REFUSAL_MEMORY_MS } from '../../../../nodes/PersonnelData/actions/read/refusals';

describe('the memory of servers that refused a batched read', () => {
	beforeEach(() => forgetRefusals());
	afterAll(() => forgetRefusals());

	it('lasts REFUSAL_MEMORY_MS, then the credential tries batches again', () => {
		const now = Date.parse('2026-11-25T12:00:00Z');
		rememberRefusal('credential-a', now);
		expect(isRefused('credential-a', now + REFUSAL_MEMORY_MS - 1)).toBe(true);
		expect(isRefused('credential-b', now)).toBe(false);
		expect(isRefused('credential-a', now + REFUSAL_MEMORY_MS)).toBe(false);
		// Forgotten once expired, not only ignored.
		expect(isRefused('credential-a', now)).toBe(false);
	});

	it(`holds at most ${REFUSAL_MEMORY_MAX} credentials, forgetting the oldest refusal first`, () => {
		const now = Date.now();
		for (let index = 0; index <= REFUSAL_MEMORY_MAX; index++) rememberRefusal(`credential-${index}`, now);
		expect(isRefused('credential-0', now)).toBe(false);
		expect(isRefused('credential-1', now)).toBe(true);
		expect(isRefused(`credential-${REFUSAL_MEMORY_MAX}`, now)).toBe(true);
		// A refusal remembered again counts as the newest.
		rememberRefusal('credential-1', now);
		rememberRefusal('credential-new', now);
		expect(isRefused('credential-1', now)).toBe(true);
		expect(isRefused('credential-2', now)).toBe(false);
	});
});
