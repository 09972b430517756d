# shellcheck shell=bash
# The README's commands, read from README.md so that CI runs them as written (issue 45): every
# command line of its ```bash blocks, comments and blank lines dropped, as "<block number><TAB>
# <command>". .ci/run sources this file; test/docs/readmeCommands.test.ts checks what it finds.
readme_command_lines() {
	awk '
		/^```bash[[:space:]]*$/ { inside = 1; block++; next }
		/^```/ { inside = 0; next }
		inside {
			line = $0
			sub(/[[:space:]]*#.*$/, "", line)
			sub(/^[[:space:]]+/, "", line)
			if (line != "") print block "\t" line
		}
	' "${1:-README.md}"
}

# The commands of the block that holds `npm test` (the README's two commands and `npm ci`), one a line.
readme_main_block() {
	local lines block
	lines="$(readme_command_lines "$@")"
	block="$(awk -F '\t' '$2 == "npm test" { print $1; exit }' <<<"$lines")"
	[[ -n "$block" ]] || { echo "README.md: no bash block holds \`npm test\`" >&2; return 1; }
	awk -F '\t' -v block="$block" '$1 == block { print $2 }' <<<"$lines"
}

# The first README command that starts with the given words (e.g. "npm run demo -- --once").
readme_command_starting() {
	local prefix="$1"
	shift
	readme_command_lines "$@" | cut -f 2- | awk -v prefix="$prefix" 'index($0, prefix) == 1 && (length($0) == length(prefix) || substr($0, length(prefix) + 1, 1) == " ") { print; found = 1; exit } END { exit !found }'
}

# Runs the README's interactive demo command as written until it prints its welcome (n8n up, the
# credential and workflows in place), checks that n8n answers at the address it printed, then
# presses Ctrl-C as a terminal does (SIGINT to the command's process group) and expects the demo to
# say it stopped, with npm's own exit status for Ctrl-C (130) or 0.
readme_demo_until_ready() {
	local command="$1" log="$2" timeout="${3:-900}" pid url rc=0
	# Its own process group, as a terminal's foreground job (setsid: a background job here ignores SIGINT).
	setsid bash -c "trap - INT; exec $command" >"$log" 2>&1 &
	pid=$!
	for ((waited = 0; waited < timeout; waited++)); do
		grep -q 'Ctrl-C stops n8n and the simulator' "$log" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 1
	done
	url="$(grep -oE 'n8n with the Personnel Data nodes: +http://[^ ]+' "$log" | grep -oE 'http://[^ ]+' || true)"
	if [[ -z "$url" ]] || ! curl -fsS "$url/healthz" >/dev/null; then
		kill -TERM -- "-$pid" 2>/dev/null || true
		wait "$pid" || true
		tail -n 40 "$log"
		echo "\`$command\` did not bring n8n up within ${timeout}s" >&2
		return 1
	fi
	echo "\`$command\`: n8n up at $url after ${waited}s; Ctrl-C"
	kill -INT -- "-$pid"
	wait "$pid" || rc=$?
	tail -n 3 "$log"
	if ! { ((rc == 0 || rc == 130)) && tail -n 1 "$log" | grep -q '\[demo\] stopped'; }; then
		echo "\`$command\` did not stop cleanly after Ctrl-C (exit $rc)" >&2
		return 1
	fi
}
