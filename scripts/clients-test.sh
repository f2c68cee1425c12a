#!/usr/bin/env bash
# The client packages as a user gets them: each is built (`python -m build`, `npm pack`),
# installed into a clean venv / directory, and its tests run there against a real server (the
# debug binary, built here with the features `cargo test` uses, so nothing is rebuilt). First
# the generated code is checked against proto/.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== generated client code is current (scripts/generate-clients.sh --check)"
scripts/generate-clients.sh --check

cargo build --locked -p toolview --bin toolview --features toolview/failpoints,toolview/jetstream
export TOOLVIEW_BIN=$PWD/target/debug/toolview
work=$PWD/target/clients
rm -rf "$work"
mkdir -p "$work"

echo "== clients/python: python -m build, then pip install into a clean venv, then pytest"
python3 -m venv "$work/build-venv"
"$work/build-venv/bin/pip" install --quiet --disable-pip-version-check build
"$work/build-venv/bin/python" -m build --wheel --outdir "$work/dist" clients/python >/dev/null
wheel=$(ls "$work"/dist/toolview-*.whl)
python3 -m venv "$work/venv"
# The adapters' frameworks and pytest are the package's own extras, pinned here to the versions
# the tests were written against.
# The linters and grpcio's and protobuf's type stubs, pinned the same way.
"$work/venv/bin/pip" install --quiet --disable-pip-version-check "$wheel[claude,openai-agents,test]" \
  claude-agent-sdk==0.2.189 openai-agents==0.24.0 pytest==9.2.0 mypy==2.4.1 ruff==0.14.8 \
  types-grpcio==1.85.0.20261028 types-protobuf==7.35.1.20261122
# Lint and format (the generated code left out: pyproject.toml's [tool.ruff]).
"$work/venv/bin/ruff" check clients/python
"$work/venv/bin/ruff" format --check clients/python
# The package is typed (py.typed, .pyi for the generated messages): mypy --strict checks it as
# installed, with the package's own configuration.
"$work/venv/bin/python" -m mypy --strict --config-file clients/python/pyproject.toml --no-incremental -p toolview
(cd "$work" && "$work/venv/bin/python" -m pytest -q -p no:cacheprovider "$OLDPWD/clients/python/tests")

echo "== clients/typescript: biome (lint, format), the type-level test of the declarations"
npm ci --prefix clients/typescript --no-audit --no-fund --loglevel=error
(cd clients/typescript && npm run --silent build && npm run --silent lint && npm run --silent typecheck)

echo "== clients/typescript: npm pack, then npm install into a clean directory, then node --test"
tarball=$(cd clients/typescript && npm pack --silent --pack-destination "$work")
mkdir -p "$work/npm"
echo '{ "private": true, "type": "module" }' > "$work/npm/package.json"
# With the frameworks the adapters' tests drive. --omit=optional leaves out the Claude Agent
# SDK's native Claude Code binaries (about 400 MB; the test stands in for Claude Code), so the
# OpenAI Agents SDK's one optional dependency is named outright.
npm install --prefix "$work/npm" --omit=optional --no-audit --no-fund --loglevel=error "$work/$tarball" \
  @openai/agents-core@0.20.0 @modelcontextprotocol/client@2.4.0 zod@4.6.7 @anthropic-ai/claude-agent-sdk@0.3.336 \
  ai@7.0.185
cp -r clients/typescript/test "$work/npm/test"
(cd "$work/npm" && node --test test/*.test.mjs)

echo "== clients/react: biome (lint, format), the type-level test, the bundle sizes"
npm ci --prefix clients/react --no-audit --no-fund --loglevel=error
(cd clients/react && npm run --silent build && npm run --silent lint && npm run --silent typecheck && npm run --silent size)

echo "== clients/react: npm pack (with @toolview/client's), npm install into a clean directory with React, node --test"
react_tarball=$(cd clients/react && npm pack --silent --pack-destination "$work")
mkdir -p "$work/react"
echo '{ "private": true, "type": "module" }' > "$work/react/package.json"
npm install --prefix "$work/react" --no-audit --no-fund --loglevel=error "$work/$tarball" "$work/$react_tarball" \
  react@19.2.1 react-dom@19.2.1
cp -r clients/react/test "$work/react/test"
(cd "$work/react" && TOOLVIEW_REPO="$OLDPWD" node --test test/*.test.mjs)
