//! One module per target: VIEW (`view.rs`), ACP (`acp.rs`, its `_meta` in `acp_meta.rs`), AG-UI
//! (`ag_ui/`), the AI SDK (`ai_sdk/`), Markdown (`markdown.rs`) and ANSI (`ansi.rs`). Each
//! renders a fold's change for its target and the subscriber's capabilities.

pub(crate) mod acp;
pub mod acp_meta;
pub mod ag_ui;
pub mod ai_sdk;
pub(crate) mod ansi;
pub(crate) mod markdown;
pub(crate) mod view;
