//! The text the targets share: the cards' text forms (`text_form.rs`: `CONSOLE`, `UNIFIED`, …),
//! messages and turn lines (`transcript.rs`), permission prompts (`permission.rs`), an answer's
//! sanitized Markdown (`md/`) and Markdown escaping (`markdown_text.rs`), untrusted text made safe
//! for terminals (`visible.rs`), lexical paths (`paths.rs`), and VIEW updates drawn as text, each
//! card once (`screen/`: `tail` and the MCP edge's transcript).

pub(crate) mod markdown_text;
pub(crate) mod md;
pub mod paths;
pub mod permission;
pub mod screen;
pub(crate) mod text_form;
pub(crate) mod transcript;
pub(crate) mod visible;
