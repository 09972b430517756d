/**
 * Personnel Data Trigger: a pass with many pages ahead is read in ranges of the change timestamp
 * side by side (feedRanges.ts) and still hands changes over oldest first, each once: within a
 * poll, across polls cut by Max Changes per Poll or the time budget, with refused cursors, failing
 * reads, records changing while the ranges are read, and a server that takes only a few requests at
 * a time. Ranges are forced here (rangeTiming: a machine under load decides otherwise); whether
 * they pay is the benchmark's question (npm run bench:poll).
 */
import type { INodeParameters } from 'n8n-workflow';

import { rangeTiming } from '../../../nodes/shared/rangeWorth';
import { timestampKey } from '../../../nodes/shared/timestamps';
import type { SimRecord } from '../../../scripts/simulator/types';
import { useTestBed } from '../setup';
import type { EmittedRecord } from './helpers';
import { changePairs, duplicates, emittedPairs, failNthRequest, lastSeq, listRequestsSince, pollOk } from './helpers';

const LATENCY_MS = 100;
const EMPLOYEES = '/v1/org/employees';

const parameters = (options: INodeParameters = {}): INodeParameters => ({
	resource: 'employee',
	event: 'createdOrUpdated',
	simplify: false,
	options: { timeBudgetSeconds: 20, ...options },
});

/** The index of the first item older than the one before it (-1: oldest first throughout). */
function firstOutOfOrder(records: readonly EmittedRecord[]): number {
	return records.findIndex((record, index) => index > 0 && timestampKey(String(record.updated_at)) < timestampKey(String(records[index - 1].updated_at)));
}

const micros = (at: string) => Date.parse(at.slice(0, 23) + 'Z') * 1000 + Number(at.slice(23, 26).padEnd(3, '0') || 0);

describe('Personnel Data Trigger: a pass read in ranges side by side', () => {
	const bed = useTestBed({}, { per: 'test' });
	const sim = () => bed.simulator.sim;
	const share = rangeTiming.worthWaitingShare;
	beforeEach(() => (rangeTiming.worthWaitingShare = 0));
	afterEach(() => (rangeTiming.worthWaitingShare = share));

	/** `count` new employees in 20 batches a few ms apart (ranges cut the change timestamp). */
	async function burst(count: number): Promise<SimRecord[]> {
		const created: SimRecord[] = [];
		for (let batch = 0; batch < 20; batch++) {
			created.push(...sim().createRecords('employees', count / 20));
			await new Promise((resolve) => setTimeout(resolve, 3));
		}
		return created;
	}

	/** List requests since `from` that arrived while an earlier one was still being answered. */
	function overlapping(from: number): number {
		const arrivals = listRequestsSince(sim(), from).map((request) => micros(request.at));
		return arrivals.filter((at, index) => index > 0 && at - arrivals[index - 1] < (LATENCY_MS * 1000) / 2).length;
	}

	/** Polls until one sends nothing (each reads its pass whole within its budget here); the polls that sent. */
	async function pollAll(options: INodeParameters = {}): Promise<{ sent: EmittedRecord[]; polls: number }> {
		const sent: EmittedRecord[] = [];
		for (let polls = 0; polls < 30; polls++) {
			const { records } = await pollOk(bed, parameters(options));
			if (records.length === 0) return { sent, polls };
			sent.push(...records);
		}
		throw new Error('still sending after 30 polls');
	}

	it('a burst of 2,000: every change once and oldest first, with reads in flight side by side', async () => {
		expect((await pollOk(bed, parameters())).items).toBeNull();
		const changes = await burst(2_000);
		sim().setFaults({ latencyMs: LATENCY_MS, applyToProvisioning: false });
		const from = lastSeq(sim());
		const { sent } = await pollAll();
		expect(duplicates(emittedPairs(sent))).toEqual([]);
		expect(emittedPairs(sent).sort()).toEqual(changePairs(changes).sort());
		expect(firstOutOfOrder(sent)).toBe(-1);
		expect(overlapping(from)).toBeGreaterThan(5);
	});

	it('Max Changes per Poll 300: each poll hands over the oldest 300 not yet sent; together every change once, oldest first', async () => {
		expect((await pollOk(bed, parameters({ maxChangesPerPoll: 300 }))).items).toBeNull();
		const changes = await burst(2_000);
		sim().setFaults({ latencyMs: LATENCY_MS, applyToProvisioning: false });
		const from = lastSeq(sim());
		const { sent, polls } = await pollAll({ maxChangesPerPoll: 300 });
		expect(polls).toBe(Math.ceil(changes.length / 300));
		expect(duplicates(emittedPairs(sent))).toEqual([]);
		expect(emittedPairs(sent).sort()).toEqual(changePairs(changes).sort());
		expect(firstOutOfOrder(sent)).toBe(-1);
		expect(overlapping(from)).toBeGreaterThan(0);
	});

	it('two refused cursors and records changed while the ranges are read: every version once, oldest first', async () => {
		expect((await pollOk(bed, parameters())).items).toBeNull();
		const changes = await burst(2_000);
		sim().setFaults({ latencyMs: LATENCY_MS, applyToProvisioning: false });
		const cursorPage = 'pagination%5Bafter%5D';
		const restore = [
			failNthRequest(sim(), EMPLOYEES, 6, { status: 410, count: 1, queryIncludes: cursorPage }),
			failNthRequest(sim(), EMPLOYEES, 9, { status: 404, count: 1, queryIncludes: cursorPage }),
		];
		// While the first poll's ranges are out: 100 records, already read or not, change again.
		const touched: SimRecord[] = [];
		const faults = sim().faults;
		const decide = faults.decide.bind(faults);
		let lists = 0;
		faults.decide = (method: string, path: string, rawQuery?: string) => {
			if (path.startsWith(EMPLOYEES) && ++lists === 8) touched.push(...sim().touchRecords('employees', changes.filter((_, index) => index % 20 === 0).map((record) => record.id)));
			return decide(method, path, rawQuery);
		};
		const from = lastSeq(sim());
		const { sent } = await pollAll();
		faults.decide = decide;
		for (const undo of restore) undo();
		expect(touched).toHaveLength(100);
		const pairs = emittedPairs(sent);
		expect(duplicates(pairs)).toEqual([]);
		// Every final version came; the others sent are versions that existed (read before they changed).
		const final = new Set(changePairs([...changes.filter((record) => !touched.some((other) => other.id === record.id)), ...touched]));
		expect(pairs.filter((pair) => final.has(pair)).sort()).toEqual([...final].sort());
		const existed = new Set([...changePairs(changes), ...final]);
		expect(pairs.filter((pair) => !existed.has(pair))).toEqual([]);
		expect(firstOutOfOrder(sent)).toBe(-1);
		expect(overlapping(from)).toBeGreaterThan(0);
		expect(listRequestsSince(sim(), from).filter((request) => request.status === 410 || request.status === 404)).toHaveLength(2);
	});

	it('a server that answers at most 3 requests at a time (429 beyond): the ranges keep below it after its first refusal; every change once', async () => {
		expect((await pollOk(bed, parameters())).items).toBeNull();
		const changes = await burst(2_000);
		sim().setFaults({ latencyMs: LATENCY_MS, maxInFlight: 3, retryAfterSeconds: 0, applyToProvisioning: false });
		const from = lastSeq(sim());
		const { sent, polls } = await pollAll();
		expect(duplicates(emittedPairs(sent))).toEqual([]);
		expect(emittedPairs(sent).sort()).toEqual(changePairs(changes).sort());
		expect(firstOutOfOrder(sent)).toBe(-1);
		// Each poll starts at 4 in flight, as the writes do; refused there, its limit halves and stays
		// below the refusal (a request sent as an answer is still being written may meet the limit
		// too): a few refusals a poll out of its 20 or more requests, not one a request.
		const requests = listRequestsSince(sim(), from);
		const refusals = requests.filter((request) => request.status === 429).length;
		expect(refusals).toBeLessThanOrEqual(6 * polls);
		expect(refusals).toBeLessThan(requests.length / 3);
	});
});
