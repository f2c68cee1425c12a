//! toolview: a gRPC presentation service for AI-agent tool calls.
//!
//! Layers, in dependency order (see `ARCHITECTURE.md`): [`domain`] (the render-intent union,
//! events, ids) ← [`present`] (tool calls → cards) ← [`render`] (cards × capabilities → typed
//! events) ← [`session`] (publish rules, lanes, subscriptions, over a [`store`]); [`ingest`]
//! (telemetry → events, pure); the edges [`grpc`], [`http`], [`otlp`] and [`mcp`], with
//! [`auth`], [`error`] and [`metrics`]; [`client`] (the CLI's client programs, never used by the
//! server); [`app`] wires it all together. Wire types are named only by the edges and the
//! client.

pub mod app;
pub mod auth;
pub mod client;
pub mod domain;
pub mod error;
pub mod grpc;
pub mod http;
pub mod ingest;
pub mod mcp;
pub mod metrics;
pub mod otlp;
pub mod present;
pub mod render;
pub mod session;
pub mod store;
pub mod webhook;
