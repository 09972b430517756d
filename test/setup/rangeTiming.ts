/**
 * Return All at the defaults reads in inserted_at ranges only when its first pages came back slower
 * than rangeTiming.worthMsPerPage each (nodes/shared/rangedWalk.ts): on a loaded machine whether a
 * suite's listing is read in ranges would depend on timing. Every suite starts with one cursor (in
 * the same order); the suites of the ranges set 0 (ranges even on loopback) or 40 (production).
 */
import { rangeTiming } from '../../nodes/shared/rangedWalk';

rangeTiming.worthMsPerPage = Number.POSITIVE_INFINITY;
