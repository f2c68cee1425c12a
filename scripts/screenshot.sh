#!/usr/bin/env bash
# The README's picture: the sample session (examples/sample-session.jsonl) in the viewer, drawn by
# headless Chromium with tests/js/viewer_browser.cjs, the browser tests' driver.
#
#   scripts/screenshot.sh [OUT.png]     # docs/viewer.png unless given
#
# Needs tests/js's packages (npm ci --prefix tests/js) and Debian's chromium. Uses
# $TOOLVIEW_BIN, else builds target/release/toolview. scripts/test.sh runs it into
# target/test-artifacts/ so the script keeps working; rerun it here when the viewer changes.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs/viewer.png}
bin=${TOOLVIEW_BIN:-}
if [ -z "$bin" ]; then
  cargo build --release --locked --bin toolview
  bin=target/release/toolview
fi
work=$(mktemp -d)
"$bin" serve --store memory --listen 127.0.0.1:0 >"$work/serve.out" 2>"$work/serve.err" &
server=$!
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do
  grep -q "listening on" "$work/serve.out" && break
  sleep 0.1
done
addr=$(sed -n 's/^toolview listening on //p' "$work/serve.out")
[ -n "$addr" ] || { cat "$work/serve.err" >&2; exit 1; }
"$bin" publish --server "$addr" --session demo <examples/sample-session.jsonl >/dev/null
# The driver waits for "published" on stdin, then for the last call (fetch-1) to complete.
echo published | VIEWPORT=960x700 node tests/js/viewer_browser.cjs "http://$addr" demo "$out" fetch-1 >/dev/null
echo "$out"
