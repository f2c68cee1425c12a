//! Untrusted text made safe for a terminal: no control character or escape sequence from a tool
//! reaches it (OSC 52 clipboard writes, title changes, hyperlinks, cursor moves, C1 controls,
//! bells), and nothing can reorder what is shown (bidirectional overrides).

use std::borrow::Cow;

/// Whether `c` must not reach a terminal as is: C0 controls other than `\n` and `\t`, DEL,
/// C1 controls, and the bidirectional embedding, override and isolate controls.
fn unsafe_char(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Whether `text` has a character [`visible`] would change. A byte scan first (cheap, and
/// exact for ASCII): only a C0 control, DEL, or the lead byte of a C1 control (`0xC2`) or of a
/// bidirectional control (`0xE2`) can start one.
pub fn needs_escaping(text: &str) -> bool {
    let suspect =
        |b: u8| (b < 0x20 && b != b'\n' && b != b'\t') | (b == 0x7f) | (b == 0xc2) | (b == 0xe2);
    // Branch-free within a block (`|`, not `||`), so the scan vectorizes: the fold runs it over
    // every live chunk.
    let any = text
        .as_bytes()
        .chunks(64)
        .any(|block| block.iter().fold(false, |seen, &b| seen | suspect(b)));
    any && text.chars().any(unsafe_char)
}

/// `text` with every unsafe character shown visibly: C0 controls and DEL in caret notation
/// (`^[` for ESC, `^G` for BEL, `^?` for DEL), the others as U+FFFD. `\n` and `\t` are kept.
pub fn visible(text: &str) -> Cow<'_, str> {
    if !needs_escaping(text) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            c if !unsafe_char(c) => out.push(c),
            '\u{7f}' => out.push_str("^?"),
            c if (c as u32) < 0x20 => {
                out.push('^');
                out.push(char::from(b'@' + c as u8));
            }
            _ => out.push('\u{fffd}'),
        }
    }
    Cow::Owned(out)
}

/// Longest SGR parameter list kept (`38;2;255;255;255;48;2;…` fits); a longer one is shown.
const MAX_SGR_PARAMS: usize = 64;

/// Like [`visible`], but keeps SGR sequences (`ESC [` digits, `;` and `:` `m`): the colours a
/// tool printed, for a subscriber that asked for them. Every other escape sequence and control
/// is shown as [`visible`] shows it.
pub fn visible_keeping_sgr(text: &str) -> Cow<'_, str> {
    if !needs_escaping(text) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut rest = text;
    while let Some(at) = rest.find('\x1b') {
        out.push_str(&visible(&rest[..at]));
        rest = &rest[at + 1..];
        if let Some(params) = rest.strip_prefix('[') {
            let end = params
                .find(|c: char| !(c.is_ascii_digit() || c == ';' || c == ':'))
                .unwrap_or(params.len());
            if end <= MAX_SGR_PARAMS && params[end..].starts_with('m') {
                out.push_str("\x1b[");
                out.push_str(&params[..=end]);
                rest = &params[end + 1..];
                continue;
            }
        }
        out.push_str("^[");
    }
    out.push_str(&visible(rest));
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_sgr_is_kept_when_asked() {
        let text = "\x1b[1;31mred\x1b[0m \x1b[2J\x1b]52;c;aGk=\x07\x1b[38;2;1;2;3mx\x1b[";
        assert_eq!(
            visible_keeping_sgr(text),
            "\x1b[1;31mred\x1b[0m ^[[2J^[]52;c;aGk=^G\x1b[38;2;1;2;3mx^[["
        );
        let long = format!("\x1b[{}m", "1;".repeat(40));
        assert!(visible_keeping_sgr(&long).starts_with("^[["));
        assert_eq!(visible_keeping_sgr("\u{9b}31m"), "\u{fffd}31m");
    }

    #[test]
    fn the_quick_check_agrees_with_visible() {
        let long = "x".repeat(200);
        for text in [
            "plain\ttext\n",
            "é ü — “quotes”",
            "\u{1b}[31m",
            "\u{85}",
            "\u{202e}",
            "\u{2066}",
            "\u{7f}",
            "\u{9f}",
            "—\u{2069}",
            "\r",
        ] {
            for text in [text.to_owned(), format!("{long}{text}{long}")] {
                let changed = visible(&text) != text;
                assert_eq!(needs_escaping(&text), changed, "{text:?}");
            }
        }
    }

    #[test]
    fn controls_become_visible() {
        assert_eq!(visible("plain\ttext\n"), "plain\ttext\n");
        assert_eq!(visible("\x1b]52;c;aGk=\x07"), "^[]52;c;aGk=^G");
        assert_eq!(
            visible("a\rb\x7f\u{9b}2J\u{202e}"),
            "a^Mb^?\u{fffd}2J\u{fffd}"
        );
        assert_eq!(visible("\0"), "^@");
    }
}
