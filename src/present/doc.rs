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
        match self {
            Tool::Read => READ,
            Tool::Write => WRITE,
            Tool::Edit => EDIT,
            Tool::ReadImage => READ_IMAGE,
            Tool::Shell => SHELL,
            Tool::JobOutput => JOB_OUTPUT,
            Tool::JobList => JOB_LIST,
            Tool::JobKill => JOB_KILL,
            Tool::TodoWrite | Tool::CcTodoWrite => TODO_WRITE,
            Tool::Grep => GREP,
            Tool::Glob => GLOB,
            Tool::WebSearch => WEB_SEARCH,
            Tool::WebFetch => WEB_FETCH,
            Tool::CcBash => CC_BASH,
            Tool::CcRead => CC_READ,
            Tool::CcWrite => CC_WRITE,
            Tool::CcEdit => CC_EDIT,
            Tool::CcMultiEdit => CC_MULTI_EDIT,
            Tool::CcGlob => CC_GLOB,
            Tool::CcGrep => CC_GREP,
            Tool::CcLs => CC_LS,
            Tool::CcWebFetch => CC_WEB_FETCH,
            Tool::CcWebSearch => CC_WEB_SEARCH,
            Tool::CcTask => CC_TASK,
            Tool::CcExitPlanMode => CC_EXIT_PLAN_MODE,
            Tool::CcNotebookEdit => CC_NOTEBOOK_EDIT,
            Tool::CcBashOutput => CC_BASH_OUTPUT,
            Tool::CcKillShell => CC_KILL_SHELL,
        }
    }
}

// One entry a tool, in the order of `super::TOOLS`.
const READ: ToolDoc = ToolDoc {
    args: "`file_path` (string, required), `offset`, `limit` (integers ≥ 1)",
    result: "A read card when the text is `<path>P</path>\\n<type>file</type>\\n<content>\\nBODY\\n</content>` and meta is the window `{path, offset, lines: [{number, text}], totalLines, lang?}`; otherwise the text as is.",
    example: Example {
        args: r#"{"file_path": "/work/app.ts", "offset": 1, "limit": 2}"#,
        text: "<path>/work/app.ts</path>\n<type>file</type>\n<content>\n1: export const port = 8080\n2: // TODO\n</content>",
        meta: Some(
            r#"{"path": "/work/app.ts", "offset": 1, "lines": [{"number": 1, "text": "export const port = 8080"}, {"number": 2, "text": "// TODO"}], "totalLines": 2}"#,
        ),
        call_card: "generic",
        result_card: "read",
    },
};

const WRITE: ToolDoc = ToolDoc {
    args: "`file_path`, `content` (strings, required)",
    result: "A diff card: meta `diffs`, `structuredPatch` or `before`/`after` when given, else the whole file from the arguments.",
    example: Example {
        args: r#"{"file_path": "/work/notes.md", "content": "hello\n"}"#,
        text: "Wrote /work/notes.md",
        meta: None,
        call_card: "diff",
        result_card: "diff",
    },
};

const EDIT: ToolDoc = ToolDoc {
    args: "`file_path`, `old_string`, `new_string` (strings, required), `replace_all`",
    result: "A diff card from meta `diffs`, `structuredPatch` or `before`/`after` (the hunks applied); without meta, the call's own diff stays.",
    example: Example {
        args: r#"{"file_path": "/work/app.ts", "old_string": "3000", "new_string": "8080"}"#,
        text: "Edited /work/app.ts",
        meta: Some(
            r#"{"before": "export const port = 3000\n", "after": "export const port = 8080\n"}"#,
        ),
        call_card: "diff",
        result_card: "diff",
    },
};

const READ_IMAGE: ToolDoc = ToolDoc {
    args: "`file_path` (string, required)",
    result: GENERIC_RESULT,
    example: generic(r#"{"file_path": "/work/logo.png"}"#, "[image]"),
};

const SHELL: ToolDoc = ToolDoc {
    args: "`command`, `description` (strings, both required), `workdir`, `run_in_background`",
    result: "A terminal card: the output is the text; a last line `[exit code: N]` or `[killed by signal: S]` gives the exit (none: exit 0). An error or a background command: the text in a console block.",
    example: Example {
        args: r#"{"command": "npm test", "description": "Run the tests"}"#,
        text: "FAIL src/app.test.ts\n[exit code: 1]",
        meta: None,
        call_card: "terminal",
        result_card: "terminal",
    },
};

const JOB_OUTPUT: ToolDoc = ToolDoc {
    args: "`job_id` (string, required)",
    result: GENERIC_RESULT,
    example: generic(r#"{"job_id": "bash-1"}"#, "watching for changes"),
};

const JOB_LIST: ToolDoc = ToolDoc {
    args: "none",
    result: GENERIC_RESULT,
    example: generic("{}", "bash-1 running"),
};

const JOB_KILL: ToolDoc = ToolDoc {
    args: "`job_id` (string, required)",
    result: GENERIC_RESULT,
    example: generic(r#"{"job_id": "bash-1"}"#, "killed"),
};

const TODO_WRITE: ToolDoc = ToolDoc {
    args: "`todos` (array of `{content, status}`; also the session's plan)",
    result: GENERIC_RESULT,
    example: generic(
        r#"{"todos": [{"content": "Fix the port", "status": "in_progress"}]}"#,
        "Todos updated",
    ),
};

const GREP: ToolDoc = ToolDoc {
    args: "`pattern` (string, required), `path`, `include`",
    result: "A search card from meta `{shape: \"matches\", files: [{path, matches: [{lineNumber, line}]}], truncated, total}`; otherwise the text as is.",
    example: Example {
        args: r#"{"pattern": "TODO", "path": "src"}"#,
        text: "src/app.ts:2: // TODO",
        meta: Some(
            r#"{"shape": "matches", "files": [{"path": "src/app.ts", "matches": [{"lineNumber": 2, "line": "// TODO"}]}], "truncated": false, "total": 1}"#,
        ),
        call_card: "generic",
        result_card: "search",
    },
};

const GLOB: ToolDoc = ToolDoc {
    args: "`pattern` (string, required), `path`",
    result: "A search card from meta `{shape: \"paths\", paths: [string], truncated, total}`; otherwise the text as is.",
    example: Example {
        args: r#"{"pattern": "**/*.ts"}"#,
        text: "src/app.ts\nsrc/app.test.ts",
        meta: Some(
            r#"{"shape": "paths", "paths": ["src/app.ts", "src/app.test.ts"], "truncated": false, "total": 2}"#,
        ),
        call_card: "generic",
        result_card: "search",
    },
};

const WEB_SEARCH: ToolDoc = ToolDoc {
    args: "`queries` (array of strings, required)",
    result: "A web card from meta `{sources: [{url, title?, snippet?, publishedAt?}], truncated, answer?}`; otherwise the text as is.",
    example: Example {
        args: r#"{"queries": ["tokio select"]}"#,
        text: "1 result",
        meta: Some(
            r#"{"sources": [{"url": "https://docs.rs/tokio", "title": "tokio"}], "truncated": false}"#,
        ),
        call_card: "generic",
        result_card: "web",
    },
};

const WEB_FETCH: ToolDoc = ToolDoc {
    args: "`url` (string, required)",
    result: "A web card from meta `{url, statusCode, truncated}`; otherwise the text as is.",
    example: Example {
        args: r#"{"url": "https://example.com"}"#,
        text: "<html>…",
        meta: Some(r#"{"url": "https://example.com/", "statusCode": 200, "truncated": false}"#),
        call_card: "generic",
        result_card: "web",
    },
};

const CC_BASH: ToolDoc = ToolDoc {
    args: "`command`, `description`, `run_in_background` (none required)",
    result: "A terminal card: the output is the text (stdout, then stderr), the exit from meta `exit_code` (an integer) or `signal` (a string); none means exit 0. A failed command is not an error: send its output with `exit_code`. An error (the tool could not run): the text in a fence.",
    example: Example {
        args: r#"{"command": "npm test", "description": "Run the tests"}"#,
        text: "FAIL src/app.test.ts",
        meta: Some(r#"{"exit_code": 1}"#),
        call_card: "terminal",
        result_card: "terminal",
    },
};

const CC_READ: ToolDoc = ToolDoc {
    args: "`file_path`, `offset`, `limit`",
    result: "A read card when every line of the text is in Claude Code's numbered form (`<spaces>N→text` or `N<tab>text`, numbers increasing); otherwise the text in a fence.",
    example: Example {
        args: r#"{"file_path": "/work/app.ts"}"#,
        text: "     1→export const port = 8080\n     2→// TODO",
        meta: None,
        call_card: "generic",
        result_card: "read",
    },
};

const CC_WRITE: ToolDoc = ToolDoc {
    args: "`file_path`, `content`",
    result: "A diff card from meta `structuredPatch` (Claude Code's tool response) or `before`/`after`; else the whole file from the arguments.",
    example: Example {
        args: r#"{"file_path": "/work/notes.md", "content": "hello\n"}"#,
        text: "File created successfully at: /work/notes.md",
        meta: None,
        call_card: "diff",
        result_card: "diff",
    },
};

const CC_EDIT: ToolDoc = ToolDoc {
    args: "`file_path`, `old_string`, `new_string`",
    result: "A diff card from meta `structuredPatch` (with `filePath`) or `before`/`after`; without meta, the call's own diff stays.",
    example: Example {
        args: r#"{"file_path": "/work/app.ts", "old_string": "3000", "new_string": "8080"}"#,
        text: "The file /work/app.ts has been updated.",
        meta: Some(
            r#"{"filePath": "/work/app.ts", "structuredPatch": [{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1, "lines": ["-export const port = 3000", "+export const port = 8080"]}]}"#,
        ),
        call_card: "diff",
        result_card: "diff",
    },
};

const CC_MULTI_EDIT: ToolDoc = ToolDoc {
    args: "`file_path`, `edits` (array of `{old_string, new_string}`)",
    result: "The call's own diff stays (the result's text is not shown over it).",
    example: Example {
        args: r#"{"file_path": "/work/app.ts", "edits": [{"old_string": "3000", "new_string": "8080"}]}"#,
        text: "Applied 1 edit",
        meta: None,
        call_card: "diff",
        result_card: "diff",
    },
};

const CC_GLOB: ToolDoc = ToolDoc {
    args: "`pattern`, `path`",
    result: "The text as is: send the matched paths, one a line (Claude Code's tool response has them in `filenames`).",
    example: generic(r#"{"pattern": "**/*.ts"}"#, "src/app.ts\nsrc/app.test.ts"),
};

const CC_GREP: ToolDoc = ToolDoc {
    args: "`pattern`, `path`, `-i`, `-n`, `-A`, `-B`, `-C`, `output_mode`, `head_limit`, `glob`, `type`, `multiline`",
    result: "The text as is: send the matches as Claude Code gives them to the model (`content`, or `filenames` one a line).",
    example: generic(
        r#"{"pattern": "TODO", "path": "src", "-n": true}"#,
        "src/app.ts:2:// TODO",
    ),
};

const CC_LS: ToolDoc = ToolDoc {
    args: "`path`",
    result: GENERIC_RESULT,
    example: generic(r#"{"path": "/work"}"#, "- /work/\n  - app.ts"),
};

const CC_WEB_FETCH: ToolDoc = ToolDoc {
    args: "`url`, `prompt`",
    result: GENERIC_RESULT,
    example: generic(
        r#"{"url": "https://example.com", "prompt": "Summarize"}"#,
        "An example page.",
    ),
};

const CC_WEB_SEARCH: ToolDoc = ToolDoc {
    args: "`query`, `allowed_domains`, `blocked_domains`",
    result: GENERIC_RESULT,
    example: generic(r#"{"query": "tokio select"}"#, "1. tokio — docs.rs"),
};

const CC_TASK: ToolDoc = ToolDoc {
    args: "`description`, `prompt`",
    result: GENERIC_RESULT,
    example: generic(
        r#"{"description": "Find the port", "prompt": "Where is the port set?"}"#,
        "In src/app.ts.",
    ),
};

const CC_EXIT_PLAN_MODE: ToolDoc = ToolDoc {
    args: "`plan`",
    result: "A generic card titled \"Exited Plan Mode\" with the text.",
    example: generic(r#"{"plan": "1. Fix the port"}"#, "User approved the plan."),
};

const CC_NOTEBOOK_EDIT: ToolDoc = ToolDoc {
    args: "`notebook_path`, `new_source`",
    result: GENERIC_RESULT,
    example: generic(
        r#"{"notebook_path": "/work/a.ipynb", "new_source": "print(1)"}"#,
        "Updated cell 1",
    ),
};

const CC_BASH_OUTPUT: ToolDoc = ToolDoc {
    args: "`bash_id`",
    result: GENERIC_RESULT,
    example: generic(r#"{"bash_id": "bash_1"}"#, "watching"),
};

const CC_KILL_SHELL: ToolDoc = ToolDoc {
    args: "`shell_id`",
    result: GENERIC_RESULT,
    example: generic(r#"{"shell_id": "bash_1"}"#, "Killed"),
};

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
