import { toCronExpression } from 'n8n-workflow';

/** When a schedule cannot be read: n8n's shortest ordinary interval (Every Minute). */
const FALLBACK_MS = 60_000;

const FIELD_RANGES = [60, 60, 24] as const; // seconds, minutes, hours

/** The values one cron field allows (`*`, `a`, `a-b`, any of them `/step`, comma lists); undefined: unreadable. */
function valuesOf(field: string, size: number): number[] | undefined {
	const values = new Set<number>();
	for (const part of field.split(',')) {
		const match = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(part.trim());
		if (!match) return undefined;
		const [, , from, to, step] = match;
		const start = from === undefined ? 0 : Number(from);
		const end = from === undefined ? size - 1 : to !== undefined ? Number(to) : step !== undefined ? size - 1 : start;
		const by = step === undefined ? 1 : Number(step);
		if (by < 1 || start > end || end >= size) return undefined;
		for (let value = start; value <= end; value += by) values.add(value);
	}
	return [...values].sort((a, b) => a - b);
}

/** The smallest distance between two allowed values, around the clock face; undefined for one value. */
function smallestGap(values: number[], size: number): number | undefined {
	if (values.length < 2) return undefined;
	let gap = size - values[values.length - 1] + values[0];
	for (let i = 1; i < values.length; i++) gap = Math.min(gap, values[i] - values[i - 1]);
	return gap;
}

/**
 * A lower bound of the time between two polls of one cron expression (n8n's six fields, or five
 * without seconds): the finest field with more than one value decides. Days and longer count as
 * a day.
 */
export function shortestIntervalMs(expression: string): number {
	const fields = expression.trim().split(/\s+/);
	const [seconds, minutes, hours] = fields.length === 6 ? fields : fields.length === 5 ? ['0', ...fields] : [];
	if (seconds === undefined) return FALLBACK_MS;
	let unitMs = 1000;
	for (const [index, field] of [seconds, minutes, hours].entries()) {
		const values = valuesOf(field, FIELD_RANGES[index]);
		if (!values) return FALLBACK_MS;
		const gap = smallestGap(values, FIELD_RANGES[index]);
		if (gap !== undefined) return gap * unitMs;
		unitMs *= FIELD_RANGES[index];
	}
	return 24 * 3_600_000;
}

/**
 * The shortest time between two polls of the node's Poll Times (several entries: the shortest of
 * them). A poll that would still be waiting when the next one starts gives up instead.
 */
export function pollIntervalMs(pollTimes: unknown): number {
	const items = (pollTimes as { item?: unknown } | undefined)?.item;
	if (!Array.isArray(items) || items.length === 0) return FALLBACK_MS;
	return Math.min(...items.map((item) => shortestIntervalMs(toCronExpression(item as Parameters<typeof toCronExpression>[0]))));
}
