#!/usr/bin/env bash
# The container image tested for real on a machine that pulls no images: builds the Dockerfile's
# runtime stage (the one `docker build .` ships) on a Debian 12 base made here with debootstrap,
# with the binary built on this host (BINARY_FROM), then runs it read-only, non-root, with every
# capability dropped; waits for `healthy`; publishes and subscribes through it; restarts it on the
# same volume and checks the replay is byte-identical; checks `docker stop` ends it with exit 0
# (a graceful stop, not a kill at the end of the grace period).
#
# Needs root, dockerd and debootstrap (apt: docker.io debootstrap). Starts its own dockerd (no
# bridge, no iptables) on a private socket and stops it, by PID, when done. The base image tree
# is kept in $WORK (default /var/tmp/toolview-container) for the next run.
set -euo pipefail
cd "$(dirname "$0")/.."

WORK=${TOOLVIEW_CONTAINER_WORK:-/var/tmp/toolview-container}
BASE_IMAGE=local/bookworm-minbase:12
BINARY_IMAGE=local/toolview-binary:test
IMAGE=toolview:container-test
NAME=toolview-container-test
VOLUME=toolview-container-test-data
# Ports on the host network: the API and the admin listener (health, metrics).
PORT=${TOOLVIEW_CONTAINER_PORT:-50351}
ADMIN_PORT=${TOOLVIEW_CONTAINER_ADMIN_PORT:-50352}
# docker stop's grace before SIGKILL; the server's own shutdown grace is 10 s.
STOP_GRACE=30

for tool in dockerd debootstrap; do
  command -v "$tool" >/dev/null || { echo "container-test: $tool is missing (apt-get install docker.io debootstrap)" >&2; exit 1; }
done
# The client of the same Docker release as the daemon (docker.io), on our private socket.
DOCKER_BIN=/usr/bin/docker
[ -x "$DOCKER_BIN" ] || DOCKER_BIN=$(command -v docker)
mkdir -p "$WORK"
SOCK="$WORK/docker.sock"
docker() { "$DOCKER_BIN" -H "unix://$SOCK" "$@"; }

DOCKERD_PID=
TAIL_PID=
cleanup() {
  set +e
  [ -n "$TAIL_PID" ] && kill "$TAIL_PID" 2>/dev/null
  if [ -n "$DOCKERD_PID" ]; then
    docker rm -f "$NAME" >/dev/null 2>&1
    docker volume rm "$VOLUME" >/dev/null 2>&1
    kill "$DOCKERD_PID"
    wait "$DOCKERD_PID" 2>/dev/null
  fi
}
trap cleanup EXIT

echo "== release build of the binary (features: jetstream, as the image's default)"
cargo build --release --locked --package toolview --bin toolview --features jetstream
TOOLVIEW=$PWD/target/release/toolview

echo "== dockerd on $SOCK"
dockerd --bridge=none --iptables=false --ip6tables=false \
  --data-root="$WORK/data" --exec-root="$WORK/exec" --pidfile="$WORK/dockerd.pid" \
  -H "unix://$SOCK" >"$WORK/dockerd.log" 2>&1 &
DOCKERD_PID=$!
for _ in $(seq 1 120); do
  docker info >/dev/null 2>&1 && break
  kill -0 "$DOCKERD_PID" 2>/dev/null || { cat "$WORK/dockerd.log" >&2; exit 1; }
  sleep 0.5
done
docker info >/dev/null || { cat "$WORK/dockerd.log" >&2; exit 1; }

if ! docker image inspect "$BASE_IMAGE" >/dev/null 2>&1; then
  echo "== base image $BASE_IMAGE (debootstrap --variant=minbase bookworm)"
  rm -rf "$WORK/rootfs"
  debootstrap --variant=minbase bookworm "$WORK/rootfs" >"$WORK/debootstrap.log" 2>&1 \
    || { tail -20 "$WORK/debootstrap.log" >&2; exit 1; }
  tar -C "$WORK/rootfs" -c . | docker import - "$BASE_IMAGE" >/dev/null
  rm -rf "$WORK/rootfs"
fi

echo "== $BINARY_IMAGE (the host-built binary, laid out as the builder stage leaves it)"
STAGE=$(mktemp -d)
install -D -m 0755 "$TOOLVIEW" "$STAGE/out/toolview"
install -d -m 0700 "$STAGE/out/data"
tar -C "$STAGE" --owner=0 --group=0 -c out | docker import - "$BINARY_IMAGE" >/dev/null
rm -rf "$STAGE"

echo "== the Dockerfile's runtime stage"
# BuildKit (built into this dockerd) builds only the stages the target needs: the Rust stages,
# whose base image cannot be pulled here, are skipped.
DOCKER_BUILDKIT=1 docker build --quiet --target runtime \
  --build-arg BINARY_FROM="$BINARY_IMAGE" --build-arg RUNTIME_BASE="$BASE_IMAGE" \
  -t "$IMAGE" . >/dev/null
test "$(docker image inspect -f '{{.Config.User}}' "$IMAGE")" = "10001:10001"

run_container() {
  docker run -d --name "$NAME" --read-only --network host --cap-drop ALL \
    --security-opt no-new-privileges --health-interval 1s --health-start-period 60s \
    -v "$VOLUME:/data" \
    -e TOOLVIEW_LISTEN="127.0.0.1:$PORT" -e TOOLVIEW_METRICS_LISTEN="127.0.0.1:$ADMIN_PORT" \
    "$IMAGE" >/dev/null
  for _ in $(seq 1 120); do
    status=$(docker inspect -f '{{.State.Health.Status}}' "$NAME")
    [ "$status" = healthy ] && return 0
    [ "$(docker inspect -f '{{.State.Running}}' "$NAME")" = true ] || break
    sleep 0.5
  done
  echo "container-test: the container did not become healthy (last: $status)" >&2
  docker logs "$NAME" >&2
  exit 1
}

stop_container() {
  local started=$SECONDS
  docker stop -t "$STOP_GRACE" "$NAME" >/dev/null
  code=$(docker inspect -f '{{.State.ExitCode}}' "$NAME")
  echo "   stopped in $((SECONDS - started)) s (grace $STOP_GRACE s), exit code $code"
  if [ "$code" != 0 ]; then
    echo "container-test: docker stop ended the container with exit code $code, not 0" >&2
    docker logs "$NAME" >&2
    exit 1
  fi
  docker rm "$NAME" >/dev/null
}

echo "== run: read-only root, uid 10001, no capabilities, host network"
docker rm -f "$NAME" >/dev/null 2>&1 || true
docker volume rm "$VOLUME" >/dev/null 2>&1 || true
run_container
test "$(docker inspect -f '{{.Config.User}}' "$NAME")" = "10001:10001"
test "$(docker inspect -f '{{.HostConfig.ReadonlyRootfs}}' "$NAME")" = true
test "$(docker exec "$NAME" /usr/local/bin/toolview health)" = SERVING
SERVER="http://127.0.0.1:$PORT"

echo "== publish and subscribe through it"
LIVE=$(mktemp)
# Subscribed before the session's first event: it gets every event live.
"$TOOLVIEW" tail --server "$SERVER" --session container --target markdown --from-beginning >"$LIVE" &
TAIL_PID=$!
"$TOOLVIEW" publish --server "$SERVER" --session container <examples/sample-session.jsonl >/dev/null
for _ in $(seq 1 100); do
  grep -q 'vitest.dev/guide/ (HTTP 200)' "$LIVE" && break
  sleep 0.2
done
kill "$TAIL_PID"; wait "$TAIL_PID" 2>/dev/null || true; TAIL_PID=
grep -q 'Tool Call: Edit src/app.ts' "$LIVE" || { echo "container-test: the live subscriber saw: $(cat "$LIVE")" >&2; exit 1; }
rm -f "$LIVE"
BEFORE=$(mktemp); AFTER=$(mktemp)
"$TOOLVIEW" tail --server "$SERVER" --session container --target acp --terminal --no-follow >"$BEFORE"
grep -q '"sessionUpdate":"tool_call"' "$BEFORE" \
  || { echo "container-test: the replay has no tool call: $(cat "$BEFORE")" >&2; exit 1; }

echo "== metrics"
METRICS=$(exec 3<>"/dev/tcp/127.0.0.1/$ADMIN_PORT"; printf 'GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' >&3; cat <&3)
grep -q 'toolview_published_events_total{result="appended"} 13' <<<"$METRICS" \
  || { echo "container-test: no publish counted in: $METRICS" >&2; exit 1; }

echo "== docker stop (graceful: exit 0) and a restart on the same volume"
stop_container
run_container
"$TOOLVIEW" tail --server "$SERVER" --session container --target acp --terminal --no-follow >"$AFTER"
cmp "$BEFORE" "$AFTER" || { echo "container-test: the replay after the restart differs" >&2; exit 1; }
echo "   replay after the restart: $(wc -c <"$AFTER") bytes, identical"
stop_container
rm -f "$BEFORE" "$AFTER"
echo "container-test: ok (image $(docker image inspect -f '{{.Size}}' "$IMAGE") bytes)"
