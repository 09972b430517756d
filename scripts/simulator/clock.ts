/**
 * The simulator clock, in integer microseconds since the epoch.
 * Timestamps are produced as ISO 8601 UTC strings with exactly six fraction digits, so that they
 * sort lexically and keep microsecond precision (a JS Date would drop the last three digits).
 */
export class SimClock {
	private baseMicros: number;
	private anchorNs: bigint;
	private frozen = false;

	constructor(start?: string) {
		this.baseMicros = start === undefined ? Date.now() * 1000 : parseTimestampMicros(start);
		this.anchorNs = process.hrtime.bigint();
	}

	nowMicros(): number {
		if (this.frozen) return this.baseMicros;
		const elapsedMicros = Number((process.hrtime.bigint() - this.anchorNs) / 1000n);
		return this.baseMicros + elapsedMicros;
	}

	now(): string {
		return formatMicros(this.nowMicros());
	}

	nowSeconds(): number {
		return Math.floor(this.nowMicros() / 1_000_000);
	}

	/** Today's date (YYYY-MM-DD) on the simulator clock; dated properties are evaluated at it. */
	today(): string {
		return this.now().slice(0, 10);
	}

	isFrozen(): boolean {
		return this.frozen;
	}

	set(timestamp: string): void {
		this.rebase(parseTimestampMicros(timestamp));
	}

	advance(micros: number): void {
		this.rebase(this.nowMicros() + Math.round(micros));
	}

	/** Stops the clock (at `timestamp` when given) so that every write gets the same timestamp. */
	freeze(timestamp?: string): void {
		const at = timestamp === undefined ? this.nowMicros() : parseTimestampMicros(timestamp);
		this.frozen = true;
		this.baseMicros = at;
	}

	unfreeze(): void {
		if (!this.frozen) return;
		this.frozen = false;
		this.anchorNs = process.hrtime.bigint();
	}

	private rebase(micros: number): void {
		this.baseMicros = micros;
		this.anchorNs = process.hrtime.bigint();
	}
}

const MICROS_PER_DAY = 86_400_000_000;

function pad(value: number, width: number): string {
	return String(value).padStart(width, '0');
}

/** Formats without a Date per call (seeding formats hundreds of thousands of timestamps). */
export function formatMicros(micros: number): string {
	const day = Math.floor(micros / MICROS_PER_DAY);
	let rest = micros - day * MICROS_PER_DAY;
	const hours = Math.floor(rest / 3_600_000_000);
	rest -= hours * 3_600_000_000;
	const minutes = Math.floor(rest / 60_000_000);
	rest -= minutes * 60_000_000;
	const seconds = Math.floor(rest / 1_000_000);
	const fraction = rest - seconds * 1_000_000;
	return `${dateOfDay(day)}T${pad(hours, 2)}:${pad(minutes, 2)}:${pad(seconds, 2)}.${pad(fraction, 6)}Z`;
}

const TIMESTAMP_RE =
	/^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Normalizes an ISO 8601 date-time to UTC with nine fraction digits (`...SS.nnnnnnnnnZ`).
 * Returns null when the text is not a valid date-time. Works on the text so no precision is lost.
 */
export function normalizeTimestamp(text: string): string | null {
	const m = TIMESTAMP_RE.exec(text);
	if (!m) return null;
	const [, y, mo, d, h, mi, s, fraction = '', zone] = m;
	if (!isValidDate(`${y}-${mo}-${d}`) || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) {
		return null;
	}
	let seconds = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
	if (zone !== 'Z') {
		const sign = zone[0] === '+' ? 1 : -1;
		const offsetMinutes = Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6));
		seconds -= sign * offsetMinutes * 60_000;
	}
	const base = new Date(seconds).toISOString().slice(0, 19);
	return `${base}.${fraction.padEnd(9, '0')}Z`;
}

/** Converts a stored six-digit timestamp into the nine-digit form used by normalizeTimestamp. */
export function storedToNormalized(stored: string): string {
	return `${stored.slice(0, -1)}000Z`;
}

export function parseTimestampMicros(text: string): number {
	const normalized = normalizeTimestamp(text);
	if (normalized === null) throw new Error(`not an ISO 8601 date-time: ${text}`);
	const millis = Date.parse(`${normalized.slice(0, 19)}Z`);
	return millis * 1000 + Number(normalized.slice(20, 26));
}

export function isValidDate(text: string): boolean {
	if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
	const date = new Date(`${text}T00:00:00Z`);
	return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text;
}

/** Day numbers ↔ date strings, cached: seeding 100,000 employees calls addDays millions of times. */
const dayToDate = new Map<number, string>();
const dateToDay = new Map<string, number>();

export function addDays(date: string, days: number): string {
	let day = dateToDay.get(date);
	if (day === undefined) {
		day = Math.round(Date.parse(`${date}T00:00:00Z`) / 86_400_000);
		if (dateToDay.size < 100_000) dateToDay.set(date, day);
	}
	return dateOfDay(day + days);
}

function dateOfDay(day: number): string {
	let text = dayToDate.get(day);
	if (text === undefined) {
		text = new Date(day * 86_400_000).toISOString().slice(0, 10);
		if (dayToDate.size < 100_000) dayToDate.set(day, text);
	}
	return text;
}
