import { versionKeysNewestFirst, versionPins } from '../scripts/n8n/driver';

export interface DemoArgs {
	/** Key of scripts/n8n/versions.json. */
	n8nKey: string;
	/** Run the example workflows headlessly, print the results and exit. */
	once: boolean;
	/** With --once: a JSON file to write each example's outcome to (CI's record, docs/compatibility.md); also DEMO_REPORT. */
	report?: string;
	/** With --once: only these examples (their numbers, from 1). */
	only?: number[];
}

const USAGE = `usage: npm run demo [-- --once] [-- --n8n <key>]
  --once       run the example workflows headlessly, print their results, exit 0 when all passed
  --n8n <key>  n8n version to use, a key of scripts/n8n/versions.json (default: the newest)
  --report <file>  with --once: write each example's outcome there as JSON (or set DEMO_REPORT=<file>)
  --only <n,…>     with --once: only these examples (numbers from 1, comma-separated)`;

/** The key whose pinned n8n version is the newest. */
export function newestKey(): string {
	const [newest] = versionKeysNewestFirst();
	if (newest === undefined) throw new Error('scripts/n8n/versions.json lists no n8n version');
	return newest;
}

function examplesOf(list: string): number[] {
	const numbers = list.split(',').map((each) => Number(each.trim()));
	if (numbers.length === 0 || numbers.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`--only "${list}": expected example numbers such as 8,9\n${USAGE}`);
	return numbers;
}

export function parseArgs(argv: readonly string[]): DemoArgs {
	const args: DemoArgs = { n8nKey: '', once: false };
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i];
		if (arg === '--once') args.once = true;
		else if (arg === '--n8n') args.n8nKey = argv[++i] ?? '';
		else if (arg.startsWith('--n8n=')) args.n8nKey = arg.slice('--n8n='.length);
		else if (arg === '--report') args.report = argv[++i] ?? '';
		else if (arg.startsWith('--report=')) args.report = arg.slice('--report='.length);
		else if (arg === '--only') args.only = examplesOf(argv[++i] ?? '');
		else if (arg === '--help' || arg === '-h') {
			console.log(USAGE);
			process.exit(0);
		} else throw new Error(`unknown argument ${arg}\n${USAGE}`);
	}
	// CI runs the README's `npm run demo -- --once` as written and names the report in the environment.
	if (args.report === undefined && args.once && process.env.DEMO_REPORT) args.report = process.env.DEMO_REPORT;
	if (args.report !== undefined && (!args.once || !args.report)) throw new Error(`--report needs a file and --once\n${USAGE}`);
	if (args.only !== undefined && !args.once) throw new Error(`--only needs --once\n${USAGE}`);
	if (!args.n8nKey) args.n8nKey = newestKey();
	const keys = Object.keys(versionPins());
	if (!keys.includes(args.n8nKey)) throw new Error(`unknown n8n key "${args.n8nKey}"; known: ${keys.join(', ')}`);
	return args;
}
