//! toolview: a gRPC presentation service for AI-agent tool calls.
//!
//! Layers, in dependency order (see `ARCHITECTURE.md`): [`domain`] (the render-intent union,
//! events, ids) ← [`present`] (tool calls → cards) ← [`render`] (cards × capabilities → typed
//! events) ← [`session`] (publish rules, lanes, subscriptions, over a [`store`]); the edges
//! [`grpc`] and [`http`], with [`auth`], [`error`] and [`metrics`]; [`client`] (the CLI's client
//! programs); [`app`] wires it all together. [`grpc`] and [`client`] are the only modules that
//! name generated types.

pub mod app;
pub mod auth;
pub mod client;
pub mod domain;
pub mod error;
pub mod grpc;
pub mod http;
pub mod ingest;
pub mod metrics;
pub mod otlp;
pub mod present;
pub mod render;
pub mod session;
pub mod store;
