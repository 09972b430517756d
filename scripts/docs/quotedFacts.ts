/**
 * Numbers the docs' prose quotes from the code (a default, a ceiling, a limit), found by the way the
 * pages phrase them and compared with the constants they come from. Generated blocks are left
 * out (written from the code); code fences are read, as they hold layout notes in prose too. test/docs/quotedFacts.test.ts fails on a
 * misquote, and on a phrasing that no longer matches anything (a check that could not fail).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { LARGE_DEFAULT } from '../../bench/latency';
import { HTTP } from '../../nodes/shared/apiChoices';
import { PAGES_BEFORE_RANGES } from '../../nodes/shared/rangedWalk';
import { MAX_IN_FLIGHT_DEFAULT, RANGES_START, RANGES_WORTH_WAITING_PERCENT } from '../../nodes/shared/rangeWorth';
import { ADAPTIVE_START } from '../../nodes/shared/transport/adaptiveLimit';
import { CONCURRENCY_MAX, concurrencyOption, WRITE_CONCURRENCY_DEFAULT, WRITE_CONCURRENCY_MAX } from '../../nodes/PersonnelData/actions/concurrency';
import { LIST_REQUESTS_IN_FLIGHT, VALUES_PER_REQUEST } from '../../nodes/PersonnelData/actions/read/recordsWhere';
import { CLOCK_STEP_MS } from '../../nodes/PersonnelDataTrigger/feedClock';
import { DEFAULT_READ_BUDGET_SECONDS, PAGE_SHARE_OF_SLACK } from '../../nodes/PersonnelDataTrigger/pollBudget';
import { LEASE_STALE_MS, SAVE_WAIT_MS } from '../../nodes/PersonnelDataTrigger/pollLease';
import { MEMORY_MAX, REFUSALS_MAX } from '../../nodes/PersonnelDataTrigger/feedState';
import { LOOKBACK_MAX_MINUTES, SETTLE_DEFAULT_MINUTES } from '../../nodes/PersonnelDataTrigger/setup';
import { WATCH_RECORDS_MAX } from '../../nodes/PersonnelDataTrigger/watchFields';

/** A phrasing that quotes one fact: group 1 of `pattern` is the number quoted. */
export interface QuotedFact {
	fact: string;
	expected: number;
	pattern: RegExp;
	/** Only clauses (text between `.`, `;`, `|` and blank lines) this accepts are read. */
	clause?: (clause: string) => boolean;
}

export interface Misquote {
	page: string;
	line: number;
	fact: string;
	quoted: number;
	expected: number;
	text: string;
}

const WORDS: Record<string, number> = { one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10 };
const NUMBER = String.raw`(\d[\d,]*|one|two|three|four|five|six|seven|eight|nine|ten)`;

function numberOf(text: string): number {
	return WORDS[text.toLowerCase()] ?? Number(text.replace(/,/g, ''));
}

const aboutConcurrency = (clause: string) => /Concurrency|ceiling/.test(clause);
const aboutWrites = (clause: string) => /writ|import|Create or Update|ceiling|version 2/i.test(clause);
const aboutGet = (clause: string) => aboutConcurrency(clause) && !aboutWrites(clause);
const aboutWriteConcurrency = (clause: string) => aboutConcurrency(clause) && aboutWrites(clause);
/** A number a test or CI script sets (group 1 of `pattern` in `file`). */
function numberIn(file: string, pattern: RegExp): number {
	const match = pattern.exec(readFileSync(join(__dirname, '..', '..', file), 'utf8'));
	if (!match) throw new Error(`${file}: ${String(pattern)} found nothing`);
	return Number(match[1]);
}

const rx = (source: string) => new RegExp(source.replace(/ /g, String.raw`\s+`).replace(/N/g, NUMBER), 'gi');

export const QUOTED_FACTS: QuotedFact[] = [
	{ fact: 'Get: Concurrency default', expected: Number(concurrencyOption.default), pattern: rx(String.raw`default N`), clause: aboutGet },
	{ fact: 'Get: Concurrency ceiling', expected: CONCURRENCY_MAX, pattern: rx(String.raw`\b1 (?:to|–) N`), clause: aboutGet },
	{ fact: 'Writes: Concurrency default', expected: WRITE_CONCURRENCY_DEFAULT, pattern: rx(String.raw`default N`), clause: aboutWriteConcurrency },
	{ fact: 'Writes: Concurrency default', expected: WRITE_CONCURRENCY_DEFAULT, pattern: rx(String.raw`up to \*\*N items at the same time\*\* by default`) },
	{ fact: 'Writes: Concurrency ceiling', expected: WRITE_CONCURRENCY_MAX, pattern: rx(String.raw`\b1 ?(?:to|–) ?N`), clause: aboutWriteConcurrency },
	{ fact: 'Writes: Concurrency ceiling', expected: WRITE_CONCURRENCY_MAX, pattern: rx(String.raw`default \d+, up to N`), clause: aboutWriteConcurrency },
	{ fact: 'Writes: Concurrency default', expected: WRITE_CONCURRENCY_DEFAULT, pattern: rx(String.raw`Why N by default`) },
	{ fact: 'Latency benchmark: records of the large list', expected: LARGE_DEFAULT.n, pattern: rx(String.raw`a large list, N employees \(\x60[A-Z_]+\x60`) },
	{ fact: 'Latency benchmark: latency of the large list (ms)', expected: LARGE_DEFAULT.latencies[0], pattern: rx(String.raw`it\), at N ms \(\x60[A-Z_]+\x60\)`) },
	{ fact: 'Writes: adaptive start', expected: ADAPTIVE_START, pattern: rx(String.raw`start(?:s)? (?:with )?N (?:at a time )?and adapt`) },
	{ fact: 'Batched reads: list requests in flight', expected: LIST_REQUESTS_IN_FLIGHT, pattern: rx(String.raw`(?:up to )?\**N\** list requests (?:of \d+ IDs )?in flight`) },
	{ fact: 'Batched reads: list requests in flight', expected: LIST_REQUESTS_IN_FLIGHT, pattern: rx(String.raw`requests, up to N at a time`) },
	{ fact: 'Batched reads: list requests in flight', expected: LIST_REQUESTS_IN_FLIGHT, pattern: rx(String.raw`a request, N requests in flight`) },
	{ fact: 'Batched reads: list requests in flight', expected: LIST_REQUESTS_IN_FLIGHT, pattern: rx(String.raw`up to N requests at a time`) },
	{ fact: 'Batched reads and lookups: values a request', expected: VALUES_PER_REQUEST, pattern: rx(String.raw`\bN (?:values|lookups|IDs|ids) (?:a|per) request`) },
	{ fact: 'Batched reads and lookups: values a request', expected: VALUES_PER_REQUEST, pattern: rx(String.raw`up N to a request`) },
	{ fact: 'Retries: attempts', expected: HTTP.maxAttempts, pattern: rx(String.raw`at most N attempts`) },
	{ fact: 'Deadline of one exchange (minutes)', expected: HTTP.deadlineMs / 60_000, pattern: rx(String.raw`N minutes per exchange`) },
	{ fact: 'Longest Retry-After waited for (minutes)', expected: HTTP.retryAfterMaxMs / 60_000, pattern: rx(String.raw`\x60Retry-After\x60 above N minutes`) },
	{ fact: 'Trigger: Settle Window ceiling (minutes)', expected: LOOKBACK_MAX_MINUTES, pattern: rx(String.raw`at most N, 7 days`) },
	{ fact: 'Trigger: Settle Window default (minutes)', expected: SETTLE_DEFAULT_MINUTES, pattern: rx(String.raw`Settle Window \(Minutes\)\*, N by default`) },
	{ fact: 'Trigger: versions the memory keeps', expected: MEMORY_MAX, pattern: rx(String.raw`memory reach N versions`) },
	{ fact: 'Trigger: cursor refusals at one timestamp', expected: REFUSALS_MAX, pattern: rx(String.raw`after N refusals at the same timestamp in one poll`) },
	{ fact: 'Trigger: records kept by Watch Fields', expected: WATCH_RECORDS_MAX, pattern: rx(String.raw`capped at \*\*N records\*\*`) },
	{ fact: 'Trigger: read budget ceiling (s)', expected: DEFAULT_READ_BUDGET_SECONDS, pattern: rx(String.raw`never more than N s\b`) },
	{ fact: 'Trigger: a poll counts as hung after (minutes)', expected: LEASE_STALE_MS / 60_000, pattern: rx(String.raw`no progress for N minutes`) },
	{ fact: 'Trigger: a change in the clocks\' offset taken as a step (s)', expected: CLOCK_STEP_MS / 1000, pattern: rx(String.raw`offset changes by more than N s beyond`) },
	{ fact: 'Trigger: where a page past the read budget is cut (%)', expected: PAGE_SHARE_OF_SLACK * 100, pattern: rx(String.raw`still out N % of the way`) },
	{ fact: 'Trigger: wait for a late save (s)', expected: SAVE_WAIT_MS / 1000, pattern: rx(String.raw`within N s of a poll that sent reads`) },
	{ fact: 'Return All: pages read with one cursor before ranges', expected: PAGES_BEFORE_RANGES, pattern: rx(String.raw`reads N pages? with one cursor first`) },
	{ fact: 'Return All: ranges when the node waited this share of the time (%)', expected: RANGES_WORTH_WAITING_PERCENT, pattern: rx(String.raw`idle at least N % of the time`) },
	{ fact: 'Return All: requests in flight at the start of the ranges', expected: RANGES_START, pattern: rx(String.raw`ranges start with N requests in flight`) },
	{ fact: 'Return All: Max Requests in Flight default', expected: MAX_IN_FLIGHT_DEFAULT, pattern: rx(String.raw`Max Requests in Flight\* \(default N\)`) },
	{ fact: 'Listings: Max Requests default', expected: HTTP.walkMaxRequests, pattern: rx(String.raw`Max Requests\* \(default N\)`) },
	{ fact: 'Trigger: model-test timelines per npm test', expected: numberIn('test/unit/changeFeed/changeFeed.property.test.ts', /FEED_RUNS \?\? (\d+)/), pattern: rx(String.raw`\x60npm test\x60 runs N timelines`) },
	{ fact: 'Trigger: model-test timelines in CI', expected: numberIn('.ci/run', /FEED_RUNS=(\d+)/), pattern: rx(String.raw`timelines and CI N \(`) },
];

/** The page with its generated blocks blanked (line numbers kept). */
export function proseOf(text: string): string {
	return text.replace(/<!-- BEGIN GENERATED[\s\S]*?<!-- END GENERATED[^>]*-->/g, (part) => part.replace(/[^\n]/g, ' '));
}

/** Clauses with their offsets: split at a full stop before white space, `;`, `|` and blank lines. */
function clausesOf(prose: string): Array<{ text: string; at: number }> {
	const clauses: Array<{ text: string; at: number }> = [];
	const boundary = /\.(?=\s)|;|\||\n[ \t]*\n/g;
	let start = 0;
	for (const match of prose.matchAll(boundary)) {
		clauses.push({ text: prose.slice(start, match.index), at: start });
		start = (match.index ?? 0) + match[0].length;
	}
	clauses.push({ text: prose.slice(start), at: start });
	return clauses;
}

export interface QuoteReport {
	misquotes: Misquote[];
	/** How many quotes each phrasing found (a fact none of whose phrasings finds one is checked nowhere). */
	found: Map<QuotedFact, number>;
}

export function checkQuotedFacts(root: string, pages: readonly string[], facts: readonly QuotedFact[] = QUOTED_FACTS): QuoteReport {
	const misquotes: Misquote[] = [];
	const found = new Map<QuotedFact, number>(facts.map((fact) => [fact, 0]));
	for (const page of pages) {
		const prose = proseOf(readFileSync(join(root, page), 'utf8'));
		const lineAt = (offset: number) => prose.slice(0, offset).split('\n').length;
		for (const clause of clausesOf(prose)) {
			for (const fact of facts) {
				if (fact.clause && !fact.clause(clause.text)) continue;
				for (const match of clause.text.matchAll(fact.pattern)) {
					found.set(fact, (found.get(fact) ?? 0) + 1);
					const quoted = numberOf(match[1]);
					if (quoted !== fact.expected) {
						const text = match[0].replace(/\s+/g, ' ');
						misquotes.push({ page, line: lineAt(clause.at + (match.index ?? 0)), fact: fact.fact, quoted, expected: fact.expected, text });
					}
				}
			}
		}
	}
	return { misquotes, found };
}
