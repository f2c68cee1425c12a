//! Narrowing presentation meta (JSON the harness computed at execution time) into card parts.
//! Total: malformed meta narrows to `None`, never to an error.

use serde_json::Value;

use super::args::{as_line, as_u32_from};
use super::hunks::hunks;
use crate::domain::{
    FileDiff, FileLocation, ReadLine, SearchFileMatches, SearchMatch, SearchShape, WebKind,
    WebSource,
};

/// The diffs (and, for the forms that carry them, locations) a write/edit result shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetaDiffs {
    /// One diff per changed file.
    pub diffs: Vec<FileDiff>,
    /// The changed files, for follow-along.
    pub locations: Vec<FileLocation>,
}

/// The first of `diffs`, `structuredPatch`, `before` present in the meta selects the form; an
/// empty or malformed form is "no diffs" (`None`) and later forms are not tried.
pub fn diffs(meta: Option<&Value>, path: Option<&str>) -> Option<MetaDiffs> {
    let meta = meta?.as_object()?;
    let present = |k: &str| meta.get(k).filter(|v| !v.is_null());
    if let Some(diffs) = present("diffs") {
        return diffs_form(diffs);
    }
    if let Some(patch) = present("structuredPatch") {
        let path = match meta.get("filePath").and_then(Value::as_str) {
            Some(p) => p,
            None => path?,
        };
        return structured_patch_form(patch, path);
    }
    // `before: null` is meaningful (no before-image), so presence is the key itself.
    if meta.contains_key("before") {
        return before_after_form(meta.get("before")?, meta.get("after")?, path?);
    }
    None
}

/// `{"diffs": [FileDiff…]}`: a non-empty array of well-formed diffs, used as is.
fn diffs_form(v: &Value) -> Option<MetaDiffs> {
    let items = v.as_array().filter(|a| !a.is_empty())?;
    let diffs = items.iter().map(file_diff).collect::<Option<Vec<_>>>()?;
    Some(MetaDiffs {
        diffs,
        locations: Vec::new(),
    })
}

fn file_diff(v: &Value) -> Option<FileDiff> {
    let o = v.as_object()?;
    let old_text = match o.get("oldText")? {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        _ => return None,
    };
    Some(FileDiff {
        path: o.get("path")?.as_str()?.to_owned(),
        old_text,
        new_text: o.get("newText")?.as_str()?.to_owned(),
        runs: Vec::new(),
    })
}

/// Claude Code's `structuredPatch`: one diff per hunk, one location per hunk at `newStart`.
pub fn structured_patch_form(v: &Value, path: &str) -> Option<MetaDiffs> {
    let mut out = MetaDiffs {
        diffs: Vec::new(),
        locations: Vec::new(),
    };
    for hunk in v.as_array()? {
        let hunk = hunk.as_object()?;
        let new_start = as_u32_from(hunk.get("newStart")?, 0)?;
        let lines = hunk.get("lines")?.as_array()?;
        let lines = lines
            .iter()
            .map(Value::as_str)
            .collect::<Option<Vec<_>>>()?;
        let (mut old, mut new, mut any) = (Vec::new(), Vec::new(), false);
        for line in lines {
            let rest = line.get(1..).unwrap_or("");
            match line.chars().next() {
                Some('\\') => continue,
                Some('-') => old.push(rest),
                Some('+') => new.push(rest),
                _ => {
                    old.push(rest);
                    new.push(rest);
                }
            }
            any = true;
        }
        if !any {
            continue;
        }
        out.diffs.push(FileDiff {
            path: path.to_owned(),
            old_text: (!old.is_empty()).then(|| old.join("\n")),
            new_text: new.join("\n"),
            runs: Vec::new(),
        });
        // Locations are 1-based; a hunk that deletes a whole file starts at new line 0.
        out.locations
            .push(FileLocation::line(path, new_start.max(1)));
    }
    (!out.diffs.is_empty()).then_some(out)
}

/// `{"before": string|null, "after": string}`: hunks computed here, or the whole-file diff when
/// there is no before-image.
fn before_after_form(before: &Value, after: &Value, path: &str) -> Option<MetaDiffs> {
    let after = after.as_str()?;
    match before {
        Value::Null => Some(MetaDiffs {
            diffs: vec![FileDiff {
                path: path.to_owned(),
                old_text: None,
                new_text: after.to_owned(),
                runs: Vec::new(),
            }],
            locations: vec![FileLocation::line(path, 1)],
        }),
        Value::String(before) => {
            let hs = hunks(path, before, after);
            if hs.is_empty() {
                return None;
            }
            let locations = hs
                .iter()
                .map(|h| {
                    FileLocation::line(path, u32::try_from(h.new_start).unwrap_or(u32::MAX).max(1))
                })
                .collect();
            Some(MetaDiffs {
                diffs: hs.into_iter().map(|h| h.diff).collect(),
                locations,
            })
        }
        _ => None,
    }
}

/// The read card's window from `read` meta.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadWindow {
    pub path: String,
    pub offset: u32,
    pub lines: Vec<ReadLine>,
    pub total_lines: u32,
    pub lang: Option<String>,
}

/// `{path, offset, lines:[{number,text}], totalLines, lang?}` with numbers strictly increasing
/// within `[offset, totalLines]`.
pub fn read_window(meta: Option<&Value>) -> Option<ReadWindow> {
    let m = meta?.as_object()?;
    let path = m.get("path")?.as_str()?.to_owned();
    let offset = as_line(m.get("offset")?)?;
    let total_lines = as_line(m.get("totalLines")?)?;
    let lang = match m.get("lang") {
        None | Some(Value::Null) => None,
        Some(v) => Some(v.as_str()?.to_owned()),
    };
    let mut lines: Vec<ReadLine> = Vec::new();
    for l in m.get("lines")?.as_array()? {
        let l = l.as_object()?;
        let number = as_line(l.get("number")?)?;
        let increasing = lines.last().is_none_or(|prev| prev.number < number);
        if !increasing || number < offset || number > total_lines {
            return None;
        }
        lines.push(ReadLine {
            number,
            text: l.get("text")?.as_str()?.to_owned(),
        });
    }
    Some(ReadWindow {
        path,
        offset,
        lines,
        total_lines,
        lang,
    })
}

/// The meta form a search tool's result has: matches per file (grep) or paths (glob).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchForm {
    Matches,
    Paths,
}

impl SearchForm {
    /// The meta's `shape` value for this form.
    fn key(self) -> &'static str {
        match self {
            SearchForm::Matches => "matches",
            SearchForm::Paths => "paths",
        }
    }
}

/// A search card's parts: shape, `truncated`, `total`.
pub fn search(meta: Option<&Value>, want: SearchForm) -> Option<(SearchShape, bool, u64)> {
    let m = meta?.as_object()?;
    if m.get("shape")?.as_str()? != want.key() {
        return None;
    }
    let truncated = m.get("truncated")?.as_bool()?;
    let total = m.get("total")?.as_u64()?;
    let shape = match want {
        SearchForm::Matches => SearchShape::Matches {
            files: m
                .get("files")?
                .as_array()?
                .iter()
                .map(search_file)
                .collect::<Option<_>>()?,
        },
        SearchForm::Paths => SearchShape::Paths {
            paths: m
                .get("paths")?
                .as_array()?
                .iter()
                .map(|p| p.as_str().map(str::to_owned))
                .collect::<Option<_>>()?,
        },
    };
    Some((shape, truncated, total))
}

fn search_file(v: &Value) -> Option<SearchFileMatches> {
    let o = v.as_object()?;
    let matches = o
        .get("matches")?
        .as_array()?
        .iter()
        .map(|m| {
            let m = m.as_object()?;
            Some(SearchMatch {
                line_number: as_line(m.get("lineNumber")?)?,
                line: m.get("line")?.as_str()?.to_owned(),
            })
        })
        .collect::<Option<_>>()?;
    Some(SearchFileMatches {
        path: o.get("path")?.as_str()?.to_owned(),
        matches,
    })
}

/// `{sources, truncated, answer?}` → the web search kind.
pub fn web_search(meta: Option<&Value>) -> Option<WebKind> {
    let m = meta?.as_object()?;
    let sources = m
        .get("sources")?
        .as_array()?
        .iter()
        .map(web_source)
        .collect::<Option<_>>()?;
    Some(WebKind::Search {
        sources,
        answer: opt_string(m.get("answer"))?,
        truncated: m.get("truncated")?.as_bool()?,
    })
}

fn web_source(v: &Value) -> Option<WebSource> {
    let o = v.as_object()?;
    Some(WebSource {
        url: o.get("url")?.as_str()?.to_owned(),
        title: opt_string(o.get("title"))?,
        snippet: opt_string(o.get("snippet"))?,
        published_at: opt_string(o.get("publishedAt"))?,
    })
}

/// `{url, statusCode, truncated}` → the web fetch kind.
pub fn web_fetch(meta: Option<&Value>) -> Option<WebKind> {
    let m = meta?.as_object()?;
    Some(WebKind::Fetch {
        url: m.get("url")?.as_str()?.to_owned(),
        status_code: as_u32_from(m.get("statusCode")?, 0)?,
        truncated: m.get("truncated")?.as_bool()?,
    })
}

/// An optional string field: absent or `null` → `Some(None)`, a string → `Some(Some(..))`, any
/// other value → `None` (malformed).
fn opt_string(v: Option<&Value>) -> Option<Option<String>> {
    match v {
        None | Some(Value::Null) => Some(None),
        Some(Value::String(s)) => Some(Some(s.clone())),
        Some(_) => None,
    }
}
