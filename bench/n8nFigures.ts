/**
 * The real-n8n section's figures: per variant the spread of its runs and its ratio to the HTTP
 * Request node in the same repetition (bench/run.ts renders them).
 */
import { median } from './common';
import type { N8nRun, N8nSection, VariantName } from './variants';
import { VARIANTS } from './variants';
export interface Spread {
	median: number;
	min: number;
	max: number;
}

function spread(values: readonly number[]): Spread {
	return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
}

export interface VariantFigures {
	variant: VariantName;
	label: string;
	items: number;
	requests: number;
	listRequests: number;
	connections: number;
	executionMs: Spread;
	nodeMs: Spread;
	/** Execution time ÷ the HTTP Request node's in the same repetition. */
	ratioToHttp: Spread;
	peakRssBytes: Spread;
	rssAtStartBytes: Spread;
	processPeakRssBytes: Spread;
}

export interface N8nFigures {
	variants: VariantFigures[];
	/** (HTTP Request with a Header Auth credential − with a literal header) ÷ pages, per repetition. */
	credentialMsPerRequest?: Spread;
	/** Get by ID of GET_BY_ID_ITEMS items: the HTTP Request node's node time ÷ this node's, per repetition. */
	getByIdSpeedUp?: Spread;
}

export function n8nFigures(section: N8nSection): N8nFigures {
	const byRep = (variant: VariantName): N8nRun[] => section.runs.filter((run) => run.variant === variant);
	const http = byRep('http');
	const variants = (Object.keys(VARIANTS) as VariantName[])
		.filter((variant) => byRep(variant).length > 0)
		.map((variant): VariantFigures => {
			const runs = byRep(variant);
			const last = runs[runs.length - 1];
			return {
				variant,
				label: VARIANTS[variant],
				items: last.items,
				requests: last.requests,
				listRequests: last.listRequests,
				connections: last.connections,
				executionMs: spread(runs.map((run) => run.executionMs)),
				nodeMs: spread(runs.map((run) => run.nodeMs)),
				ratioToHttp: spread(runs.map((run, rep) => run.executionMs / (http[rep]?.executionMs ?? Number.NaN))),
				peakRssBytes: spread(runs.map((run) => run.peakRssBytes)),
				rssAtStartBytes: spread(runs.map((run) => run.rssAtStartBytes)),
				processPeakRssBytes: spread(runs.map((run) => run.processPeakRssBytes)),
			};
		});
	const withCredential = byRep('httpCredential');
	const credentialMsPerRequest =
		withCredential.length > 0 && http.length === withCredential.length
			? spread(withCredential.map((run, rep) => (run.executionMs - http[rep].executionMs) / Math.max(1, run.requests)))
			: undefined;
	const pdGet = byRep('pdGetById');
	const httpGet = byRep('httpGetById');
	const getByIdSpeedUp = pdGet.length > 0 && pdGet.length === httpGet.length ? spread(pdGet.map((run, rep) => httpGet[rep].nodeMs / run.nodeMs)) : undefined;
	return { variants, credentialMsPerRequest, getByIdSpeedUp };
}
