//! The command line's client programs: `publish`, `tail`, `health`, the offline `render`, and
//! `toolview acp` (an ACP agent for editors). With `grpc` (the server's edge), the only module
//! that names generated types; it uses the server's code only through the API, as any client
//! would.
//!
//! Where things are: `remote.rs` (`Remote`: address, TLS, bearer token → a connected `Client`;
//! `health`), `follow.rs` (`Follower`: follows a session after its last `Cursor` with the one retry
//! policy — transient codes only, backoff 250 ms doubling to 10 s with jitter, a `Reset` restarts
//! from the beginning — and says so as `Followed` items), `tail.rs` (`toolview tail` on a
//! `Follower`: a waiting notice, AG-UI and AI SDK output framed by `render::StreamFrame`; ANSI and Markdown drawn
//! by `screen.rs` from VIEW updates with appends, with the server's own card renderers: a terminal's
//! running cards redrawn in place, a pipe's live lines, a transcript; each card once), `publish.rs` (`publish`: events
//! from a pipe as they arrive), `failure.rs` (a failed call or connection as a person reads it,
//! with a hint for the first-run ones), `approve.rs` (`toolview approve`: answers a permission request), `keys.rs` (`tail --approve`: a key
//! per option answers the pending request), `lines.rs` (offline `render` of JSON lines), `json.rs` (the protobuf JSON mapping of events via
//! `prost-reflect` and the embedded descriptor set), `acp.rs` (`toolview acp`: an ACP agent over
//! stdio for editors, JSON-RPC lines built with the ACP schema crate: `initialize`, `session/load`
//! — history, then the answer, then live —, `session/new`, `session/prompt`; forwards the session's
//! ACP rendering through a `Follower`; an error that retrying cannot fix reaches the editor as a
//! JSON-RPC error or an agent message), `acp_relay.rs` (permission requests asked of the editor with
//! `session/request_permission`, answered through `PermissionService`, withdrawn with
//! `$/cancel_request`), `throttle.rs` (`toolview acp`'s one policy for input replacements: at
//! most one `rawInput` per call per period, the latest winning, sans-I/O), `uncoloured.rs` (the
//! ANSI drawing without its colours, for a pipe or `NO_COLOR`)

pub mod acp;
mod acp_relay;
mod approve;
mod failure;
mod follow;
mod json;
mod keys;
mod lines;
pub mod mcp;
mod publish;
mod remote;
pub mod screen;
pub mod tail;
mod throttle;
pub mod uncoloured;

pub use approve::{Answer, approve};
pub use follow::{Followed, Follower};
pub use lines::{print_framed, print_update, read_events, render_offline};
pub use publish::publish;
pub use remote::{Bearer, Client, Remote, connect, health};
pub use throttle::DEFAULT_INPUT_THROTTLE_MS;
