//! The command line's client programs: `publish`, `tail`, `health`, the offline `render`, and
//! `toolview acp` (an ACP agent for editors). With `grpc` (the server's edge), the only module
//! that names generated types; it uses the server's code only through the API, as any client
//! would.

pub mod acp;
mod follow;
mod json;
mod lines;
mod remote;
pub mod tail;

pub use follow::{Followed, Follower};
pub use lines::{print_update, publish, read_events, render_offline};
pub use remote::{Bearer, Client, Remote, connect, health};
