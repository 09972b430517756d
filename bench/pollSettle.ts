/**
 * Part of `npm run bench:poll`: what the settle window (Options → Settle Window, at its default)
 * costs, in the requests each poll sends and the state n8n stores after it: idle, while a bulk
 * import of 40,000 at one timestamp is sent, while it is younger than the window, and once it has
 * passed (the simulator's clock moved on past the window, and a new change shows the server's time).
 */
import type { NodeRuntime } from '../scripts/harness';
import type { startSimulator } from '../scripts/simulator/server';
import { SETTLE_DEFAULT_MS } from '../nodes/PersonnelDataTrigger/feedState';

type Simulator = Awaited<ReturnType<typeof startSimulator>>;
type Poll = () => ReturnType<NodeRuntime['scheduledPoll']>;

export interface SettlePhase {
	phase: string;
	/** List requests of each poll of the phase. */
	requests: number[];
	sent: number;
	/** The largest state stored in the phase (bytes of n8n's static data of the node, JSON). */
	largestState: number;
}

const IMPORT = 40_000;

export async function settleCosts(simulator: Simulator, poll: Poll): Promise<SettlePhase[]> {
	const phases: SettlePhase[] = [];
	// The simulator keeps the last 2,000 requests: count by sequence number (a poll sends fewer).
	const lastSeq = () => simulator.sim.requests().at(-1)?.seq ?? 0;
	const listRequestsSince = (seq: number) => simulator.sim.requests().filter((entry) => entry.seq > seq && !entry.path.startsWith('/provisioning')).length;
	/** Polls `polls` times, or until `until` holds (at most 200 polls). */
	const phase = async (name: string, polls: number, until?: (row: SettlePhase) => boolean): Promise<void> => {
		const row: SettlePhase = { phase: name, requests: [], sent: 0, largestState: 0 };
		while (until ? !until(row) && row.requests.length < 200 : row.requests.length < polls) {
			const before = lastSeq();
			const result = await poll();
			if (result.abandoned || result.error) throw new Error(`${name}: poll ${row.requests.length + 1} ${result.abandoned ? 'abandoned' : `failed: ${result.error?.message}`}`);
			row.requests.push(listRequestsSince(before));
			row.sent += result.items?.[0]?.length ?? 0;
			row.largestState = Math.max(row.largestState, Buffer.byteLength(JSON.stringify(result.staticData), 'utf8'));
		}
		phases.push(row);
	};
	await poll(); // activation
	await phase('idle', 3);
	simulator.sim.freezeClock();
	simulator.sim.createRecords('employees', IMPORT);
	simulator.sim.unfreezeClock();
	await phase(`a bulk import of ${IMPORT.toLocaleString('en-US')} at one timestamp is sent`, 0, (row) => row.sent >= IMPORT);
	await phase('inside the settle window after it (nothing to send)', 3);
	// Past the window: one new change shows the server's time; two passes later the import has settled.
	simulator.sim.advanceClock(SETTLE_DEFAULT_MS / 1000 + 60);
	simulator.sim.createRecords('employees', 1);
	await phase('the window has passed (one new change): until a poll is one request again', 0, (row) => row.requests.at(-1) === 1);
	await phase('idle again', 3);
	return phases;
}

export function settleTable(phases: SettlePhase[]): string[] {
	const each = (requests: number[]) => (requests.length > 8 ? `${requests.slice(0, 8).join(', ')}, …` : requests.join(', '));
	return [
		`The settle window at its default (${SETTLE_DEFAULT_MS / 60_000} minutes), 0 ms a request: list requests of each poll and the largest state stored.`,
		'',
		'| phase | polls | list requests per poll | sent | largest state |',
		'|---|---:|---|---:|---:|',
		...phases.map((row) => `| ${row.phase} | ${row.requests.length} | ${each(row.requests)} | ${row.sent.toLocaleString('en-US')} | ${(row.largestState / 1024).toFixed(1)} kB |`),
	];
}
