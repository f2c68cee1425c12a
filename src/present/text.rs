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

/// A `console` block of `text` with its trailing newlines removed (the plain three-backtick
/// form the reference bridge uses for command output).
pub fn console_block(text: &str) -> String {
    format!("```console\n{}\n```", text.trim_end_matches('\n'))
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
    }
}
