//! The API against real servers, in Rust only (the middle test loop: no Node, Python, browser or
//! tmux): sessions, rendering, auth, TLS, metrics, the CLI, the HTTP endpoints' refusals and
//! cross-origin rules, OTLP, bad bytes on the wire, the journal and the stored-format fixture.
//! The official clients and frameworks against the same servers are `tests/interop`.
//!
//! One test crate (one link of the library) for many suites; each suite is a module.

mod auth;
mod cli;
mod cross_origin;
mod fleet_sse;
mod grpc_present;
mod grpc_render;
mod http_refusals;
mod journal;
mod late_joiners;
mod list_sessions;
mod metrics;
mod otlp;
mod otlp_order;
mod permissions;
mod sessions;
mod store_fixture;
mod summaries;
mod tls;
mod wire;
