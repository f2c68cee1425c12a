//! Wiring: configuration, the server, the command line, logging and signals.
//!
//! Where things are: typed config (`clap`, flags + `TOOLVIEW_*`, defaults as named constants),
//! `server.rs` (`run(listener, config, shutdown)` = `Server::open` (store) + `serve` (sessions,
//! health following the store, reflection v1 + v1alpha, graceful shutdown, TTL sweeper)),
//! `listen.rs` (the connection layer on hyper-util: accept with backoff, the connection cap,
//! handshake (TLS included) and HTTP/1 header timeouts, HTTP/2 keepalive and limits, graceful
//! drain), `tls.rs` (rustls with `ring`, ALPN `h2`/`http/1.1`, optional client certificates, a
//! configuration swapped on SIGHUP), `mcp.rs` (the MCP server at `/mcp`: `client::mcp`'s handler over
//! the gRPC services in process), the CLI commands (`token` mints development tokens)

pub mod cli;
pub mod commands;
pub mod config;
pub mod listen;
pub mod nats;
pub mod observe;
pub mod otlp_config;
pub mod server;
pub mod tls;
pub mod web;
pub mod webhook_config;

pub use config::ServeConfig;
pub use server::{Server, run};
