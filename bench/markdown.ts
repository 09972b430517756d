/** Markdown and number formatting shared by the benchmark's reports. */
import type { Spread } from './n8nFigures';

export const int = (value: number): string => Math.round(value).toLocaleString('en-US');
export const fixed = (value: number, digits = 2): string => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
export const mark = (ok: boolean): string => (ok ? 'yes' : '**no**');
export const mib = (bytes: number): string => int(bytes / 2 ** 20);
export const ms = (s: Spread): string => `${int(s.median)} (${int(s.min)}–${int(s.max)})`;
export const ratio = (s: Spread): string => (Number.isFinite(s.median) ? `${fixed(s.median)}× (${fixed(s.min)}–${fixed(s.max)})` : '—');

export function table(headers: string[], rows: string[][]): string {
	return [`| ${headers.join(' | ')} |`, `| ${headers.map(() => '---').join(' | ')} |`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');
}
