/** Demo output: one prefix for progress lines, plain text for results. */
export const say = (line: string): void => console.log(`[demo] ${line}`);

export const warn = (line: string): void => console.error(`[demo] ${line}`);

export function elapsed(since: number): string {
	return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}
