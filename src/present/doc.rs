//! What each built-in presenter reads and gives, for harness authors: `docs/producers.md` is
//! generated from this table and [`super::TOOLS`] (`tests/spec/producers_doc.rs` checks it and
//! runs every example through the presenters, so the page cannot drift from the code).

use super::Tool;

/// One tool's entry in `docs/producers.md`.
#[derive(Debug, Clone, Copy)]
pub struct ToolDoc {
    /// The arguments the presenter reads.
    pub args: &'static str,
    /// What the result's text and meta must be for the richer result card.
    pub result: &'static str,
    /// A call that gets the richer card.
    pub example: Example,
}

/// An example call: arguments, result text, meta, and the cards they give.
#[derive(Debug, Clone, Copy)]
pub struct Example {
    /// The arguments, as JSON.
    pub args: &'static str,
    /// The result text (one text block).
    pub text: &'static str,
    /// The presentation meta, as JSON.
    pub meta: Option<&'static str>,
    /// The call card's kind (`terminal`, `diff`, `generic`).
    pub call_card: &'static str,
    /// The result card's kind (`terminal`, `diff`, `read`, `search`, `web`, `generic`).
    pub result_card: &'static str,
}

const GENERIC_RESULT: &str = "The result's text as is (a generic card).";

impl Tool {
    /// This tool's entry in `docs/producers.md`.
    pub fn doc(self) -> ToolDoc {
        let (args, result, example) = match self {
            Tool::Read => (
                "`file_path` (string, required), `offset`, `limit` (integers ≥ 1)",
                "A read card when the text is `<path>P</path>\\n<type>file</type>\\n<content>\\nBODY\\n</content>` and meta is the window `{path, offset, lines: [{number, text}], totalLines, lang?}`; otherwise the text as is.",
                Example {
                    args: r#"{"file_path": "/work/app.ts", "offset": 1, "limit": 2}"#,
                    text: "<path>/work/app.ts</path>\n<type>file</type>\n<content>\n1: export const port = 8080\n2: // TODO\n</content>",
                    meta: Some(
                        r#"{"path": "/work/app.ts", "offset": 1, "lines": [{"number": 1, "text": "export const port = 8080"}, {"number": 2, "text": "// TODO"}], "totalLines": 2}"#,
                    ),
                    call_card: "generic",
                    result_card: "read",
                },
            ),
            Tool::Write => (
                "`file_path`, `content` (strings, required)",
                "A diff card: meta `diffs`, `structuredPatch` or `before`/`after` when given, else the whole file from the arguments.",
                Example {
                    args: r#"{"file_path": "/work/notes.md", "content": "hello\n"}"#,
                    text: "Wrote /work/notes.md",
                    meta: None,
                    call_card: "diff",
                    result_card: "diff",
                },
            ),
            Tool::Edit => (
                "`file_path`, `old_string`, `new_string` (strings, required), `replace_all`",
                "A diff card from meta `diffs`, `structuredPatch` or `before`/`after` (the hunks applied); without meta, the call's own diff stays.",
                Example {
                    args: r#"{"file_path": "/work/app.ts", "old_string": "3000", "new_string": "8080"}"#,
                    text: "Edited /work/app.ts",
                    meta: Some(
                        r#"{"before": "export const port = 3000\n", "after": "export const port = 8080\n"}"#,
                    ),
                    call_card: "diff",
                    result_card: "diff",
                },
            ),
            Tool::ReadImage => (
                "`file_path` (string, required)",
                GENERIC_RESULT,
                generic(r#"{"file_path": "/work/logo.png"}"#, "[image]"),
            ),
            Tool::Shell => (
                "`command`, `description` (strings, both required), `workdir`, `run_in_background`",
                "A terminal card: the output is the text; a last line `[exit code: N]` or `[killed by signal: S]` gives the exit (none: exit 0). An error or a background command: the text in a console block.",
                Example {
                    args: r#"{"command": "npm test", "description": "Run the tests"}"#,
                    text: "FAIL src/app.test.ts\n[exit code: 1]",
                    meta: None,
                    call_card: "terminal",
                    result_card: "terminal",
                },
            ),
            Tool::JobOutput => (
                "`job_id` (string, required)",
                GENERIC_RESULT,
                generic(r#"{"job_id": "bash-1"}"#, "watching for changes"),
            ),
            Tool::JobList => ("none", GENERIC_RESULT, generic("{}", "bash-1 running")),
            Tool::JobKill => (
                "`job_id` (string, required)",
                GENERIC_RESULT,
                generic(r#"{"job_id": "bash-1"}"#, "killed"),
            ),
            Tool::TodoWrite | Tool::CcTodoWrite => (
                "`todos` (array of `{content, status}`; also the session's plan)",
                GENERIC_RESULT,
                generic(
                    r#"{"todos": [{"content": "Fix the port", "status": "in_progress"}]}"#,
                    "Todos updated",
                ),
            ),
            Tool::Grep => (
                "`pattern` (string, required), `path`, `include`",
                "A search card from meta `{shape: \"matches\", files: [{path, matches: [{lineNumber, line}]}], truncated, total}`; otherwise the text as is.",
                Example {
                    args: r#"{"pattern": "TODO", "path": "src"}"#,
                    text: "src/app.ts:2: // TODO",
                    meta: Some(
                        r#"{"shape": "matches", "files": [{"path": "src/app.ts", "matches": [{"lineNumber": 2, "line": "// TODO"}]}], "truncated": false, "total": 1}"#,
                    ),
                    call_card: "generic",
                    result_card: "search",
                },
            ),
            Tool::Glob => (
                "`pattern` (string, required), `path`",
                "A search card from meta `{shape: \"paths\", paths: [string], truncated, total}`; otherwise the text as is.",
                Example {
                    args: r#"{"pattern": "**/*.ts"}"#,
                    text: "src/app.ts\nsrc/app.test.ts",
                    meta: Some(
                        r#"{"shape": "paths", "paths": ["src/app.ts", "src/app.test.ts"], "truncated": false, "total": 2}"#,
                    ),
                    call_card: "generic",
                    result_card: "search",
                },
            ),
            Tool::WebSearch => (
                "`queries` (array of strings, required)",
                "A web card from meta `{sources: [{url, title?, snippet?, publishedAt?}], truncated, answer?}`; otherwise the text as is.",
                Example {
                    args: r#"{"queries": ["tokio select"]}"#,
                    text: "1 result",
                    meta: Some(
                        r#"{"sources": [{"url": "https://docs.rs/tokio", "title": "tokio"}], "truncated": false}"#,
                    ),
                    call_card: "generic",
                    result_card: "web",
                },
            ),
            Tool::WebFetch => (
                "`url` (string, required)",
                "A web card from meta `{url, statusCode, truncated}`; otherwise the text as is.",
                Example {
                    args: r#"{"url": "https://example.com"}"#,
                    text: "<html>…",
                    meta: Some(
                        r#"{"url": "https://example.com/", "statusCode": 200, "truncated": false}"#,
                    ),
                    call_card: "generic",
                    result_card: "web",
                },
            ),
            Tool::CcBash => (
                "`command`, `description`, `run_in_background` (none required)",
                "A terminal card: the output is the text (stdout, then stderr), the exit from meta `exit_code` (an integer) or `signal` (a string); none means exit 0. A failed command is not an error: send its output with `exit_code`. An error (the tool could not run): the text in a fence.",
                Example {
                    args: r#"{"command": "npm test", "description": "Run the tests"}"#,
                    text: "FAIL src/app.test.ts",
                    meta: Some(r#"{"exit_code": 1}"#),
                    call_card: "terminal",
                    result_card: "terminal",
                },
            ),
            Tool::CcRead => (
                "`file_path`, `offset`, `limit`",
                "A read card when every line of the text is in Claude Code's numbered form (`<spaces>N→text` or `N<tab>text`, numbers increasing); otherwise the text in a fence.",
                Example {
                    args: r#"{"file_path": "/work/app.ts"}"#,
                    text: "     1→export const port = 8080\n     2→// TODO",
                    meta: None,
                    call_card: "generic",
                    result_card: "read",
                },
            ),
            Tool::CcWrite => (
                "`file_path`, `content`",
                "A diff card from meta `structuredPatch` (Claude Code's tool response) or `before`/`after`; else the whole file from the arguments.",
                Example {
                    args: r#"{"file_path": "/work/notes.md", "content": "hello\n"}"#,
                    text: "File created successfully at: /work/notes.md",
                    meta: None,
                    call_card: "diff",
                    result_card: "diff",
                },
            ),
            Tool::CcEdit => (
                "`file_path`, `old_string`, `new_string`",
                "A diff card from meta `structuredPatch` (with `filePath`) or `before`/`after`; without meta, the call's own diff stays.",
                Example {
                    args: r#"{"file_path": "/work/app.ts", "old_string": "3000", "new_string": "8080"}"#,
                    text: "The file /work/app.ts has been updated.",
                    meta: Some(
                        r#"{"filePath": "/work/app.ts", "structuredPatch": [{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1, "lines": ["-export const port = 3000", "+export const port = 8080"]}]}"#,
                    ),
                    call_card: "diff",
                    result_card: "diff",
                },
            ),
            Tool::CcMultiEdit => (
                "`file_path`, `edits` (array of `{old_string, new_string}`)",
                "The call's own diff stays (the result's text is not shown over it).",
                Example {
                    args: r#"{"file_path": "/work/app.ts", "edits": [{"old_string": "3000", "new_string": "8080"}]}"#,
                    text: "Applied 1 edit",
                    meta: None,
                    call_card: "diff",
                    result_card: "diff",
                },
            ),
            Tool::CcGlob => (
                "`pattern`, `path`",
                "The text as is: send the matched paths, one a line (Claude Code's tool response has them in `filenames`).",
                generic(r#"{"pattern": "**/*.ts"}"#, "src/app.ts\nsrc/app.test.ts"),
            ),
            Tool::CcGrep => (
                "`pattern`, `path`, `-i`, `-n`, `-A`, `-B`, `-C`, `output_mode`, `head_limit`, `glob`, `type`, `multiline`",
                "The text as is: send the matches as Claude Code gives them to the model (`content`, or `filenames` one a line).",
                generic(
                    r#"{"pattern": "TODO", "path": "src", "-n": true}"#,
                    "src/app.ts:2:// TODO",
                ),
            ),
            Tool::CcLs => (
                "`path`",
                GENERIC_RESULT,
                generic(r#"{"path": "/work"}"#, "- /work/\n  - app.ts"),
            ),
            Tool::CcWebFetch => (
                "`url`, `prompt`",
                GENERIC_RESULT,
                generic(
                    r#"{"url": "https://example.com", "prompt": "Summarize"}"#,
                    "An example page.",
                ),
            ),
            Tool::CcWebSearch => (
                "`query`, `allowed_domains`, `blocked_domains`",
                GENERIC_RESULT,
                generic(r#"{"query": "tokio select"}"#, "1. tokio — docs.rs"),
            ),
            Tool::CcTask => (
                "`description`, `prompt`",
                GENERIC_RESULT,
                generic(
                    r#"{"description": "Find the port", "prompt": "Where is the port set?"}"#,
                    "In src/app.ts.",
                ),
            ),
            Tool::CcExitPlanMode => (
                "`plan`",
                "A generic card titled \"Exited Plan Mode\" with the text.",
                generic(r#"{"plan": "1. Fix the port"}"#, "User approved the plan."),
            ),
            Tool::CcNotebookEdit => (
                "`notebook_path`, `new_source`",
                GENERIC_RESULT,
                generic(
                    r#"{"notebook_path": "/work/a.ipynb", "new_source": "print(1)"}"#,
                    "Updated cell 1",
                ),
            ),
            Tool::CcBashOutput => (
                "`bash_id`",
                GENERIC_RESULT,
                generic(r#"{"bash_id": "bash_1"}"#, "watching"),
            ),
            Tool::CcKillShell => (
                "`shell_id`",
                GENERIC_RESULT,
                generic(r#"{"shell_id": "bash_1"}"#, "Killed"),
            ),
        };
        ToolDoc {
            args,
            result,
            example,
        }
    }
}

/// An example whose call and result are generic cards.
const fn generic(args: &'static str, text: &'static str) -> Example {
    Example {
        args,
        text,
        meta: None,
        call_card: "generic",
        result_card: "generic",
    }
}
