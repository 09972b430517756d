/**
 * Return All at the defaults reads in inserted_at ranges only when the node mostly waited for its
 * first pages (rangeTiming.worthWaitingShare, nodes/shared/rangeWorth.ts): on a loaded machine
 * whether a suite's listing is read in ranges would depend on timing. Every suite starts with one
 * cursor (in the same order); the suites of the ranges set 0 (ranges even on loopback) or the
 * production share.
 */
import { rangeTiming } from '../../nodes/shared/rangeWorth';

rangeTiming.worthWaitingShare = Number.POSITIVE_INFINITY;
