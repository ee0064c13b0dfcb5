#!/usr/bin/env bash
# The MCP Inspector's CLI mode against `atlas-kit mcp`: the README's own example (a succeeding call, run from the
# README's line, so the two cannot drift), one failing call (an isError result, which the CLI prints and exits 0 on),
# and one unknown tool (a protocol error: exit 1).
# Run by .ci/run after the setup; needs Node and npm. Each CLI call starts a fresh server, so --ticket opens one.
# Inspector 0.15.0 is the last release without a Node >= 22 requirement; this machine's Node is 20.
set -uo pipefail
cd "$(dirname "$0")/.."

INSPECTOR_VERSION=0.15.0
server=("$PWD/.venv/bin/atlas-kit" mcp --ticket T04)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

fail() { echo "CI: MCP Inspector check failed: $*" >&2; exit 1; }

command -v npm >/dev/null || fail "npm is not installed; the Inspector comes from the npm registry."
echo "CI: installing @modelcontextprotocol/inspector@$INSPECTOR_VERSION from the npm registry"
npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "@modelcontextprotocol/inspector@$INSPECTOR_VERSION" >/dev/null \
  || fail "npm could not install @modelcontextprotocol/inspector@$INSPECTOR_VERSION."
inspector="$dir/node_modules/.bin/mcp-inspector"

call() {  # call EXPECTED_EXIT NAME -- INSPECTOR ARGS...; prints the output, fails on another exit code
  local want=$1 name=$2; shift 3
  out=$(timeout 120 "$inspector" --cli "${server[@]}" "$@" 2>&1)
  rc=$?
  echo "CI: inspector $name: exit $rc"
  [ "$rc" -eq "$want" ] || fail "$name exited $rc, expected $want. Output: $out"
}

# The README's example, word for word after `atlas-kit" mcp`: the server's options, then the Inspector's request.
example=$(grep -m1 -F 'inspector@'"$INSPECTOR_VERSION"' --cli "$PWD/.venv/bin/atlas-kit" mcp ' README.md) \
  || fail "README.md has no Inspector CLI example for $INSPECTOR_VERSION (a line with --cli \"\$PWD/.venv/bin/atlas-kit\" mcp)."
read -r -a words <<<"${example#*atlas-kit\" mcp }"
out=$(timeout 120 "$inspector" --cli "$PWD/.venv/bin/atlas-kit" mcp "${words[@]}" 2>&1)
rc=$?
echo "CI: inspector README example (mcp ${words[*]}): exit $rc"
[ "$rc" -eq 0 ] || fail "the README's Inspector example exited $rc, expected 0. Output: $out"
grep -q '"isError": true' <<<"$out" && fail "the README's Inspector example is an error; fix the line in README.md: $out"
grep -q 'ACC-4471' <<<"$out" || fail "the README's Inspector example did not return the account: $out"

call 0 "failing call (get_account 4471)" -- --method tools/call --tool-name get_account --tool-arg account_id=4471
grep -q '"isError": true' <<<"$out" || fail "the failing call is not an isError result: $out"
grep -q 'invalid_argument' <<<"$out" || fail "the failing call's text is not the contract body: $out"
grep -q '"structuredContent"' <<<"$out" || fail "the failing call has no structuredContent: $out"

call 1 "unknown tool (a protocol error)" -- --method tools/call --tool-name refund_everything
message=$(grep -o 'MCP error -32602: .*' <<<"$out" | head -1)  # the server's words; the Inspector adds its own prefix
grep -q 'No tool has that name' <<<"$message" || fail "the unknown tool is not the server's -32602 protocol error: $out"
grep -q 'refund_everything' <<<"$message" && fail "the server's protocol error echoes the tool name: $message"

echo "CI: MCP Inspector CLI: the README's example succeeds, the failing call is isError (exit 0), the unknown tool exits 1"
