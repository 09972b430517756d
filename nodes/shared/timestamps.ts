const TIMESTAMP = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2})?)(?:\.(\d+))?(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * A key that sorts like the instant: UTC seconds plus the fraction padded to nine digits. The API
 * keeps microseconds, which a JavaScript Date would round away, and strings with different
 * fraction lengths do not sort as text ("…:50Z" > "…:50.1Z").
 */
export function timestampKey(value: string): string {
	let key = recentKeys.get(value);
	if (key === undefined) {
		if (recentKeys.size >= RECENT_KEYS_MAX) recentKeys.clear();
		recentKeys.set(value, (key = computeTimestampKey(value)));
	}
	return key;
}

/**
 * Keys of the timestamps seen last: a poll compares each record's timestamp many times, and a bulk
 * import gives thousands of records one timestamp (the key is a pure function of the text).
 */
const recentKeys = new Map<string, string>();
const RECENT_KEYS_MAX = 4096;

function computeTimestampKey(value: string): string {
	const match = TIMESTAMP.exec(value.trim());
	if (!match) return value;
	const [, base, fraction = '', zone = 'Z'] = match;
	const seconds = new Date(`${base}${zone.toUpperCase() === 'Z' ? 'Z' : zone}`);
	if (Number.isNaN(seconds.getTime())) return value;
	return `${seconds.toISOString().slice(0, 19)}.${fraction.padEnd(9, '0').slice(0, 9)}`;
}

export function compareTimestamps(a: string, b: string): number {
	const ka = timestampKey(a);
	const kb = timestampKey(b);
	return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/** `value` moved back by `ms`, at millisecond precision (only used to widen a window). */
export function minusMs(value: string, ms: number): string {
	const time = new Date(timestampKey(value).slice(0, 23) + 'Z').getTime();
	return new Date(time - ms).toISOString();
}
