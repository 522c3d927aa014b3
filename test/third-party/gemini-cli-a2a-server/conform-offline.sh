#!/bin/sh
# Runs `a2a-hub conform` against @google/gemini-cli-a2a-server inside a network namespace of its
# own, where loopback is the only interface: the agent's start-up fetches (ripgrep, telemetry)
# and its model calls fail at once instead of leaving the machine. Started by
# test/conformance/gemini-cli.test.ts as `unshare -n sh conform-offline.sh <report.json> [conform flags…]`.
set -eu
report="$1"
shift
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
ip link set lo up
work=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$work/home" "$work/tmp" "$work/workspace"
cd "$work/workspace"
# A fresh HOME and TMPDIR keep what it writes (~/.gemini, error dumps) in the scratch folder; the
# key is never used: no model endpoint is reachable from here.
env -i PATH="$PATH" HOME="$work/home" TMPDIR="$work/tmp" GEMINI_API_KEY=offline-conformance-run \
  node "$here/node_modules/@google/gemini-cli-a2a-server/dist/a2a-server.mjs" >"$work/server.log" 2>&1 &
server=$!
port=''
for _ in $(seq 1 200); do
  port=$(sed -n 's/.*Agent Server started on http:\/\/localhost:\([0-9]*\).*/\1/p' "$work/server.log" | head -n 1)
  [ -n "$port" ] && break
  kill -0 "$server" 2>/dev/null || { cat "$work/server.log" >&2; echo "the agent exited before it listened" >&2; exit 3; }
  sleep 0.1
done
[ -n "$port" ] || { cat "$work/server.log" >&2; echo "the agent did not listen within 20 s" >&2; exit 3; }
cd "$repo"
status=0
node src/cli/bin.js conform "http://localhost:$port/" --json "$report" "$@" >"$work/conform.log" 2>&1 || status=$?
# 0: no MUST failed, 1: one did; both wrote the report. Anything else is the suite's own failure.
if [ "$status" -gt 1 ]; then cat "$work/conform.log" >&2; fi
exit "$status"
