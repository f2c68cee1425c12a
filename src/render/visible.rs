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

/// `text` with every unsafe character shown visibly: C0 controls and DEL in caret notation
/// (`^[` for ESC, `^G` for BEL, `^?` for DEL), the others as U+FFFD. `\n` and `\t` are kept.
pub fn visible(text: &str) -> Cow<'_, str> {
    if !text.chars().any(unsafe_char) {
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

#[cfg(test)]
mod tests {
    use super::*;

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
