//! The official client libraries, SDKs and frameworks against real servers (the full suite's
//! interop part: Node, Python and tmux, installed by `scripts/test.sh`): the ACP SDK client over
//! `toolview acp`, AG-UI's `HttpAgent`, the AI SDK, the MCP SDKs and MCP Inspector, the
//! OpenTelemetry emitters, both toolview client libraries in several languages, grpcurl
//! reflection, and `tail` in a real terminal.
//!
//! One test crate for many suites; each suite is a module.

pub(crate) mod acp_agent;
mod acp_sessions;
mod agui;
mod agui_activity;
mod agui_runs;
mod ai_sdk;
mod call_shapes;
mod conversation;
mod mcp_apps;
mod mcp_inspector;
mod mcp_server;
mod otlp_emitters;
mod permission_clients;
mod polyglot;
mod reflection;
mod tail_tui;
mod webhooks;
