//! toolview: a gRPC presentation service for AI-agent tool calls.
//!
//! Layers, in dependency order (see `ARCHITECTURE.md`): [`domain`] (the render-intent union,
//! events, ids) ← [`present`] (tool calls → cards) ← `render` (cards × capabilities → bytes);
//! [`grpc`] is the only module that names generated types; [`app`] wires it all together.

pub mod agui;
pub mod aisdk;
pub mod app;
pub mod auth;
pub mod client;
pub mod domain;
pub mod error;
pub mod grpc;
pub mod http_edge;
pub mod metrics;
pub mod present;
pub mod render;
pub mod session;
pub mod store;
