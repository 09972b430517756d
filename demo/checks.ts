/** What the examples of `npm run demo -- --once` share: running a workflow, reading its items, checking. */
import { nodeError, nodeItems, type ExecutionDetails, type N8nServer, type NodeItem } from '../scripts/n8n/driver';
import type { Row } from './format';

export class CheckFailed extends Error {}

export function check(condition: unknown, message: string): asserts condition {
	if (!condition) throw new CheckFailed(message);
}

/** Why an execution did not succeed: the failing node's message, or the run's. */
export function failureOf(execution: ExecutionDetails): string {
	const failed = Object.entries(execution.data.resultData.runData)
		.map(([name]) => [name, nodeError(execution.data.resultData, name)] as const)
		.find(([, error]) => error);
	const reason = failed ? `${failed[0]}: ${failed[1]?.message ?? ''} ${failed[1]?.description ?? ''}` : (execution.data.resultData.error?.message ?? 'no error message');
	return reason.trim();
}

/** Waits for an execution to stop; fails the check unless it succeeded. */
export async function finished(server: N8nServer, executionId: string): Promise<ExecutionDetails> {
	const execution = await server.waitForExecution(executionId, 120_000);
	if (execution.status !== 'success') throw new CheckFailed(`execution ${executionId} ended "${execution.status}": ${failureOf(execution)}`);
	return execution;
}

export async function runFrom(server: N8nServer, workflowId: string, triggerName: string): Promise<ExecutionDetails> {
	return await finished(server, await server.runFromTrigger(workflowId, triggerName));
}

export const items = (execution: ExecutionDetails, node: string): Row[] => nodeItems(execution.data.resultData, node);

export function firstItem(execution: ExecutionDetails, node: string): NodeItem | undefined {
	return execution.data.resultData.runData[node]?.[0]?.data?.main?.[0]?.[0] ?? undefined;
}

export const sameCounts = (a: Record<string, number>, b: Record<string, number>): boolean =>
	JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());
