use super::*;
use proptest::prelude::*;
use pulldown_cmark::{Event, Options, Parser, Tag};

const ANSWER: &str = "Run `cargo test` on **port** *8080*:\n\n\
```sh\ncargo test\n```\n\n\
- one\n- two with [docs](https://docs.rs/x)\n\n\
1. first\n2. ![diagram](https://e.example/d.png)\n\n\
<script>alert(1)</script>\n\n\
See <b>bold</b> and [evil](javascript:alert(1)).";

/// What a chat renderer would make of our Markdown: its raw HTML, images and links.
fn hazards(markdown: &str) -> Vec<String> {
    let opts = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_GFM;
    Parser::new_ext(markdown, opts)
        .filter_map(|e| match e {
            Event::Html(h) | Event::InlineHtml(h) => Some(format!("html {h}")),
            Event::Start(Tag::Image { dest_url, .. }) => Some(format!("image {dest_url}")),
            Event::Start(Tag::Link { dest_url, .. }) if !safe_url(&dest_url) => {
                Some(format!("link {dest_url}"))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn an_answer_keeps_its_markdown_without_html_images_or_unsafe_links() {
    let md = markdown(&parse(ANSWER).unwrap());
    assert_eq!(
        md,
        "Run `cargo test` on **port** *8080*:\n\n\
```sh\ncargo test\n```\n\n\
- one\n- two with docs ([https\\://docs.rs/x](<https://docs.rs/x>))\n\n\
1. first\n2. image: diagram ([https\\://e.example/d.png](<https://e.example/d.png>))\n\n\
\\<script\\>alert(1)\\</script\\>\n\n\
See \\<b\\>bold\\</b\\> and evil (javascript:alert(1))."
    );
    assert_eq!(hazards(&md), Vec::<String>::new());
}

#[test]
fn a_fence_is_never_closed_by_its_content() {
    let blocks = parse("````\n```\n# not a heading\n````").unwrap();
    assert_eq!(
        blocks,
        vec![Block::Code {
            lang: String::new(),
            text: "```\n# not a heading\n".into()
        }]
    );
    assert_eq!(markdown(&blocks), "````\n```\n# not a heading\n````");
    // A language word is all an info string keeps.
    let blocks = parse("```rust\" onload=x\nfn f() {}\n```").unwrap();
    assert_eq!(markdown(&blocks), "```rust\nfn f() {}\n```");
}

#[test]
fn lists_quotes_and_tables_keep_their_shape() {
    let text =
        "> quoted *a*\n>\n> - x\n\n- a\n\n- b\n  1. c\n\n| h | `a\\|b` |\n|---|---|\n| 1 | 2 |";
    let md = markdown(&parse(text).unwrap());
    assert_eq!(
        md,
        "> quoted *a*\n>\n> - x\n\n- a\n\n- b\n\n  1. c\n\n| h | `a\\|b` |\n| --- | --- |\n| 1 | 2 |"
    );
    assert_eq!(hazards(&md), Vec::<String>::new());
}

#[test]
fn deep_nesting_is_plain_text() {
    assert!(parse(&format!("{}x", ">".repeat(10_000))).is_none());
    assert!(parse(&format!("{}x", "- ".repeat(10_000))).is_none());
    assert!(parse(&format!("{}x{}", "*a ".repeat(100), " b*".repeat(100))).is_none());
    assert!(parse(&format!("{}x{}", "*a ".repeat(10), " b*".repeat(10))).is_some());
}

#[test]
fn a_terminal_gets_styles_and_never_a_control_character() {
    let lines = terminal(&parse(ANSWER).unwrap(), "");
    let all = lines.join("\n");
    assert!(all.contains("\x1b[1mport\x1b[0m"), "{all:?}");
    assert!(
        all.contains("\x1b[2m│\x1b[0m \x1b[36mcargo test\x1b[0m"),
        "{all:?}"
    );
    assert!(
        all.contains("• two with docs (\x1b[4mhttps://docs.rs/x\x1b[0m)"),
        "{all:?}"
    );
    let hostile = terminal(&parse("a\x1b]52;c;eA==\x07 **b\x1b[2J**").unwrap(), "").join("\n");
    let ours = ["\x1b[0m", "\x1b[1m"];
    let bare = ours
        .iter()
        .fold(hostile.clone(), |s, code| s.replace(code, ""));
    assert_eq!(bare, "a^[]52;c;eA==^G b^[[2J", "{hostile:?}");
}

#[test]
fn a_table_on_a_terminal_lines_up() {
    let lines = terminal(&parse("| a | wide |\n|---|---|\n| 日本 | x |").unwrap(), "");
    assert_eq!(
        lines,
        vec![
            "\x1b[1ma\x1b[0m    \x1b[2m│\x1b[0m \x1b[1mwide\x1b[0m",
            "\x1b[2m─────┼─────\x1b[0m",
            "日本 \x1b[2m│\x1b[0m x",
        ]
    );
}

#[test]
fn a_bang_before_a_link_stays_text() {
    // Found by the property below: text ending in `!` before an autolink made an image.
    let blocks = parse("a|/(~(0|]_\n<]0>~!<http://e/>").unwrap();
    assert_eq!(hazards(&markdown(&blocks)), Vec::<String>::new());
    assert!(markdown(&parse("wow!<http://e/>").unwrap()).contains("wow\\!["));
    // An escaped backslash before the `!` does not escape it.
    let slash = markdown(&parse("wow\\\\!<http://e/>").unwrap());
    assert_eq!(hazards(&slash), Vec::<String>::new(), "{slash}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]
    /// Whatever a model writes, our Markdown has no raw HTML, no image and no link but to a
    /// safe URL; a terminal gets no control character but our own SGR codes.
    #[test]
    fn nothing_unsafe_gets_through(text in "([-*_`~#>|!\\[\\]()<>:/ a-z0-9\n]|\\x1b|javascript:|<img |```|http://e/){0,80}") {
        if let Some(blocks) = parse(&text) {
            prop_assert_eq!(hazards(&markdown(&blocks)), Vec::<String>::new());
            for line in terminal(&blocks, "") {
                let stripped = line.replace("\x1b[0m", "").replace("\x1b[1m", "").replace("\x1b[2m", "")
                    .replace("\x1b[3m", "").replace("\x1b[4m", "").replace("\x1b[9m", "").replace("\x1b[36m", "");
                prop_assert!(!stripped.contains('\x1b'), "{:?}", line);
            }
        }
    }
}
