/** Demo output: one prefix for progress lines, plain text for results. */
export const say = (line: string): void => console.log(`[demo] ${line}`);

export const warn = (line: string): void => console.error(`[demo] ${line}`);

export function elapsed(since: number): string {
	return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}

/** The time zone of this machine (TZ or the system's), e.g. "Europe/Stockholm". */
export function timeZone(): string {
	return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** Today's date (YYYY-MM-DD) in `zone`. */
export function todayIn(zone: string): string {
	return new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
}
