//! Text forms shared by presenters and renderers: fences and console blocks.

/// The fence for `body`: one more backtick than the longest backtick run that starts a line of
/// the body, and at least three.
pub fn fence_for(body: &str) -> String {
    let longest = body
        .split('\n')
        // CommonMark closes a fence with a run indented by up to three spaces, too.
        .map(|line| {
            let indent = line.bytes().take(3).take_while(|&b| b == b' ').count();
            line[indent..].bytes().take_while(|&b| b == b'`').count()
        })
        .max()
        .unwrap_or(0);
    "`".repeat((longest + 1).max(3))
}

/// `FENCE(info, body)`: a fenced block that the body cannot close early.
pub fn fence(info: &str, body: &str) -> String {
    let f = fence_for(body);
    let nl = if body.ends_with('\n') { "" } else { "\n" };
    format!("{f}{info}\n{body}{nl}{f}")
}

/// A `console` block of `text` with its trailing newlines removed: the three-backtick form the
/// reference bridge uses for command output, with a longer fence when the output has a backtick
/// run that would close it (the spec's form, made safe; `docs/conversation.md#message-text`).
pub fn console_block(text: &str) -> String {
    let text = text.trim_end_matches('\n');
    let f = fence_for(text);
    format!("{f}console\n{text}\n{f}")
}

/// The body of a presenter's plain code block (`fence("", body)`: how Claude Code's errors are
/// shown), or `None` when `text` is not exactly one.
pub fn plain_block_body(text: &str) -> Option<&str> {
    let ticks = text.bytes().take_while(|&b| b == b'`').count();
    let fence = &text[..ticks];
    let body = text[ticks..]
        .strip_prefix('\n')?
        .strip_suffix(fence)?
        .strip_suffix('\n')?;
    (ticks >= 3 && fence_for(body) == fence).then_some(body)
}

/// The output inside a block [`console_block`] made, or `None` when `text` is not exactly one:
/// the Markdown and terminal targets show it as a code block, not as Markdown source.
pub fn console_body(text: &str) -> Option<&str> {
    let ticks = text.bytes().take_while(|&b| b == b'`').count();
    let fence = &text[..ticks];
    let body = text[ticks..]
        .strip_prefix("console\n")?
        .strip_suffix(fence)?
        .strip_suffix('\n')?;
    (ticks >= 3 && fence_for(body) == fence).then_some(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fence_grows_past_backtick_runs_at_line_start() {
        assert_eq!(fence("", "plain"), "```\nplain\n```");
        assert_eq!(fence("ts", "a\n"), "```ts\na\n```");
        assert_eq!(fence("", "```js\nx\n```"), "````\n```js\nx\n```\n````");
        // An indented run would close the fence too.
        assert_eq!(fence("", "x\n   ```\ny"), "````\nx\n   ```\ny\n````");
        assert_eq!(fence("", "x\n    ```"), "```\nx\n    ```\n```");
        // A run that does not start a line does not count.
        assert_eq!(fence_for("a ````` b"), "```");
        assert_eq!(fence_for("`````"), "``````");
    }

    #[test]
    fn console_strips_trailing_newlines() {
        assert_eq!(console_block("hi\n\n"), "```console\nhi\n```");
        assert_eq!(console_block(""), "```console\n\n```");
        // Output cannot close the block early, and the block reads back as its output.
        assert_eq!(console_block("a\n```\nb"), "````console\na\n```\nb\n````");
        for out in ["hi", "", "a\n```\nb", "```console"] {
            assert_eq!(console_body(&console_block(out)), Some(out));
        }
        // Not one block: text that merely looks like one, or a block with text after it.
        assert_eq!(console_body("```console\na\n```\nb\n```"), None);
        assert_eq!(console_body("```console\na```"), None);
        assert_eq!(console_body("``console\na\n``"), None);
        assert_eq!(console_body("```sh\na\n```"), None);
        assert_eq!(plain_block_body("```\nnot found\n```"), Some("not found"));
        assert_eq!(plain_block_body(&fence("", "a ``` b")), Some("a ``` b"));
        assert_eq!(plain_block_body("```console\na\n```"), None);
        assert_eq!(plain_block_body("```\na\n```\nb\n```"), None);
    }
}
