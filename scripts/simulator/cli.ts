/**
 * `npm run simulator -- [--port N] [--employees N] [--token-ttl S] [--seed N] [--scan-limit N] [--employee-schema standard|remapped] [--variation name=value,...] [--json]`
 * `--variation` picks the server's choices on the spec's gaps (scripts/simulator/variations.ts, docs/server-matrix.md).
 * Starts the simulator and prints how to reach it; stays up until SIGINT or SIGTERM.
 * With --json it prints one JSON line ({baseUrl, port, credentials}) for scripts that spawn it.
 */
import { EMPLOYEE_SCHEMA_NAMES, isEmployeeSchemaName } from './employeeSchemas';
import { startSimulator, type StartOptions } from './server';
import { parseVariation } from './variations';

function parseArgs(argv: readonly string[]): { options: StartOptions; json: boolean } {
	const options: StartOptions = {};
	let json = false;
	const sizes: Record<string, number> = {};
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i];
		const value = (): number => {
			const n = Number(argv[++i]);
			if (!Number.isFinite(n)) throw new Error(`${arg} needs a number`);
			return n;
		};
		switch (arg) {
			case '--port': options.port = value(); break;
			case '--employees': sizes.employees = value(); break;
			case '--token-ttl': options.tokenTtlSeconds = value(); break;
			case '--seed': options.seed = value(); break;
			case '--scan-limit': options.scanLimit = value(); break;
			case '--employee-schema': {
				const name = argv[++i] ?? '';
				if (!isEmployeeSchemaName(name)) throw new Error(`${arg} needs one of ${EMPLOYEE_SCHEMA_NAMES.join(', ')}`);
				options.employeeSchema = name;
				break;
			}
			case '--variation': options.variation = parseVariation(argv[++i] ?? ''); break;
			case '--json': json = true; break;
			default: throw new Error(`unknown argument ${arg}`);
		}
	}
	options.sizes = sizes;
	return { options, json };
}

async function main(): Promise<void> {
	const { options, json } = parseArgs(process.argv.slice(2));
	const running = await startSimulator(options).catch((error: unknown) => {
		if ((error as { code?: unknown }).code === 'EADDRINUSE') {
			throw new Error(`port ${options.port} is in use: stop what listens there (another simulator?) or choose another --port`);
		}
		throw error;
	});
	const { admin, limited } = running.credentials;
	if (json) {
		process.stdout.write(`${JSON.stringify({ baseUrl: running.baseUrl, port: running.port, credentials: running.credentials })}\n`);
	} else {
		console.log(`Personnel Data API simulator on ${running.baseUrl}  (control API: ${running.baseUrl}/__sim/)`);
		for (const c of [admin, limited]) {
			console.log(`\n[${c.role}]\n  JTI:           ${c.jti}\n  Refresh token: ${c.refreshToken}\n  Legacy token:  ${c.legacyToken}`);
		}
		console.log('\nCtrl+C to stop.');
	}
	const stop = (): void => {
		running.close().then(() => process.exit(0), () => process.exit(1));
	};
	process.once('SIGINT', stop);
	process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
	console.error(error instanceof Error ? error.message : error);
	process.exit(1);
});
