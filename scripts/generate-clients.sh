#!/usr/bin/env bash
# Generates the client libraries' protobuf code from proto/ (committed, so that installing a
# package needs no protoc): clients/python/src/toolview/v1 (messages, .pyi stubs, gRPC stubs) and
# clients/typescript/src/gen (protoc-gen-es); and the sync Python client from the asyncio one
# (clients/python/src/toolview/client.py from aio.py, by unasync). The generators' versions are
# pinned here and in clients/typescript/package-lock.json, so a run on any machine writes the
# same bytes.
#
#   scripts/generate-clients.sh          # regenerate in place
#   scripts/generate-clients.sh --check  # fail when the committed code is not what it gives
set -euo pipefail
cd "$(dirname "$0")/.."

# grpcio-tools bundles protoc and the protobuf version the Python code is generated for;
# clients/python/pyproject.toml requires at least these runtimes.
GRPCIO_TOOLS=1.85.1
# The sync Python client is made from the asyncio one (scripts/unasync_client.py), then
# formatted as the package is (clients-test.sh pins the same ruff).
UNASYNC=0.6.0
RUFF=0.14.8

check=false
[ "${1:-}" = "--check" ] && check=true

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# Python: a venv of its own under target/, made once per pinned version.
venv=target/generate-clients/venv-$GRPCIO_TOOLS-$UNASYNC-$RUFF
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "grpcio-tools==$GRPCIO_TOOLS" \
    "unasync==$UNASYNC" "ruff==$RUFF"
fi
mkdir -p "$out/python"
"$venv/bin/python" -m grpc_tools.protoc -Iproto \
  --python_out="$out/python" --pyi_out="$out/python" --grpc_python_out="$out/python" \
  proto/toolview/v1/*.proto
# Only the services have gRPC stubs; protoc writes an empty module for the others.
for f in "$out"/python/toolview/v1/*_pb2_grpc.py; do
  grep -q 'class .*Stub' "$f" || rm "$f"
done

# The sync client, from the asyncio one: unasync, then ruff's import order and format.
client=clients/python/src/toolview/client.py
"$venv/bin/python" scripts/unasync_client.py clients/python/src/toolview/aio.py "$out/client.raw.py"
"$venv/bin/ruff" check --quiet --select I --fix --stdin-filename "$client" - <"$out/client.raw.py" \
  | "$venv/bin/ruff" format --quiet --stdin-filename "$client" - >"$out/client.py"

# TypeScript: protoc-gen-es from the package's own (locked) devDependencies, run by buf.
npm ci --prefix clients/typescript --no-audit --no-fund --loglevel=error >/dev/null
(cd clients/typescript && node_modules/.bin/buf generate ../../proto --path ../../proto/toolview/v1 --template buf.gen.yaml -o "$out/typescript")

python_dir=clients/python/src/toolview/v1
ts_dir=clients/typescript/src/gen
if $check; then
  status=0
  # The package's own __init__.py is not generated.
  diff -r -x __init__.py -x __pycache__ "$out/python/toolview/v1" "$python_dir" || status=1
  diff -r "$out/typescript" "$ts_dir" || status=1
  diff "$out/client.py" "$client" || status=1
  if [ $status -ne 0 ]; then
    echo "the generated client code is stale: run scripts/generate-clients.sh and commit" >&2
    exit 1
  fi
  echo "generated client code is current"
else
  find "$python_dir" -name '*_pb2*' -delete
  cp "$out"/python/toolview/v1/* "$python_dir/"
  rm -rf "$ts_dir"
  cp -r "$out/typescript" "$ts_dir"
  cp "$out/client.py" "$client"
  echo "wrote $python_dir, $client and $ts_dir"
fi
