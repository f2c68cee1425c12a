#!/usr/bin/env bash
# Runs every cargo-fuzz target (tests/fuzz) for a bounded time each: `scripts/fuzz.sh [SECONDS]`
# (default 30). Installs cargo-fuzz if missing. libFuzzer needs nightly flags; the stable
# toolchain accepts them with RUSTC_BOOTSTRAP=1. A crash stops the run and leaves its input in
# tests/fuzz/artifacts/<target>/; turn it into a regression test before fixing it.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-30}"

if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install --locked cargo-fuzz
fi
export RUSTC_BOOTSTRAP=1

targets=$(cargo fuzz list --fuzz-dir tests/fuzz)
cargo fuzz build --fuzz-dir tests/fuzz
for target in $targets; do
  echo "== fuzz $target (${seconds}s)"
  mkdir -p "tests/fuzz/corpus/$target"
  # -rss_limit_mb: a bounded multiple of the input is the rule; 2 GiB flags a blow-up.
  log="tests/fuzz/artifacts/$target.log"
  mkdir -p tests/fuzz/artifacts
  # The corpus grows in corpus/ (not committed); seeds/ holds committed starting inputs.
  if ! cargo fuzz run --fuzz-dir tests/fuzz "$target" "tests/fuzz/corpus/$target" \
    "tests/fuzz/seeds/$target" -- \
    -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 -timeout=20 \
    -print_final_stats=1 >"$log" 2>&1; then
    tail -n 60 "$log" >&2
    echo "fuzz $target failed; the input is in tests/fuzz/artifacts/$target/" >&2
    exit 1
  fi
  grep -E '^stat::(number_of_executed_units|peak_rss_mb)' "$log" || true
done
