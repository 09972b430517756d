/** The real-n8n section's tables and targets in the benchmark page (bench/run.ts writes them). */
import { median } from './common';
import { fixed, int, mark, mib, ms, ratio, table } from './markdown';
import { n8nFigures, type N8nFigures } from './n8nFigures';
import { TARGET_N8N_GET_BY_ID_SPEED_UP, TARGET_N8N_RATIO_SIMPLIFY_OFF, TARGET_N8N_RATIO_SIMPLIFY_ON } from './plan';
import { GET_BY_ID_ITEMS, isGetById, type N8nOutcome, type VariantName } from './variants';

export function n8nMarkdown(section: Extract<N8nOutcome, { kind: 'n8n' }>, figures: N8nFigures): string {
	const rows = figures.variants.map((v) => [
		v.label,
		int(v.items),
		int(v.requests),
		int(v.connections),
		ms(v.executionMs),
		ms(v.nodeMs),
		v.variant === 'http' ? '1 (reference)' : isGetById(v.variant) ? '— (Get by ID: see below)' : ratio(v.ratioToHttp),
		mib(v.peakRssBytes.median),
		mib(v.rssAtStartBytes.median),
		mib(v.processPeakRssBytes.median),
	]);
	const warm = section.warmUp;
	const large = section.large;
	const credential = figures.credentialMsPerRequest;
	const lines = [
		`### Inside real n8n ${section.n8nVersion} (\`n8n execute\`, ${int(section.n)} employees, ${section.reps} repetitions, variants in rotating order)`,
		'',
		'Execution time is the execution\'s stoppedAt − startedAt (n8n\'s own timestamps); the node time is the sum of the measured nodes\' `executionTime` in the run data. ' +
			'Ratios are paired: each run ÷ the HTTP Request node\'s run of the same repetition. Memory is sampled from /proc/<pid>/status every 10 ms: peak RSS is VmHWM at the execution\'s end (n8n\'s start-up included), ' +
			'the last column also covers saving and printing the execution. Requests and TCP connections are the simulator\'s counts for the run.',
		'',
		table(['variant', 'items out', 'requests', 'TCP connections', 'execution ms, median (range)', 'node ms, median (range)', 'ratio to HTTP Request, median (range)', 'peak RSS MiB', 'RSS before the run MiB', 'process peak RSS MiB'], rows),
		'',
		`First run of the node (fresh credential): ${int(warm.requests)} requests (${int(warm.listRequests)} pages + ${int(warm.requests - warm.listRequests)} token provisioning), ${int(warm.connections)} TCP connections.` +
			(credential ? ` The bearer read from a Header Auth credential instead of a literal header costs ${fixed(credential.median)} ms per request (median; range ${fixed(credential.min)}–${fixed(credential.max)}).` : ''),
	];
	if (figures.getByIdSpeedUp) {
		const speedUp = figures.getByIdSpeedUp;
		lines.push(
			'',
			`Get by ID of ${int(GET_BY_ID_ITEMS)} items (ids from a Set node split into one item each): the HTTP Request node's node time ÷ Personnel Data's, paired per repetition: ${fixed(speedUp.median, 1)}× (range ${fixed(speedUp.min, 1)}–${fixed(speedUp.max, 1)}×).`,
		);
	}
	if (section.helperProbes.length > 0) {
		lines.push(
			'',
			`n8n's own HTTP helper (what \`this.helpers.httpRequest\` calls), outside a workflow, walking the same ${int(section.helperProbes[0].results.default.requests)} pages; \`agentOptions\` exists in IHttpRequestOptions from 2.41 on (2.8 ignores it):`,
			'',
			table(
				['n8n', 'helper', 'agent options', 'requests', 'TCP connections', 'ms (median)'],
				section.helperProbes.flatMap((probe) =>
					(['default', 'keepAlive'] as const).map((mode) => [probe.n8nVersion, probe.module, mode === 'default' ? 'none' : '{ keepAlive: true }', int(probe.results[mode].requests), int(probe.results[mode].connections), int(median(probe.results[mode].ms))]),
				),
			),
		);
	}
	if (large) {
		lines.push(
			'',
			table(
				['Return All (Simplify on)', 'items out', 'requests', 'TCP connections', 'execution ms', 'peak RSS MiB', 'RSS before the run MiB', 'process peak RSS MiB'],
				[[int(large.n), int(large.run.items), int(large.run.requests), int(large.run.connections), int(large.run.executionMs), mib(large.run.peakRssBytes), mib(large.run.rssAtStartBytes), mib(large.run.processPeakRssBytes)]],
			),
		);
	}
	return lines.join('\n');
}

export function n8nTargets(n8n: N8nOutcome, figures: N8nFigures | undefined): string[][] {
	if (n8n.kind !== 'n8n' || !figures) return [['Real n8n targets', `not measured (${n8n.kind === 'skipped' ? n8n.reason : 'no figures'})`]];
	const of = (variant: VariantName) => figures.variants.find((v) => v.variant === variant);
	const off = of('pdSimplifyOff');
	const on = of('pdSimplifyOn');
	const splitOut = of('httpSplitOut');
	const rows: string[][] = [];
	const label = `Real n8n ${n8n.n8nVersion}`;
	if (off) rows.push([`${label}, Return All ${int(n8n.n)}, Simplify off ÷ HTTP Request with Pagination ≤ ${fixed(TARGET_N8N_RATIO_SIMPLIFY_OFF, 1)}× (paired median)`, `${mark(off.ratioToHttp.median <= TARGET_N8N_RATIO_SIMPLIFY_OFF)} (${ratio(off.ratioToHttp)})`]);
	if (on) rows.push([`${label}, Return All ${int(n8n.n)}, Simplify on ÷ HTTP Request with Pagination ≤ ${fixed(TARGET_N8N_RATIO_SIMPLIFY_ON, 1)}× (paired median)`, `${mark(on.ratioToHttp.median <= TARGET_N8N_RATIO_SIMPLIFY_ON)} (${ratio(on.ratioToHttp)})`]);
	if (off && on && splitOut) {
		const worst = Math.max(off.peakRssBytes.median, on.peakRssBytes.median);
		rows.push([`${label}, peak RSS of Return All ${int(n8n.n)} ≤ HTTP Request + Split Out (medians)`, `${mark(worst <= splitOut.peakRssBytes.median)} (Simplify off ${mib(off.peakRssBytes.median)} MiB, on ${mib(on.peakRssBytes.median)} MiB; HTTP Request + Split Out ${mib(splitOut.peakRssBytes.median)} MiB)`]);
	}
	if (figures.getByIdSpeedUp) {
		const speedUp = figures.getByIdSpeedUp;
		rows.push([`${label}, Get by ID of ${int(GET_BY_ID_ITEMS)} employees ≥ ${TARGET_N8N_GET_BY_ID_SPEED_UP}× faster than HTTP Request one per item (paired median of node times)`, `${mark(speedUp.median >= TARGET_N8N_GET_BY_ID_SPEED_UP)} (${fixed(speedUp.median, 1)}×, range ${fixed(speedUp.min, 1)}–${fixed(speedUp.max, 1)}×)`]);
	}
	if (n8n.large) {
		const { run } = n8n.large;
		rows.push([`${label}, Return All ${int(n8n.large.n)} completes`, `${mark(run.items === n8n.large.n)} (${int(run.items)} items, ${int(run.executionMs)} ms, peak RSS ${mib(run.peakRssBytes)} MiB)`]);
	}
	return rows;
}

/** Tables and targets of every real-n8n section. */
export function n8nReport(outcomes: readonly N8nOutcome[]): { markdown: string[]; targets: string[][]; json: unknown[] } {
	const markdown: string[] = [];
	const targets: string[][] = [];
	const json: unknown[] = [];
	for (const outcome of outcomes) {
		const figures = outcome.kind === 'n8n' ? n8nFigures(outcome) : undefined;
		markdown.push(outcome.kind === 'n8n' && figures ? n8nMarkdown(outcome, figures) : `### Inside real n8n\n\nSkipped: ${outcome.kind === 'skipped' ? outcome.reason : ''}.`);
		targets.push(...n8nTargets(outcome, figures));
		json.push(outcome.kind === 'n8n' ? { ...outcome, figures } : outcome);
	}
	return { markdown, targets, json };
}
