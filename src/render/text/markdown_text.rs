//! Untrusted text in Markdown: tool output, titles, paths and URLs outside code fences are
//! escaped, so a chat UI shows them as text and never opens a link, an image or raw HTML from
//! them. Links toolview itself makes (web sources, resource links) are kept only for `http:`,
//! `https:` and `mailto:` URLs.

use crate::render::text_form::TextStyle;

/// Characters with a meaning anywhere in a line: code spans, emphasis and strikethrough,
/// link and image brackets (`![x](y)` needs `[`), HTML and autolinks, entities, table cells.
/// `:` is escaped only before `//`, which is what GFM's bare-URL autolinks need.
const INLINE: &[char] = &['\\', '`', '*', '_', '[', ']', '<', '>', '&', '~', '|'];

/// `text` as literal Markdown: every character of [`INLINE`] backslash-escaped, `://` as
/// `\://`, and the markers of block constructs at the start of a line (`#`, `-`, `+`, `=`, an
/// ordered list's `.` or `)`).
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let indent = line.len() - line.trim_start_matches(' ').len();
        let (lead, rest) = line.split_at(indent);
        out.push_str(lead);
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        for (j, c) in rest.char_indices() {
            let block_marker = (j == 0 && matches!(c, '#' | '-' | '+' | '='))
                || (digits > 0 && j == digits && matches!(c, '.' | ')'));
            let url = c == ':' && rest[j..].starts_with("://");
            if block_marker || url || INLINE.contains(&c) {
                out.push('\\');
            }
            out.push(c);
        }
    }
    out
}

/// A title or label on one line: escaped, line breaks as spaces.
pub fn escape_line(text: &str) -> String {
    escape(&text.replace(['\r', '\n'], " "))
}

/// `text` as an inline code span, which shows it literally: fenced by one more backtick than its
/// longest run, padded when it starts or ends with one, on one line.
pub fn code_span(text: &str) -> String {
    let text = text.replace(['\r', '\n'], " ");
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// A link for `http:`, `https:` and `mailto:` URLs (the destination in angle brackets, with the
/// characters that could end it percent-encoded); any other URL is shown as escaped text.
pub fn link(label: &str, url: &str) -> String {
    let scheme = url.split_once(':').map(|(s, _)| s.to_ascii_lowercase());
    match scheme.as_deref() {
        Some("http" | "https" | "mailto") => {
            let dest = url
                .replace('%', "%25")
                .replace('<', "%3C")
                .replace('>', "%3E")
                .replace(['\n', '\r'], "")
                .replace(' ', "%20");
            format!("[{}](<{dest}>)", escape_line(label))
        }
        _ if label == url => escape_line(url),
        _ => escape_line(&format!("{label} ({url})")),
    }
}

/// The text forms' style for Markdown: paths as code spans, links only for safe schemes,
/// everything else escaped.
pub const MARKDOWN: TextStyle = TextStyle {
    path: code_span,
    link,
    text: escape,
    line: escape_line,
    block: fenced,
};

/// Lines in a fence longer than any backtick run in them.
fn fenced(lines: &str) -> String {
    crate::present::text::fence("", lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_becomes_text() {
        assert_eq!(escape("a_b *c*"), "a\\_b \\*c\\*");
        assert_eq!(
            escape("[x](javascript:alert(1)) ![i](http://e/i.png) <img src=x onerror=y>"),
            "\\[x\\](javascript:alert(1)) !\\[i\\](http\\://e/i.png) \\<img src=x onerror=y\\>"
        );
        assert_eq!(
            escape("# h\n- item\n10. ten\n  + more\n3) x"),
            "\\# h\n\\- item\n10\\. ten\n  \\+ more\n3\\) x"
        );
        assert_eq!(
            escape("Error: old_string (2 - 3)"),
            "Error: old\\_string (2 - 3)"
        );
        assert_eq!(
            link("ok", "https://ok.example/a b"),
            "[ok](<https://ok.example/a%20b>)"
        );
        assert_eq!(link("x", "javascript:alert(1)"), "x (javascript:alert(1))");
    }
}
