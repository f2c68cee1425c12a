//! The API against real servers (in process on port 0, or the binary as a process): sessions, rendering, reflection, the CLI, the ACP agent, AG-UI, auth, metrics, TLS, bad bytes on the wire, the journal and the stored-format fixture.
//!
//! One test crate (one link of the library) for many suites; each suite is a module.

pub(crate) mod acp_agent;
mod acp_sessions;
mod agui;
mod agui_activity;
mod agui_runs;
mod ai_sdk;
mod auth;
mod call_shapes;
mod cli;
mod conversation;
mod cross_origin;
mod grpc_present;
mod grpc_render;
mod http_refusals;
mod journal;
mod late_joiners;
mod list_sessions;
mod mcp_apps;
mod mcp_inspector;
mod mcp_server;
mod metrics;
mod otlp;
mod otlp_emitters;
mod otlp_order;
mod permission_clients;
mod permissions;
mod polyglot;
mod reflection;
mod sessions;
mod store_fixture;
mod tail_tui;
mod tls;
mod wire;
