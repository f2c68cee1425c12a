//! `docs/producers.md` is generated from the presenters' own table (`TOOLS`, `Tool::doc`): every
//! tool name is listed, and every example is run through the presenters here, so the cards the
//! page names are the ones a harness gets. `TOOLVIEW_WRITE_DOCS=1 cargo test --test spec
//! producers_doc` writes the page after a change to the table.

use serde_json::Value;
use toolview::domain::{ContentBlock, SearchShape, TerminalExit, ToolResultView, WebKind};
use toolview::present::{StartedCall, TOOLS, Tool, ToolResult, resolve_call, resolve_result};

const PAGE: &str = "docs/producers.md";

const HEAD: &str = "# What makes which card

<!-- Generated from `src/present/doc.rs` and `TOOLS` (`src/present/registry.rs`) by
     `tests/spec/producers_doc.rs`; edit those, then run
     `TOOLVIEW_WRITE_DOCS=1 cargo test --test spec producers_doc`. -->

A harness publishes a call as a tool name, its arguments (JSON) and, when it ends, its result
(text blocks, `is_error`) and optional presentation meta (JSON). The tool name picks a
presenter, exactly and case-sensitively, from two vocabularies: the reference harness's
lowercase names and Claude Code's PascalCase names. Any other name — an MCP tool, your own —
gets the generic card: its name as the title, its arguments as raw input, the result's text as
is. A harness may also attach its own card (`view` on the call or its end), which wins.

Every example below is run through the presenters by `tests/spec/producers_doc.rs`: the cards it
names are the ones you get. The full rules, field by field, are the spec's
([`spec/producers.md`](spec/producers.md)).

Presenters never fail on what they are given: arguments or meta that do not fit give the
generic card (vocabulary 1) or the documented fallback (vocabulary 2), never an error.

**Try an example** with `toolview present` (no server needed): `--tool` is the example's `tool`,
`--args` its `arguments` as JSON text, and `--result` its result as
`{\"content\": [{\"type\": \"text\", \"text\": RESULT}], \"isError\": false, \"meta\": META}`. It prints
the call card, then the result card, as VIEW JSON:

```sh
toolview present --tool bash --args '{\"command\": \"make\", \"description\": \"Build\"}' \\
  --result '{\"content\": [{\"type\": \"text\", \"text\": \"oops\\n[exit code: 2]\"}], \"isError\": false}'
```

```json output
{\"card\":\"terminal\",\"title\":\"make\",\"description\":\"Build\"}
{\"card\":\"terminal\",\"output\":\"oops\",\"exitCode\":2}
```
";

fn name_list(tool: Tool) -> String {
    TOOLS
        .iter()
        .filter(|(_, t)| *t == tool)
        .map(|(n, _)| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A few words on what a result card shows.
fn detail(view: &ToolResultView) -> String {
    match view {
        ToolResultView::Terminal(t) => match &t.exit {
            Some(TerminalExit::Code(c)) => format!("exit code {c}"),
            Some(TerminalExit::Signal(s)) => format!("killed by {s}"),
            None => "no exit yet".into(),
        },
        ToolResultView::Read(r) => format!(
            "lines {}–{} of {} in `{}`",
            r.offset,
            r.offset as usize + r.lines.len().saturating_sub(1),
            r.total_lines,
            r.path
        ),
        ToolResultView::Search(s) => match &s.shape {
            SearchShape::Matches { files } => format!(
                "{} in {}",
                count(files.iter().map(|f| f.matches.len()).sum(), "match"),
                count(files.len(), "file")
            ),
            SearchShape::Paths { paths } => count(paths.len(), "path"),
        },
        ToolResultView::Web(w) => match &w.kind {
            WebKind::Search { sources, .. } => count(sources.len(), "source"),
            WebKind::Fetch {
                url, status_code, ..
            } => format!("`{url}`, HTTP {status_code}"),
        },
        ToolResultView::Diff(d) => count(d.diffs.len(), "hunk"),
        ToolResultView::Generic(g) => match &g.title {
            Some(t) => format!("titled \"{t}\""),
            None => "the text as is".into(),
        },
    }
}

fn count(n: usize, what: &str) -> String {
    match (n, what) {
        (1, _) => format!("1 {what}"),
        (_, "match") => format!("{n} matches"),
        _ => format!("{n} {what}s"),
    }
}

/// One tool's section, after running its example through the presenters.
fn section(tool: Tool, name: &str) -> String {
    let doc = tool.doc();
    let ex = doc.example;
    let args: Value = serde_json::from_str(ex.args).expect("example arguments are JSON");
    let meta: Option<Value> = ex
        .meta
        .map(|m| serde_json::from_str(m).expect("example meta is JSON"));
    let call = resolve_call(name, &args, None);
    let content = [ContentBlock::text(ex.text)];
    let result = resolve_result(
        Some(StartedCall {
            tool_name: name,
            args: &args,
            view: &call,
        }),
        ToolResult {
            content: &content,
            is_error: false,
            meta: meta.as_ref(),
        },
        None,
    );
    assert_eq!(
        (call.card_name(), result.card_name()),
        (ex.call_card, ex.result_card),
        "{name}: the example's cards"
    );
    let mut example = serde_json::json!({"tool": name, "arguments": args, "result": ex.text});
    if let Some(m) = meta {
        example["meta"] = m;
    }
    format!(
        "### {names}\n\n- **Arguments read:** {args}\n- **Result:** {result_rule}\n- **Example:** \
         a `{call_card}` call card titled “{title}” and a `{result_card}` result card \
         ({detail}).\n\n```json\n{example}\n```\n",
        names = name_list(tool),
        args = doc.args,
        result_rule = doc.result,
        call_card = ex.call_card,
        title = call.title(),
        result_card = ex.result_card,
        detail = detail(&result),
        example = serde_json::to_string_pretty(&example).unwrap(),
    )
}

/// The index: each tool and the cards its example gets.
fn index() -> String {
    let mut out =
        String::from("\n| tool | call card | richer result card |\n| --- | --- | --- |\n");
    let mut seen: Vec<Tool> = Vec::new();
    for (_, tool) in TOOLS {
        if seen.contains(&tool) {
            continue;
        }
        seen.push(tool);
        let ex = tool.doc().example;
        out.push_str(&format!(
            "| {} | `{}` | `{}` |\n",
            name_list(tool),
            ex.call_card,
            ex.result_card
        ));
    }
    out
}

fn page() -> String {
    let mut out = String::from(HEAD);
    out.push_str(&index());
    let mut seen: Vec<Tool> = Vec::new();
    for (i, (name, tool)) in TOOLS.iter().enumerate() {
        if i == 0 {
            out.push_str("\n## Vocabulary 1: the reference harness\n\n");
        }
        if *name == "Bash" {
            out.push_str("\n## Vocabulary 2: Claude Code\n\n");
        }
        if seen.contains(tool) {
            continue;
        }
        seen.push(*tool);
        out.push_str(&section(*tool, name));
        out.push('\n');
    }
    out.trim_end().to_owned() + "\n"
}

#[test]
fn producers_doc_is_generated_from_the_presenters() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(PAGE);
    let want = page();
    if std::env::var_os("TOOLVIEW_WRITE_DOCS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let got = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        got == want,
        "{PAGE} is out of date: run `TOOLVIEW_WRITE_DOCS=1 cargo test --test spec producers_doc`"
    );
    // Every tool name of both vocabularies is on the page.
    for (name, _) in TOOLS {
        assert!(got.contains(&format!("`{name}`")), "{name} is missing");
    }
}
