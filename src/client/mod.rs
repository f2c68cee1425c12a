//! The command line's client programs: `publish`, `tail`, `health`, the offline `render`,
//! `approve`, `toolview acp` (an ACP agent for editors) and `toolview mcp` (the MCP edge over
//! stdio). It uses the server only through the API, as any client would, and the server never
//! uses it.
//!
//! Where things are: `remote.rs` (`Remote` → a connected `Client`), `follow.rs` (`Follower`:
//! follows a session after its last cursor with the one retry policy), `tail.rs` (`toolview
//! tail`; ANSI and Markdown drawn by `render::screen`, the terminal's size from `terminal.rs`,
//! `--approve`'s keys in `keys.rs`), `publish.rs`, `lines.rs` (offline `render`), `approve.rs`,
//! `failure.rs` (a failed call as a person reads it), `acp.rs` with `acp_request.rs`,
//! `acp_relay.rs` and `throttle.rs` (`toolview acp`), `mcp.rs` (`toolview mcp`), `uncoloured.rs` (ANSI without its
//! colours).

pub mod acp;
mod acp_relay;
mod acp_request;
mod acp_sessions;
mod approve;
mod failure;
mod follow;
mod keys;
mod lines;
pub mod mcp;
mod publish;
mod remote;
mod sessions;
mod sessions_watch;
pub mod tail;
mod terminal;
mod throttle;
pub mod uncoloured;

pub use approve::{Answer, approve};
pub use follow::{Followed, Follower};
pub use lines::{print_framed, print_update, read_events, render_offline};
pub use mcp::serve_stdio as serve_mcp;
pub use publish::publish;
pub use remote::{Bearer, Client, Remote, connect, health};
pub use sessions::{Listing, list_sessions};
pub use sessions_watch::watch_sessions;
pub use terminal::stdout_size;
pub use throttle::DEFAULT_INPUT_THROTTLE_MS;
