/** Compact text tables for the demo's results. */
export type Row = Record<string, unknown>;

function cell(value: unknown, width: number): string {
	let text: string;
	if (value === null || value === undefined) text = '';
	else if (typeof value === 'object') text = JSON.stringify(value);
	else text = String(value);
	if (text.length > width) text = `${text.slice(0, width - 1)}…`;
	return text.padEnd(width);
}

/** Up to `max` rows of `columns`, each column at most `maxWidth` characters wide. */
export function table(rows: readonly Row[], columns: readonly string[], max = 5, maxWidth = 36): string {
	if (rows.length === 0) return '    (no rows)';
	const shown = rows.slice(0, max);
	const widths = columns.map((c) =>
		Math.min(maxWidth, Math.max(c.length, ...shown.map((r) => cell(r[c], maxWidth).trimEnd().length))),
	);
	const line = (values: unknown[]) => `    ${values.map((v, i) => cell(v, widths[i])).join('  ')}`.trimEnd();
	const out = [line([...columns]), line(widths.map((w) => '-'.repeat(w))), ...shown.map((r) => line(columns.map((c) => r[c])))];
	if (rows.length > shown.length) out.push(`    … ${rows.length - shown.length} more`);
	return out.join('\n');
}

/** Dated entries as "2026-11-23 Team Lead ← 2026-01-07 Driver". */
export function history(entries: unknown): string {
	if (!Array.isArray(entries)) return String(entries);
	return entries
		.map((e: { valid_from?: string | null; value?: unknown }) => `${e.valid_from ?? '(always)'} ${String(e.value)}`)
		.join('  ←  ');
}
