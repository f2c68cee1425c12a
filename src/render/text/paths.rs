//! Lexical path handling: relativized titles, terminal cwds, absolute paths for ACP. Nothing
//! here touches the file system.

use crate::domain::{ToolCallView, ToolResultView};

/// Splits `/a/./b/../c` into normalized components (`["a", "c"]`); `..` above the root stays at
/// the root, as the kernel does.
fn components(abs: &str) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for c in abs.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// Normalizes an absolute path lexically.
pub fn normalize(abs: &str) -> String {
    format!("/{}", components(abs).join("/"))
}

/// `path` joined onto `base` (when relative) and normalized; an absolute `path` is normalized
/// as is.
pub fn join(base: &str, path: &str) -> String {
    if path.starts_with('/') {
        normalize(path)
    } else {
        normalize(&format!("{base}/{path}"))
    }
}

/// The relative path from `from` to `to`, both absolute, computed lexically.
pub fn relative(from: &str, to: &str) -> String {
    let (from, to) = (components(from), components(to));
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let ups = std::iter::repeat_n("..", from.len() - common);
    ups.chain(to[common..].iter().copied())
        .collect::<Vec<_>>()
        .join("/")
}

/// The session cwd if it is usable (absolute).
pub fn usable_cwd(cwd: Option<&str>) -> Option<&str> {
    cwd.filter(|c| c.starts_with('/'))
}

/// Rewrites every occurrence of `raw` in `title` to its path relative to `cwd`, when `raw` is
/// inside the workspace; otherwise the title is kept.
pub fn relativize_title(title: &str, raw: Option<&str>, cwd: Option<&str>) -> String {
    let (Some(raw), Some(cwd)) = (raw.filter(|r| r.starts_with('/')), usable_cwd(cwd)) else {
        return title.to_owned();
    };
    let rel = relative(cwd, raw);
    if rel.is_empty() || rel == "." || rel == ".." || rel.starts_with("../") {
        return title.to_owned();
    }
    title.replace(raw, &rel)
}

/// The path a call title is relativized against: the first location, else the first diff.
pub fn call_title_path(view: &ToolCallView) -> Option<&str> {
    match view {
        ToolCallView::Generic(g) => g.locations.first().map(|l| l.path.as_str()),
        ToolCallView::Diff(d) => d
            .locations
            .first()
            .map(|l| l.path.as_str())
            .or_else(|| d.diffs.first().map(|f| f.path.as_str())),
        ToolCallView::Terminal(_) => None,
    }
}

/// The path a result title is relativized against: the result's first diff, else the call's.
pub fn result_title_path<'a>(
    result: &'a ToolResultView,
    call: Option<&'a ToolCallView>,
) -> Option<&'a str> {
    let own = match result {
        ToolResultView::Diff(d) => d.diffs.first().map(|f| f.path.as_str()),
        ToolResultView::Generic(_)
        | ToolResultView::Terminal(_)
        | ToolResultView::Search(_)
        | ToolResultView::Read(_)
        | ToolResultView::Web(_) => None,
    };
    own.or_else(|| call.and_then(call_title_path))
}

/// Terminal cwd: absent → the session cwd; absolute → as is; relative → joined onto the session
/// cwd, or kept relative without one.
pub fn terminal_cwd(view_cwd: Option<&str>, session_cwd: Option<&str>) -> Option<String> {
    let session = usable_cwd(session_cwd);
    match view_cwd {
        None => session.map(str::to_owned),
        Some(c) if c.starts_with('/') => Some(c.to_owned()),
        Some(c) => Some(match session {
            Some(s) => join(s, c),
            None => c.to_owned(),
        }),
    }
}

/// A path for ACP, which wants absolute paths: relative ones are joined onto the session cwd.
pub fn acp_path(path: &str, session_cwd: Option<&str>) -> String {
    match usable_cwd(session_cwd) {
        Some(cwd) if !path.starts_with('/') => join(cwd, path),
        _ => path.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths() {
        assert_eq!(relative("/w/p", "/w/p/src/a.ts"), "src/a.ts");
        assert_eq!(relative("/w/p", "/w/p"), "");
        assert_eq!(relative("/w/p", "/w/q/a"), "../q/a");
        assert_eq!(relative("/w/p/", "/w/./p/x/../y"), "y");
    }

    #[test]
    fn titles() {
        let cwd = Some("/w/p");
        assert_eq!(
            relativize_title("Read /w/p/a.ts", Some("/w/p/a.ts"), cwd),
            "Read a.ts"
        );
        assert_eq!(
            relativize_title("Read /w/p/..cache/x", Some("/w/p/..cache/x"), cwd),
            "Read ..cache/x"
        );
        assert_eq!(
            relativize_title("Read /w/q/a", Some("/w/q/a"), cwd),
            "Read /w/q/a"
        );
        assert_eq!(
            relativize_title("Read /w/p", Some("/w/p"), cwd),
            "Read /w/p"
        );
        assert_eq!(
            relativize_title("Read a.ts", Some("a.ts"), cwd),
            "Read a.ts"
        );
        assert_eq!(
            relativize_title("Read /w/p/a", Some("/w/p/a"), Some("rel")),
            "Read /w/p/a"
        );
        assert_eq!(
            relativize_title("Read /w/p/a", Some("/w/p/a"), None),
            "Read /w/p/a"
        );
    }

    #[test]
    fn cwds() {
        assert_eq!(terminal_cwd(None, Some("/w")), Some("/w".into()));
        assert_eq!(terminal_cwd(Some("/abs"), Some("/w")), Some("/abs".into()));
        assert_eq!(
            terminal_cwd(Some("sub/../x"), Some("/w")),
            Some("/w/x".into())
        );
        assert_eq!(terminal_cwd(Some("sub"), None), Some("sub".into()));
        assert_eq!(terminal_cwd(None, None), None);
        assert_eq!(acp_path("a.txt", Some("/w/p")), "/w/p/a.txt");
        assert_eq!(acp_path("a.txt", None), "a.txt");
        assert_eq!(acp_path("/x/./a", Some("/w")), "/x/./a");
    }
}
