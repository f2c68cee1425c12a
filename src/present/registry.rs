//! The built-in presenters, by exact (case-sensitive) tool name. A closed enum: adding a tool
//! means adding a variant, and every match below must then handle it.

use serde_json::Value;

use super::args::Presented;
use super::claude::{self, ResultRule};
use super::{ToolResult, dsh};
use crate::domain::{Plan, PlanEntry, PlanStatus, ToolCallView, ToolResultView};

/// A tool with a built-in presenter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    // Vocabulary 1: the reference harness.
    /// `read`.
    Read,
    /// `write`.
    Write,
    /// `edit`.
    Edit,
    /// `read_image`.
    ReadImage,
    /// `bash` and `pwsh`.
    Shell,
    /// `job_output`.
    JobOutput,
    /// `job_list`.
    JobList,
    /// `job_kill`.
    JobKill,
    /// `todo_write`.
    TodoWrite,
    /// `grep`.
    Grep,
    /// `glob`.
    Glob,
    /// `web_search`.
    WebSearch,
    /// `web_fetch`.
    WebFetch,
    // Vocabulary 2: Claude Code.
    /// `Bash`.
    CcBash,
    /// `Read`.
    CcRead,
    /// `Write`.
    CcWrite,
    /// `Edit`.
    CcEdit,
    /// `MultiEdit`.
    CcMultiEdit,
    /// `Glob`.
    CcGlob,
    /// `Grep`.
    CcGrep,
    /// `LS`.
    CcLs,
    /// `WebFetch`.
    CcWebFetch,
    /// `WebSearch`.
    CcWebSearch,
    /// `TodoWrite`.
    CcTodoWrite,
    /// `Task` and `Agent`.
    CcTask,
    /// `ExitPlanMode`.
    CcExitPlanMode,
    /// `NotebookEdit`.
    CcNotebookEdit,
    /// `BashOutput`.
    CcBashOutput,
    /// `KillShell` and `KillBash`.
    CcKillShell,
}

impl Tool {
    /// The presenter for a tool name, if there is one.
    pub fn lookup(name: &str) -> Option<Tool> {
        TOOLS
            .iter()
            .find(|(known, _)| *known == name)
            .map(|&(_, tool)| tool)
    }

    /// The call view, or a decline.
    pub fn call(self, args: &Value) -> Presented<ToolCallView> {
        match self {
            Tool::Read => dsh::read_call(args),
            Tool::Write => dsh::write_call(args),
            Tool::Edit => dsh::edit_call(args),
            Tool::ReadImage => dsh::read_image_call(args),
            Tool::Shell => dsh::bash_call(args),
            Tool::JobOutput => dsh::job_output_call(args),
            Tool::JobList => dsh::job_list_call(args),
            Tool::JobKill => dsh::job_kill_call(args),
            Tool::TodoWrite => dsh::todo_write_call(args),
            Tool::Grep => dsh::grep_call(args),
            Tool::Glob => dsh::glob_call(args),
            Tool::WebSearch => dsh::web_search_call(args),
            Tool::WebFetch => dsh::web_fetch_call(args),
            Tool::CcBash => Ok(claude::bash_call(args)),
            Tool::CcRead => Ok(claude::read_call(args)),
            Tool::CcWrite => Ok(claude::write_call(args)),
            Tool::CcEdit => Ok(claude::edit_call(args)),
            Tool::CcMultiEdit => Ok(claude::multi_edit_call(args)),
            Tool::CcGlob => Ok(claude::glob_call(args)),
            Tool::CcGrep => Ok(claude::grep_call(args)),
            Tool::CcLs => Ok(claude::ls_call(args)),
            Tool::CcWebFetch => Ok(claude::web_fetch_call(args)),
            Tool::CcWebSearch => Ok(claude::web_search_call(args)),
            Tool::CcTodoWrite => Ok(claude::todo_write_call(args)),
            Tool::CcTask => Ok(claude::task_call(args)),
            Tool::CcExitPlanMode => Ok(claude::exit_plan_mode_call(args)),
            Tool::CcNotebookEdit => Ok(claude::notebook_edit_call(args)),
            Tool::CcBashOutput => Ok(claude::bash_output_call(args)),
            Tool::CcKillShell => Ok(claude::kill_shell_call(args)),
        }
    }

    /// The plan a call's arguments state: for the todo tools, one entry per item of `todos`
    /// with a string `content` (status `in_progress` or `completed`, anything else pending);
    /// none when `todos` is not an array, and for every other tool.
    pub fn plan(self, args: &Value) -> Option<Plan> {
        match self {
            Tool::TodoWrite | Tool::CcTodoWrite => todo_plan(args),
            Tool::Read
            | Tool::Write
            | Tool::Edit
            | Tool::ReadImage
            | Tool::Shell
            | Tool::JobOutput
            | Tool::JobList
            | Tool::JobKill
            | Tool::Grep
            | Tool::Glob
            | Tool::WebSearch
            | Tool::WebFetch
            | Tool::CcBash
            | Tool::CcRead
            | Tool::CcWrite
            | Tool::CcEdit
            | Tool::CcMultiEdit
            | Tool::CcGlob
            | Tool::CcGrep
            | Tool::CcLs
            | Tool::CcWebFetch
            | Tool::CcWebSearch
            | Tool::CcTask
            | Tool::CcExitPlanMode
            | Tool::CcNotebookEdit
            | Tool::CcBashOutput
            | Tool::CcKillShell => None,
        }
    }

    /// The result view, or a decline.
    pub fn result(self, args: &Value, r: &ToolResult) -> Presented<ToolResultView> {
        use super::args::Decline;
        let declines = Err(Decline);
        match self {
            Tool::Read => dsh::read_result(args, r),
            Tool::Write => dsh::write_result(args, r),
            Tool::Edit => dsh::edit_result(args, r),
            Tool::Shell => dsh::bash_result(args, r),
            Tool::Grep => dsh::grep_result(args, r),
            Tool::Glob => dsh::glob_result(args, r),
            Tool::WebSearch => dsh::web_search_result(args, r),
            Tool::WebFetch => dsh::web_fetch_result(args, r),
            Tool::ReadImage | Tool::JobOutput | Tool::JobList | Tool::JobKill | Tool::TodoWrite => {
                declines
            }
            Tool::CcBash => claude::result(ResultRule::Bash, args, r),
            Tool::CcRead => claude::result(ResultRule::Read, args, r),
            Tool::CcEdit => claude::result(ResultRule::Edit, args, r),
            Tool::CcWrite => claude::result(ResultRule::Write, args, r),
            Tool::CcExitPlanMode => claude::result(ResultRule::ExitPlanMode, args, r),
            Tool::CcMultiEdit
            | Tool::CcGlob
            | Tool::CcGrep
            | Tool::CcLs
            | Tool::CcWebFetch
            | Tool::CcWebSearch
            | Tool::CcTodoWrite
            | Tool::CcTask
            | Tool::CcNotebookEdit
            | Tool::CcBashOutput
            | Tool::CcKillShell => claude::result(ResultRule::Decline, args, r),
        }
    }
}

fn todo_plan(args: &Value) -> Option<Plan> {
    let todos = args.get("todos")?.as_array()?;
    let entries = todos
        .iter()
        .filter_map(|t| {
            let content = t.get("content")?.as_str()?.to_owned();
            let status = match t.get("status").and_then(Value::as_str) {
                Some("in_progress") => PlanStatus::InProgress,
                Some("completed") => PlanStatus::Completed,
                // Unknown statuses, and none, count as not started.
                Some(_) | None => PlanStatus::Pending,
            };
            Some(PlanEntry { content, status })
        })
        .collect();
    Some(Plan { entries })
}

/// Every tool name with a built-in presenter and its presenter: 14 names of vocabulary 1, 17 of
/// vocabulary 2, and the alias `KillBash`. The one list: [`Tool::lookup`] reads it, and so do
/// the property tests.
pub const TOOLS: [(&str, Tool); 32] = [
    ("read", Tool::Read),
    ("write", Tool::Write),
    ("edit", Tool::Edit),
    ("read_image", Tool::ReadImage),
    ("bash", Tool::Shell),
    ("pwsh", Tool::Shell),
    ("job_output", Tool::JobOutput),
    ("job_list", Tool::JobList),
    ("job_kill", Tool::JobKill),
    ("todo_write", Tool::TodoWrite),
    ("grep", Tool::Grep),
    ("glob", Tool::Glob),
    ("web_search", Tool::WebSearch),
    ("web_fetch", Tool::WebFetch),
    ("Bash", Tool::CcBash),
    ("Read", Tool::CcRead),
    ("Write", Tool::CcWrite),
    ("Edit", Tool::CcEdit),
    ("MultiEdit", Tool::CcMultiEdit),
    ("Glob", Tool::CcGlob),
    ("Grep", Tool::CcGrep),
    ("LS", Tool::CcLs),
    ("WebFetch", Tool::CcWebFetch),
    ("WebSearch", Tool::CcWebSearch),
    ("TodoWrite", Tool::CcTodoWrite),
    ("Task", Tool::CcTask),
    ("Agent", Tool::CcTask),
    ("ExitPlanMode", Tool::CcExitPlanMode),
    ("NotebookEdit", Tool::CcNotebookEdit),
    ("BashOutput", Tool::CcBashOutput),
    ("KillShell", Tool::CcKillShell),
    ("KillBash", Tool::CcKillShell),
];
