import type { LogMetadata, Logger as WorkflowLogger } from 'n8n-workflow';

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';

export interface LogEntry {
	level: LogLevel;
	message: string;
	/** Metadata serialised the way a log transport would see it (errors expanded, cycles cut). */
	metadata: string;
	/** Scopes set through `Logger.scoped()` (n8n-core scopes e.g. its cron manager as `cron`). */
	scopes: string[];
}

/**
 * Stand-in for `@n8n/backend-common`'s `Logger`, registered in the DI container so that every
 * `Container.get(Logger)` inside n8n-core (contexts' `this.logger`, request helpers, the
 * scheduled-task manager) and n8n-workflow's `LoggerProxy` write here.
 *
 * Why not the real Logger: it writes to the console/files through winston at the configured level
 * (default `info`, so `debug` lines would be dropped). The tests need *every* line, in memory,
 * to check that no secret is ever logged.
 */
export class CapturingLogger implements WorkflowLogger {
	constructor(
		private readonly sink: LogEntry[] = [],
		private readonly scopes: string[] = [],
	) {}

	/** Same contract as the real `Logger.scoped()`: a child logger sharing the sink. */
	scoped(scopes: string | string[]): CapturingLogger {
		return new CapturingLogger(this.sink, [...this.scopes, ...([] as string[]).concat(scopes)]);
	}

	get entries(): readonly LogEntry[] {
		return this.sink;
	}

	clear(): void {
		this.sink.length = 0;
	}

	error(message: string, metadata?: LogMetadata): void {
		this.record('error', message, metadata);
	}

	warn(message: string, metadata?: LogMetadata): void {
		this.record('warn', message, metadata);
	}

	info(message: string, metadata?: LogMetadata): void {
		this.record('info', message, metadata);
	}

	debug(message: string, metadata?: LogMetadata): void {
		this.record('debug', message, metadata);
	}

	private record(level: LogLevel, message: string, metadata?: LogMetadata): void {
		this.sink.push({
			level,
			message: String(message),
			metadata: metadata === undefined ? '' : safeStringify(metadata),
			scopes: this.scopes,
		});
	}
}

/** One line per entry, as a leak check would grep it. */
export function formatLogEntry(entry: LogEntry): string {
	const scope = entry.scopes.length > 0 ? ` [${entry.scopes.join(',')}]` : '';
	return `${entry.level}${scope}: ${entry.message}${entry.metadata ? ` ${entry.metadata}` : ''}`;
}

/**
 * JSON with Error objects expanded (message, stack, own enumerable props such as an axios
 * `config` with headers) because that is exactly where a bearer token would leak.
 */
export function safeStringify(value: unknown): string {
	const seen = new WeakSet<object>();
	return JSON.stringify(value, (_key, v: unknown) => {
		if (typeof v === 'bigint') return v.toString();
		if (typeof v === 'function') return undefined;
		if (v instanceof Error) {
			const expanded: Record<string, unknown> = { name: v.name, message: v.message, stack: v.stack };
			for (const [k, val] of Object.entries(v)) expanded[k] = val;
			if (seen.has(v)) return '[Circular]';
			seen.add(v);
			return expanded;
		}
		if (v !== null && typeof v === 'object') {
			if (seen.has(v)) return '[Circular]';
			seen.add(v);
		}
		return v;
	});
}
