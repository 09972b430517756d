#!/usr/bin/env bash
# n8n's own community-package checks, run on what would be published:
#   1. `npm pack` of the project (needs `npm run build` first), unpacked into a temporary folder;
#   2. the package's shape: package.json fields, no runtime dependencies, every `n8n` entry in the
#      tarball, MIT licence and README shipped, no forbidden modules/globals in dist/**/*.js;
#   3. `npm run lint` (n8n's lint rules for community nodes, via @n8n/node-cli);
#   4. @n8n/scan-community-package (what n8n runs before a package is verified). Its CLI only scans
#      published packages (registry metadata, provenance, source download), so this script calls
#      its exported analyzePackage() offline with the CLI's own two legs: the compiled tarball
#      (`**/*.js`, package.json) and the shipped sources (nodes/, credentials/, package.json). Like
#      the real scan, inline `eslint-disable` comments are NOT honoured;
#   5. the GitHub Actions workflows (CI and the provenance publish), by scripts/lint-workflows.sh.
#
# The scanner is installed once with npm into a cache folder (SCAN_CACHE_DIR; default
# ~/.cache/n8n-nodes-personnel-data/scan-community-package-<version>).
# Environment: SCAN_VERSION (default 0.32.0), CHECK_PACKAGE_SKIP_SCAN=1 skips step 4,
# CHECK_PACKAGE_SKIP_LINT=1 skips step 3, CHECK_PACKAGE_SKIP_WORKFLOWS=1 skips step 5. Exit status: 0 when every check passed.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
SCAN_VERSION=${SCAN_VERSION:-0.32.0}
SCAN_CACHE_DIR=${SCAN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/n8n-nodes-personnel-data/scan-community-package-$SCAN_VERSION}

failures=()
fail() { failures+=("$1"); echo "  ✘ $1"; }
ok() { echo "  ✔ $1"; }
step() { echo; echo "== $*"; }

work=$(mktemp -d "${TMPDIR:-/tmp}/check-package.XXXXXX")
trap 'rm -rf "$work"' EXIT

# ---------------------------------------------------------------------------------------------
step "npm pack"
if [[ ! -d dist ]]; then
	echo "dist/ is missing: run npm run build first" >&2
	exit 2
fi
tarball=$(npm pack --ignore-scripts --silent --pack-destination "$work" 2>/dev/null | tail -1)
if [[ -z "$tarball" || ! -f "$work/$tarball" ]]; then
	echo "npm pack failed" >&2
	exit 2
fi
pkg="$work/package"
mkdir -p "$pkg"
tar -xzf "$work/$tarball" -C "$pkg" --strip-components=1
ok "$tarball ($(tar -tzf "$work/$tarball" | wc -l) files)"

# ---------------------------------------------------------------------------------------------
step "package shape (the tarball)"
shape=$(node - "$pkg" <<'EOF'
const fs = require('fs');
const path = require('path');
const dir = process.argv[2];
const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
const problems = [];
const passed = [];
const check = (cond, good, bad) => (cond ? passed.push(good) : problems.push(bad));

check(/^(@[a-z0-9-~][a-z0-9-._~]*\/)?n8n-nodes-[a-z0-9-._~]+$/.test(pkg.name ?? ''), `name ${pkg.name}`, `name "${pkg.name}" must be n8n-nodes-<name> or @<scope>/n8n-nodes-<name>`);
check((pkg.keywords ?? []).includes('n8n-community-node-package'), 'keyword n8n-community-node-package', 'keywords must include "n8n-community-node-package"');
check(pkg.license === 'MIT', 'license MIT', `license must be "MIT" (is ${JSON.stringify(pkg.license)})`);
const licenceFile = fs.readdirSync(dir).find((f) => /^licen[cs]e(\.md|\.txt)?$/i.test(f));
check(licenceFile && /MIT License|Permission is hereby granted, free of charge/.test(fs.readFileSync(path.join(dir, licenceFile), 'utf8')),
	`${licenceFile} (MIT) shipped`, 'no MIT LICENSE file in the tarball');
const readme = fs.readdirSync(dir).find((f) => /^readme(\.md)?$/i.test(f));
check(readme && fs.statSync(path.join(dir, readme)).size > 200, `${readme} shipped`, 'no README in the tarball');
for (const field of ['description', 'version', 'repository', 'author']) {
	check(pkg[field] !== undefined && pkg[field] !== '', `${field} set`, `package.json has no ${field}`);
}
const deps = Object.keys(pkg.dependencies ?? {});
check(deps.length === 0, 'no runtime dependencies', `runtime dependencies are not allowed for verified community nodes: ${deps.join(', ')}`);
const peers = pkg.peerDependencies ?? {};
check(Object.keys(peers).every((p) => p === 'n8n-workflow'), 'peerDependencies: n8n-workflow only', `peerDependencies other than n8n-workflow: ${Object.keys(peers).join(', ')}`);
check(pkg.overrides === undefined, 'no overrides', 'package.json must not have "overrides"');
const n8n = pkg.n8n ?? {};
check(n8n.n8nNodesApiVersion === 1, 'n8n.n8nNodesApiVersion 1', `n8n.n8nNodesApiVersion must be 1 (is ${n8n.n8nNodesApiVersion})`);
check(Array.isArray(n8n.nodes) && n8n.nodes.length > 0, `n8n.nodes: ${n8n.nodes?.length ?? 0}`, 'n8n.nodes is empty');
for (const entry of [...(n8n.nodes ?? []), ...(n8n.credentials ?? [])]) {
	check(fs.existsSync(path.join(dir, entry)), `${entry} in the tarball`, `n8n entry ${entry} is missing from the tarball`);
}

// Compiled code: what n8n's scanner forbids in community nodes (no file system, processes,
// environment, dynamic code, or modules n8n does not provide).
// The modules n8n provides to community nodes: the allow-list of @n8n/eslint-plugin-community-nodes'
// no-restricted-imports (without its devDependency exemption: those are not installed at runtime).
const allowedModules = new Set(['n8n-workflow', 'ai-node-sdk', '@n8n/ai-node-sdk', 'lodash', 'moment', 'p-limit', 'luxon', 'zod', 'crypto', 'node:crypto']);
const walk = (d) => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]));
const jsFiles = walk(path.join(dir, 'dist')).filter((f) => f.endsWith('.js'));
const forbidden = [
	[/\bprocess\.(env|exit|argv|cwd|kill|binding)\b/, 'process access'],
	[/\bchild_process\b/, 'child_process'],
	[/\beval\s*\(/, 'eval'],
	[/\bnew\s+Function\s*\(/, 'new Function'],
	[/\b__non_webpack_require__\b|\bmodule\.constructor\b/, 'module loader tricks'],
];
for (const file of jsFiles) {
	const rel = path.relative(dir, file);
	const text = fs.readFileSync(file, 'utf8');
	for (const [re, what] of forbidden) if (re.test(text)) problems.push(`${rel}: ${what}`);
	for (const m of text.matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g)) {
		const id = m[1];
		const name = id.startsWith('@') ? id.split('/').slice(0, 2).join('/') : id.split('/')[0];
		if (!id.startsWith('.') && !allowedModules.has(name)) problems.push(`${rel}: require("${id}") is not a module n8n provides to community nodes`);
	}
}
passed.push(`${jsFiles.length} compiled files: no forbidden modules or globals`);
console.log(JSON.stringify({ problems, passed }));
EOF
)
node -e '
	const r = JSON.parse(process.argv[1]);
	for (const p of r.passed) console.log("  ✔ " + p);
	for (const p of r.problems) console.log("  ✘ " + p);
	process.exit(r.problems.length ? 1 : 0);
' "$shape" || fail "package shape: see above"

# ---------------------------------------------------------------------------------------------
if [[ "${CHECK_PACKAGE_SKIP_LINT:-}" != 1 ]]; then
	step "npm run lint (n8n's community-node lint rules)"
	if npm run -s lint; then ok "lint clean"; else fail "npm run lint found problems"; fi
fi

# ---------------------------------------------------------------------------------------------
if [[ "${CHECK_PACKAGE_SKIP_SCAN:-}" != 1 ]]; then
	step "@n8n/scan-community-package@$SCAN_VERSION (offline: analyzePackage on the tarball and the sources)"
	scanner="$SCAN_CACHE_DIR/node_modules/@n8n/scan-community-package/scanner/scanner.mjs"
	if [[ ! -f "$scanner" ]]; then
		echo "  installing the scanner into $SCAN_CACHE_DIR"
		mkdir -p "$SCAN_CACHE_DIR"
		if ! npm install --silent --no-audit --no-fund --ignore-scripts --no-save --prefix "$SCAN_CACHE_DIR" \
			"@n8n/scan-community-package@$SCAN_VERSION" >/dev/null 2>"$work/scan-install.log"; then
			cat "$work/scan-install.log" >&2
			fail "could not install @n8n/scan-community-package@$SCAN_VERSION (offline? set CHECK_PACKAGE_SKIP_SCAN=1 to skip)"
		fi
	fi
	if [[ -f "$scanner" ]]; then
		# The sources as published: the shipped node/credential sources of the project.
		src="$work/source"
		mkdir -p "$src"
		cp -R package.json nodes credentials "$src/"
		if node --input-type=module - "$scanner" "$pkg" "$src" <<'EOF'
const [scanner, packageDir, sourceDir] = process.argv.slice(2);
const scan = await import(scanner);
// The CLI's two legs (analyzePackageByName): compiled tarball, then the attested sources.
const legs = [
	['tarball (dist/**/*.js, package.json)', packageDir, ['**/*.js', 'package.json']],
	['sources (nodes/, credentials/, package.json)', sourceDir, scan.SOURCE_FILE_PATTERNS],
];
let failed = 0;
for (const [name, dir, patterns] of legs) {
	const result = await scan.analyzePackage(dir, patterns);
	if (result.passed) {
		console.log(`  ✔ ${name}: passed`);
	} else {
		failed++;
		console.log(`  ✘ ${name}: ${result.message}`);
		if (result.details) console.log(result.details.replaceAll(sourceDir, '<project>').replaceAll(packageDir, '<tarball>'));
	}
}
process.exit(failed ? 1 : 0);
EOF
		then ok "scan-community-package checks passed"
		else fail "scan-community-package found violations (note: it ignores eslint-disable comments)"
		fi
	fi
fi

# ---------------------------------------------------------------------------------------------
if [[ "${CHECK_PACKAGE_SKIP_WORKFLOWS:-}" != 1 ]]; then
	step "GitHub Actions workflows (actionlint and the workflow schema, offline)"
	if scripts/lint-workflows.sh; then ok "workflows clean"; else fail "scripts/lint-workflows.sh found problems (offline on first use? set CHECK_PACKAGE_SKIP_WORKFLOWS=1 to skip)"; fi
fi

# ---------------------------------------------------------------------------------------------
echo
if (( ${#failures[@]} )); then
	echo "check-package: FAILED (${#failures[@]}):"
	for f in "${failures[@]}"; do echo "  - $f"; done
	exit 1
fi
echo "check-package: all checks passed ($tarball)"
