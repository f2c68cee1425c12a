# toolview's container image.
#
#   docker build -t toolview .
#   docker run --rm -p 127.0.0.1:50051:50051 -v toolview-data:/data toolview serve --insecure-no-auth
#
# A Rust stage builds the binary (dependencies cached in their own layer by cargo-chef); the
# runtime is distroless (glibc and libgcc, no shell, no package manager) running as uid 10001,
# with the embedded store's data in the /data volume and a read-only root filesystem.
# Build arguments:
#   FEATURES      cargo features of the binary: `jetstream` (the default) lets one image serve
#                 both the embedded and the JetStream store; empty for the embedded store only.
#   RUNTIME_BASE  the runtime's base image (any glibc Debian 12 image works).
#   BINARY_FROM   where the binary comes from: the `builder` stage (the default), or an image
#                 holding /out/toolview and an empty /out/data (scripts/container-test.sh
#                 builds one from a host-built binary, since its machines pull no images).
ARG RUST_IMAGE=rust:1.95-bookworm
ARG RUNTIME_BASE=gcr.io/distroless/cc-debian12:nonroot
ARG BINARY_FROM=builder

FROM ${RUST_IMAGE} AS chef
RUN cargo install cargo-chef --locked --version 0.1.78
WORKDIR /src

FROM chef AS planner
COPY . .
RUN cargo chef prepare --recipe-path recipe.json

FROM chef AS builder
ARG FEATURES=jetstream
COPY --from=planner /src/recipe.json recipe.json
RUN cargo chef cook --release --locked --package toolview --features "${FEATURES}" --recipe-path recipe.json
COPY . .
RUN cargo build --release --locked --package toolview --bin toolview --features "${FEATURES}" \
 && install -D -m 0755 target/release/toolview /out/toolview \
 && install -d -m 0700 /out/data

FROM ${BINARY_FROM} AS binary

FROM ${RUNTIME_BASE} AS runtime
COPY --from=binary /out/toolview /usr/local/bin/toolview
COPY --from=binary --chown=10001:10001 /out/data /data
# Reachable from outside the container: a server on a non-loopback address refuses to start
# without a decision about auth (--auth jwt, or --insecure-no-auth). The admin listener serves
# health (for the HEALTHCHECK and Kubernetes probes, in plaintext even with TLS on the API port)
# and Prometheus metrics.
ENV TOOLVIEW_LISTEN=0.0.0.0:50051 \
    TOOLVIEW_METRICS_LISTEN=0.0.0.0:9090 \
    TOOLVIEW_DATA_DIR=/data \
    TOOLVIEW_LOG_FORMAT=json
USER 10001:10001
VOLUME ["/data"]
EXPOSE 50051 9090
# `toolview health` asks the admin listener this environment configures (no shell needed).
HEALTHCHECK --interval=10s --timeout=6s --start-period=60s --retries=3 \
  CMD ["/usr/local/bin/toolview", "health"]
# SIGTERM (Docker's and Kubernetes' stop signal) starts a graceful shutdown, PID 1 included.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/toolview"]
CMD ["serve"]
