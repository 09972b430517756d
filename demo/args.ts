import { versionPins } from '../test/e2e/n8n';

export interface DemoArgs {
	/** Key of scripts/n8n/versions.json. */
	n8nKey: string;
	/** Run the example workflows headlessly, print the results and exit. */
	once: boolean;
}

const USAGE = `usage: npm run demo [-- --once] [-- --n8n <key>]
  --once       run the example workflows headlessly, print their results, exit 0 when all passed
  --n8n <key>  n8n version to use, a key of scripts/n8n/versions.json (default: the newest)`;

function compareVersions(a: string, b: string): number {
	const pa = a.split('.').map(Number);
	const pb = b.split('.').map(Number);
	for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
		const d = (pa[i] ?? 0) - (pb[i] ?? 0);
		if (d !== 0) return d;
	}
	return 0;
}

/** The key whose pinned n8n version is the newest. */
export function newestKey(): string {
	const pins = Object.entries(versionPins());
	if (pins.length === 0) throw new Error('scripts/n8n/versions.json lists no n8n version');
	return pins.sort(([, a], [, b]) => compareVersions(b.n8n, a.n8n))[0][0];
}

export function parseArgs(argv: readonly string[]): DemoArgs {
	const args: DemoArgs = { n8nKey: '', once: false };
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i];
		if (arg === '--once') args.once = true;
		else if (arg === '--n8n') args.n8nKey = argv[++i] ?? '';
		else if (arg.startsWith('--n8n=')) args.n8nKey = arg.slice('--n8n='.length);
		else if (arg === '--help' || arg === '-h') {
			console.log(USAGE);
			process.exit(0);
		} else throw new Error(`unknown argument ${arg}\n${USAGE}`);
	}
	if (!args.n8nKey) args.n8nKey = newestKey();
	const keys = Object.keys(versionPins());
	if (!keys.includes(args.n8nKey)) throw new Error(`unknown n8n key "${args.n8nKey}"; known: ${keys.join(', ')}`);
	return args;
}
