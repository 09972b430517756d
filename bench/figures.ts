/** Figures derived from the worker's measurements: wall-time ratios, memory per record, the batched Get's targets. */
import { PAGE_SIZE_MAX } from '../nodes/shared/apiChoices';
import { median, type MemoryResult, type PerItemResult } from './common';
import { fixed, int, mark } from './markdown';
import { TARGET_BATCHED_VS_CONCURRENCY_1, TARGET_BATCHED_VS_CONCURRENCY_10 } from './plan';

export interface WallFigures {
	nodeMedianMs: number;
	rawMedianMs: number;
	/** median(node) / median(raw). */
	ratio: number;
	/** min(node) / min(raw): least disturbed by other load on the machine. */
	bestRatio: number;
}

export function wall(nodeMs: readonly number[], rawMs: readonly number[]): WallFigures {
	const nodeMedianMs = median(nodeMs);
	const rawMedianMs = median(rawMs);
	return { nodeMedianMs, rawMedianMs, ratio: nodeMedianMs / rawMedianMs, bestRatio: Math.min(...nodeMs) / Math.min(...rawMs) };
}

export interface MemoryFigures {
	n: number;
	jsonBytesPerRecord: number;
	nodeBytesPerRecord: number;
	rawBytesPerRecord: number;
	nodeRatio: number;
	rawRatio: number;
	nodeHeapPerRecord: number;
	rawHeapPerRecord: number;
}

export function memoryFigures(node: MemoryResult, raw: MemoryResult): MemoryFigures {
	const perRecord = (m: MemoryResult) => (m.rssPeak - m.rssBefore) / Math.max(1, m.records);
	const json = node.jsonBytesPerRecord;
	return {
		n: node.n,
		jsonBytesPerRecord: json,
		nodeBytesPerRecord: perRecord(node),
		rawBytesPerRecord: perRecord(raw),
		nodeRatio: perRecord(node) / json,
		rawRatio: perRecord(raw) / json,
		nodeHeapPerRecord: (node.heapRetained - node.heapBefore) / Math.max(1, node.records),
		rawHeapPerRecord: (raw.heapRetained - raw.heapBefore) / Math.max(1, raw.records),
	};
}

/** Issue 22: the batched Get's requests and its wall time against one request per item. */
export function batchedTargets(perItem: PerItemResult): string[][] {
	const batched = perItem.runs.find((r) => r.batched);
	const onePerItem = (concurrency: number) => perItem.runs.find((r) => !r.batched && r.concurrency === concurrency);
	if (!batched) return [['Per-item Get in batches', 'not measured']];
	const floor = Math.ceil(perItem.items / PAGE_SIZE_MAX);
	const speedUp = (concurrency: number) => (onePerItem(concurrency)?.ms ?? Number.NaN) / batched.ms;
	return [
		[
			// Every request is a list request or a miss's own Get (the token was provisioned in the warm-up).
			`Per-item Get in batches (${int(perItem.items)} items): list requests ≤ ${floor}, plus one single Get per miss`,
			`${mark(batched.listRequests <= floor && batched.listRequests + batched.getRequests === batched.requests && batched.errors === 0)} (${int(batched.listRequests)} list requests, ${int(batched.getRequests)} misses)`,
		],
		[`Per-item Get in batches: wall time ≥ ${TARGET_BATCHED_VS_CONCURRENCY_1}× better than one per item at Concurrency 1`, `${mark(speedUp(1) >= TARGET_BATCHED_VS_CONCURRENCY_1)} (${fixed(speedUp(1), 1)}×)`],
		[`Per-item Get in batches: wall time ≥ ${TARGET_BATCHED_VS_CONCURRENCY_10}× better than one per item at Concurrency 10`, `${mark(speedUp(10) >= TARGET_BATCHED_VS_CONCURRENCY_10)} (${fixed(speedUp(10), 1)}×)`],
	];
}

/** Concurrency 1: (wall time − items × latency) ÷ items. */
export function perItemOverheadMs(perItem: PerItemResult): number {
	const sequential = perItem.runs.find((r) => r.concurrency === 1 && !r.batched);
	return sequential ? (sequential.ms - perItem.items * perItem.latencyMs) / perItem.items : Number.NaN;
}
