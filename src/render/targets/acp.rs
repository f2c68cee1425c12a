//! Target ACP: complete `session/update` JSON-RPC notifications (Agent Client Protocol v1),
//! built with the ACP schema crate.

use agent_client_protocol_schema::v1 as acp;
use base64::Engine as _;
use serde_json::{Map, Value};

use crate::domain::{
    ContentBlock, FileDiff, FileLocation, MessageRole, Plan, PlanStatus, TerminalExit,
    ToolCallView, ToolKind, ToolResultView,
};
use crate::present::text::fence;
use crate::render::Context;
use crate::render::acp_meta::{
    AcpMeta, InputState, McpAppRef, TerminalExited, TerminalInfo, TerminalOutput, ToolviewMeta,
};
use crate::render::cap::{Cap, TRUNCATED, cap_text};
use crate::render::card::{Capabilities, prepared_call, prepared_result};
use crate::render::fold::{
    CallState, CallStatus, Change, InputChange, MessageChange, MessageState, PermissionState, Turn,
};
use crate::render::live::{
    LiveChunk, capped_chunk, capped_streamed, capped_text, live_chunk, stream_crossed_cap,
};
use crate::render::paths::acp_path;
use crate::render::streamed::Chunk;
use crate::render::text_form::{
    PLAIN, console, read_lines_text, search_text, terminal_console, web_text,
};

pub(crate) fn render(change: Change<'_>, ctx: &Context<'_>, caps: &Capabilities) -> Vec<String> {
    let mut updates = match change {
        Change::Session => Vec::new(),
        Change::Ended(reason) => vec![ended(reason)],
        Change::Started(state) => started(state, ctx, caps),
        Change::Input(state, change) => input(state, change, ctx, caps),
        Change::Output(state, chunk) => output(state, chunk, caps).into_iter().collect(),
        Change::Finished(state) => vec![finished(state, ctx, caps)],
        Change::Snapshot(state) => snapshot(state, ctx, caps),
        Change::Turn(turn) => turn_end(turn).into_iter().collect(),
        Change::Message(m, change) => message(m, change, caps).into_iter().collect(),
        Change::Permission(p) => vec![permission(p)],
    };
    updates.extend(ctx.parent.and_then(|p| progress(p, ctx, caps)));
    updates
        .into_iter()
        .map(|u| notification(ctx.session_id, u))
        .collect()
}

/// A message's text as a user, agent or thought chunk: its start's text, each delta (capped
/// like live output), a late joiner's text so far; nothing for an empty text or its finish (ACP
/// has no message end: a new `messageId` starts the next).
fn message(
    m: &MessageState,
    change: MessageChange<'_>,
    caps: &Capabilities,
) -> Option<acp::SessionUpdate> {
    let cap = caps.cap();
    let text = match change {
        MessageChange::Started | MessageChange::Snapshot => capped_text(&m.text, None, cap),
        MessageChange::Delta(chunk) => capped_chunk(chunk, cap).into(),
        MessageChange::Finished => return None,
    };
    if text.is_empty() {
        return None;
    }
    let chunk = acp::ContentChunk::new(acp::ContentBlock::Text(acp::TextContent::new(
        text.into_owned(),
    )))
    .message_id(acp::MessageId::new(m.message_id.as_str()));
    Some(match m.role {
        MessageRole::User => acp::SessionUpdate::UserMessageChunk(chunk),
        MessageRole::Assistant => acp::SessionUpdate::AgentMessageChunk(chunk),
        MessageRole::Reasoning => acp::SessionUpdate::AgentThoughtChunk(chunk),
    })
}

/// A turn's end as ACP can say it: a `usage_update` when the harness sent the context window's
/// size (its fields are required). The end of a prompt turn itself is the answer to
/// `session/prompt`, which an observer does not give.
fn turn_end(turn: Turn<'_>) -> Option<acp::SessionUpdate> {
    let usage = turn.finished?.usage?;
    (usage.context_window > 0).then(|| {
        acp::SessionUpdate::UsageUpdate(acp::UsageUpdate::new(
            usage.context_tokens,
            usage.context_window,
        ))
    })
}

/// A permission request on its call's card: `pending` while it waits, `in_progress` again once
/// decided if the call still runs. A question about no call is a card of its own
/// (`permission-<request id>`), completed when allowed and failed otherwise. The prompt and the
/// decision are in `_meta.toolview.permission` (ACP v1 has no field for them; `toolview acp`
/// also asks the editor with `session/request_permission`).
fn permission(p: &PermissionState) -> acp::SessionUpdate {
    let prompt = Box::new(crate::render::permission::PermissionPrompt::of(p));
    let m = AcpMeta::toolview(ToolviewMeta {
        permission: Some(prompt),
        ..ToolviewMeta::default()
    })
    .into_map();
    let decided = p.resolution.is_some();
    let Some(call) = &p.request.call_id else {
        let id = format!("permission-{}", p.request.request_id);
        let title = crate::render::permission::shown(&p.request).title;
        if !decided {
            return acp::SessionUpdate::ToolCall(
                acp::ToolCall::new(id, title)
                    .kind(acp::ToolKind::Other)
                    .status(acp::ToolCallStatus::Pending)
                    .meta(m),
            );
        }
        let status = if crate::render::permission::allowed(&p.request, p.resolution.as_ref()) {
            acp::ToolCallStatus::Completed
        } else {
            acp::ToolCallStatus::Failed
        };
        return acp::SessionUpdate::ToolCallUpdate(
            acp::ToolCallUpdate::new(
                id,
                acp::ToolCallUpdateFields::new().title(title).status(status),
            )
            .meta(m),
        );
    };
    let fields = match (decided, p.call_running) {
        (false, _) => acp::ToolCallUpdateFields::new().status(acp::ToolCallStatus::Pending),
        (true, true) => acp::ToolCallUpdateFields::new().status(acp::ToolCallStatus::InProgress),
        (true, false) => acp::ToolCallUpdateFields::new(),
    };
    acp::SessionUpdate::ToolCallUpdate(acp::ToolCallUpdate::new(call.to_string(), fields).meta(m))
}

/// The harness closed the session: a `session_info_update` whose `_meta.toolview` says so (ACP
/// v1 has no state of its own for a session; the v2 draft's `state_update` is where it goes).
fn ended(reason: &str) -> acp::SessionUpdate {
    let m = AcpMeta::toolview(ToolviewMeta {
        state: Some("ended".into()),
        reason: (!reason.is_empty()).then(|| reason.to_owned()),
        ..ToolviewMeta::default()
    })
    .into_map();
    acp::SessionUpdate::SessionInfoUpdate(acp::SessionInfoUpdate::new().meta(m))
}

/// Wraps an update in the JSON-RPC `session/update` notification.
fn notification(session_id: &str, update: acp::SessionUpdate) -> String {
    let params = acp::SessionNotification::new(session_id.to_owned(), update);
    let message = acp::JsonRpcMessage::wrap(acp::Notification {
        method: "session/update".into(),
        params: Some(params),
    });
    serde_json::to_string(&message).expect("ACP messages serialize")
}

fn kind(k: Option<ToolKind>) -> acp::ToolKind {
    match k {
        Some(ToolKind::Read) => acp::ToolKind::Read,
        Some(ToolKind::Edit) => acp::ToolKind::Edit,
        Some(ToolKind::Delete) => acp::ToolKind::Delete,
        Some(ToolKind::Move) => acp::ToolKind::Move,
        Some(ToolKind::Search) => acp::ToolKind::Search,
        Some(ToolKind::Execute) => acp::ToolKind::Execute,
        Some(ToolKind::Think) => acp::ToolKind::Think,
        Some(ToolKind::Fetch) => acp::ToolKind::Fetch,
        Some(ToolKind::SwitchMode) => acp::ToolKind::SwitchMode,
        Some(ToolKind::Other) | None => acp::ToolKind::Other,
    }
}

fn text_item(text: impl Into<String>) -> acp::ToolCallContent {
    acp::ToolCallContent::Content(acp::Content::new(acp::ContentBlock::Text(
        acp::TextContent::new(text),
    )))
}

/// The content mapping: text as text, images with data as images, other images and resource
/// links as resource links; reasoning is dropped.
fn content(blocks: &[ContentBlock]) -> Vec<acp::ToolCallContent> {
    blocks
        .iter()
        .filter_map(|b| {
            let block = match b {
                ContentBlock::Text { text } => {
                    acp::ContentBlock::Text(acp::TextContent::new(text.clone()))
                }
                ContentBlock::Reasoning { .. } => return None,
                ContentBlock::Image(img) => match (&img.data, &img.uri) {
                    (Some(data), uri) => acp::ContentBlock::Image(
                        acp::ImageContent::new(
                            base64::engine::general_purpose::STANDARD.encode(data),
                            img.mime_type.clone(),
                        )
                        .uri(uri.clone()),
                    ),
                    (None, uri) => {
                        let uri = uri.clone().unwrap_or_default();
                        let mime = (!img.mime_type.is_empty()).then(|| img.mime_type.clone());
                        acp::ContentBlock::ResourceLink(
                            acp::ResourceLink::new(uri.clone(), uri).mime_type(mime),
                        )
                    }
                },
                ContentBlock::ResourceLink(l) => acp::ContentBlock::ResourceLink(
                    acp::ResourceLink::new(l.name.clone(), l.uri.clone())
                        .mime_type(l.mime_type.clone()),
                ),
            };
            Some(acp::ToolCallContent::Content(acp::Content::new(block)))
        })
        .collect()
}

fn diff_items(diffs: &[FileDiff], cwd: Option<&str>) -> Vec<acp::ToolCallContent> {
    diffs
        .iter()
        .map(|d| {
            acp::ToolCallContent::Diff(
                acp::Diff::new(acp_path(&d.path, cwd), d.new_text.clone())
                    .old_text(d.old_text.clone()),
            )
        })
        .collect()
}

fn locations(locs: &[FileLocation], cwd: Option<&str>) -> Vec<acp::ToolCallLocation> {
    locs.iter()
        .map(|l| acp::ToolCallLocation::new(acp_path(&l.path, cwd)).line(l.line))
        .collect()
}

/// `None` when empty: ACP omits empty arrays.
fn non_empty<T>(v: Vec<T>) -> Option<Vec<T>> {
    (!v.is_empty()).then_some(v)
}

/// `_meta.terminal_output` alone.
fn terminal_output(terminal_id: String, data: String) -> Map<String, Value> {
    AcpMeta {
        terminal_output: Some(TerminalOutput { terminal_id, data }),
        ..AcpMeta::default()
    }
    .into_map()
}

// ---- started ----------------------------------------------------------------------------------

fn started(state: &CallState, ctx: &Context<'_>, caps: &Capabilities) -> Vec<acp::SessionUpdate> {
    let Some(call) = tool_call(state, ctx, caps) else {
        return Vec::new();
    };
    let mut updates = vec![acp::SessionUpdate::ToolCall(call)];
    if let Some(plan) = &state.plan {
        updates.push(acp::SessionUpdate::Plan(acp_plan(plan)));
    }
    updates
}

/// A streaming input: the pending card again, its `rawInput` the input so far, each time the
/// fold read it (not at every delta: a replacement costs O(input), and the reads keep their
/// sum O(input)); the whole card once complete. `_meta.toolview.input` marks the replacements
/// while the input streams, which `toolview acp` throttles further in time.
fn input(
    state: &CallState,
    change: InputChange<'_>,
    ctx: &Context<'_>,
    caps: &Capabilities,
) -> Vec<acp::SessionUpdate> {
    match change {
        InputChange::Delta { read: false, .. } => Vec::new(),
        InputChange::Delta { read: true, .. } => tool_call(state, ctx, caps)
            .map(|call| {
                let update = acp::ToolCallUpdate::from(call).meta(
                    AcpMeta::toolview(ToolviewMeta {
                        input: Some(InputState::Streaming),
                        ..ToolviewMeta::default()
                    })
                    .into_map(),
                );
                acp::SessionUpdate::ToolCallUpdate(update)
            })
            .into_iter()
            .collect(),
        InputChange::Complete { .. } => {
            let Some(call) = tool_call(state, ctx, caps) else {
                return Vec::new();
            };
            // The input as it was last replaced stays unless replaced: the whole arguments.
            let mut update = acp::ToolCallUpdate::from(call);
            if update.fields.raw_input.is_none() {
                update.fields.raw_input = Some(state.input_value());
            }
            let mut updates = vec![acp::SessionUpdate::ToolCallUpdate(update)];
            updates.extend(
                state
                    .plan
                    .as_ref()
                    .map(|p| acp::SessionUpdate::Plan(acp_plan(p))),
            );
            updates
        }
    }
}

/// The call's card as a `tool_call`: `pending` with the input so far while its input streams,
/// `in_progress` otherwise. `None` for an orphan.
fn tool_call(state: &CallState, ctx: &Context<'_>, caps: &Capabilities) -> Option<acp::ToolCall> {
    let id = state.call_id.to_string();
    let view = prepared_call(state, ctx.cwd, caps.cap())?;
    let (status, so_far) = match &state.input {
        Some(input) => (acp::ToolCallStatus::Pending, Some(input.so_far.clone())),
        None => (acp::ToolCallStatus::InProgress, None),
    };
    let mut meta = AcpMeta::default();
    let call = match view {
        ToolCallView::Generic(g) => acp::ToolCall::new(id, g.title)
            .kind(kind(g.kind))
            .raw_input(so_far.or(g.raw_input))
            .locations(locations(&g.locations, ctx.cwd))
            .content(content(&g.content)),
        ToolCallView::Diff(d) => acp::ToolCall::new(id, d.title)
            .kind(acp::ToolKind::Edit)
            .locations(locations(&d.locations, ctx.cwd))
            .content(diff_items(&d.diffs, ctx.cwd)),
        ToolCallView::Terminal(t) => {
            let mut items: Vec<_> = t.description.iter().map(text_item).collect();
            let call = acp::ToolCall::new(id.clone(), t.title.clone())
                .kind(acp::ToolKind::Execute)
                .raw_input(Value::String(t.title));
            if caps.terminal {
                items.push(acp::ToolCallContent::Terminal(acp::Terminal::new(
                    id.clone(),
                )));
                meta.terminal_info = Some(TerminalInfo {
                    terminal_id: id,
                    cwd: t.cwd,
                });
            }
            call.content(items)
        }
    };
    if let Some(parent) = &state.parent {
        meta.toolview = Some(ToolviewMeta {
            parent_call_id: Some(parent.to_string()),
            ..ToolviewMeta::default()
        });
    }
    let call = call.status(status);
    Some(
        match meta.terminal_info.is_some() || meta.toolview.is_some() {
            true => call.meta(meta.into_map()),
            false => call,
        },
    )
}

/// A parent's card as its children move: its title with their progress (what a v1 client
/// shows of a subagent's calls in the parent's card), the counts and the latest child in
/// `_meta.toolview.children`. Only while the parent runs: a finished card keeps its last.
fn progress(
    parent: &CallState,
    ctx: &Context<'_>,
    caps: &Capabilities,
) -> Option<acp::SessionUpdate> {
    let children = parent.children.as_ref()?;
    let view = prepared_call(parent, ctx.cwd, caps.cap())?;
    let title = format!("{} ({})", view.title(), children.summary());
    let fields = acp::ToolCallUpdateFields::new().title(title);
    let update = acp::ToolCallUpdate::new(parent.call_id.to_string(), fields).meta(
        AcpMeta::toolview(ToolviewMeta {
            children: Some(children.clone()),
            ..ToolviewMeta::default()
        })
        .into_map(),
    );
    Some(acp::SessionUpdate::ToolCallUpdate(update))
}

/// The presenters' plan as ACP's `plan` update (every entry of medium priority).
fn acp_plan(plan: &Plan) -> acp::Plan {
    let entries = plan
        .entries
        .iter()
        .map(|e| {
            let status = match e.status {
                PlanStatus::Pending => acp::PlanEntryStatus::Pending,
                PlanStatus::InProgress => acp::PlanEntryStatus::InProgress,
                PlanStatus::Completed => acp::PlanEntryStatus::Completed,
            };
            acp::PlanEntry::new(e.content.clone(), acp::PlanEntryPriority::Medium, status)
        })
        .collect();
    acp::Plan::new(entries)
}

// ---- live output ------------------------------------------------------------------------------

fn is_terminal(state: &CallState) -> bool {
    matches!(state.call_view, Some(ToolCallView::Terminal(_)))
}

fn output(state: &CallState, chunk: Chunk<'_>, caps: &Capabilities) -> Option<acp::SessionUpdate> {
    let cap = caps.cap();
    let id = state.call_id.to_string();
    // A client that shows terminals appends their output; content replaces.
    let update = match live_chunk(state, chunk, cap, caps.terminal && is_terminal(state)) {
        LiveChunk::Nothing => return None,
        LiveChunk::Append(data) => {
            acp::ToolCallUpdate::new(id.clone(), acp::ToolCallUpdateFields::new())
                .meta(terminal_output(id, data.to_owned()))
        }
        LiveChunk::Snapshot => {
            // Content replaces: send everything streamed so far.
            let text = console(&capped_streamed(state, Some(chunk.end()), cap), None);
            acp::ToolCallUpdate::new(
                id,
                acp::ToolCallUpdateFields::new().content(vec![text_item(text)]),
            )
        }
    };
    Some(acp::SessionUpdate::ToolCallUpdate(update))
}

// ---- snapshot (a late joiner's catch-up) -------------------------------------------------------

/// The call as a replay would have left it: its `tool_call` (a generic one titled by the call id
/// for an orphan), its output so far as one update, and its result if it finished.
fn snapshot(state: &CallState, ctx: &Context<'_>, caps: &Capabilities) -> Vec<acp::SessionUpdate> {
    let id = state.call_id.to_string();
    let mut updates = started(state, ctx, caps);
    if updates.is_empty() {
        let call = acp::ToolCall::new(id.clone(), id.clone())
            .kind(acp::ToolKind::Other)
            .status(acp::ToolCallStatus::InProgress);
        updates.push(acp::SessionUpdate::ToolCall(call));
    }
    if !state.streamed.is_empty() {
        let cap = caps.cap();
        let so_far = capped_streamed(state, None, cap);
        let update = if caps.terminal && is_terminal(state) {
            acp::ToolCallUpdate::new(id.clone(), acp::ToolCallUpdateFields::new())
                .meta(terminal_output(id, so_far.to_string()))
        } else {
            let text = console(&so_far, None);
            acp::ToolCallUpdate::new(
                id,
                acp::ToolCallUpdateFields::new().content(vec![text_item(text)]),
            )
        };
        updates.push(acp::SessionUpdate::ToolCallUpdate(update));
    }
    if state.finished.is_some() {
        updates.push(finished(state, ctx, caps));
    }
    updates
}

// ---- finished ---------------------------------------------------------------------------------

fn finished(state: &CallState, ctx: &Context<'_>, caps: &Capabilities) -> acp::SessionUpdate {
    let id = state.call_id.to_string();
    let status = match state.status {
        CallStatus::Failed => acp::ToolCallStatus::Failed,
        CallStatus::Completed | CallStatus::InProgress | CallStatus::Pending => {
            acp::ToolCallStatus::Completed
        }
    };
    let cap = caps.cap();
    let result = prepared_result(state, ctx.cwd, cap).expect("a finished call has a result");
    let fields = acp::ToolCallUpdateFields::new().status(status);
    let mut update_meta = AcpMeta::default();
    let fields = match result {
        ToolResultView::Terminal(t) if caps.terminal && is_terminal(state) => {
            update_meta.terminal_output = Some(TerminalOutput {
                terminal_id: id.clone(),
                data: terminal_data(state, cap),
            });
            update_meta.terminal_exit = t.exit.as_ref().map(|exit| TerminalExited {
                terminal_id: id.clone(),
                exit_code: match exit {
                    TerminalExit::Code(c) => Some(i64::from(*c)),
                    TerminalExit::Signal(_) => None,
                },
                signal: match exit {
                    TerminalExit::Code(_) => None,
                    TerminalExit::Signal(s) => Some(s.clone()),
                },
            });
            // No content: it would replace the terminal.
            fields.title(t.title)
        }
        ToolResultView::Terminal(t) => {
            let output = t.output.as_deref().unwrap_or("");
            let console = terminal_console(output, t.exit.as_ref(), &state.streamed);
            let items = console.map(|c| vec![text_item(c)]);
            fields.title(t.title).content(items)
        }
        ToolResultView::Generic(g) => fields
            .title(g.title)
            .content(non_empty(content(&g.content))),
        ToolResultView::Diff(d) => fields
            .title(d.title)
            .content(non_empty(diff_items(&d.diffs, ctx.cwd)))
            .locations(non_empty(locations(&d.locations, ctx.cwd))),
        ToolResultView::Read(r) => {
            let text = fence(r.lang.as_deref().unwrap_or(""), &read_lines_text(&r));
            let location = acp::ToolCallLocation::new(acp_path(&r.path, ctx.cwd)).line(r.offset);
            fields
                .title(r.title)
                .content(vec![text_item(text)])
                .locations(vec![location])
        }
        ToolResultView::Search(s) => {
            let text = search_text(&s, &PLAIN);
            fields.title(s.title).content(vec![text_item(text)])
        }
        ToolResultView::Web(w) => {
            let text = web_text(&w, &PLAIN);
            fields.title(w.title).content(vec![text_item(text)])
        }
    };
    // An MCP App the result carries: its reference, for an editor that hosts apps.
    if let Some(app) = state.finished.as_ref().and_then(|f| f.app.as_ref()) {
        update_meta.toolview = Some(ToolviewMeta {
            mcp_app: Some(McpAppRef {
                resource_uri: app.resource_uri.clone(),
                server_id: app.server_id.clone(),
            }),
            ..ToolviewMeta::default()
        });
    }
    let update = acp::ToolCallUpdate::new(id, fields);
    let has_meta = update_meta.terminal_output.is_some() || update_meta.toolview.is_some();
    acp::SessionUpdate::ToolCallUpdate(match has_meta {
        true => update.meta(update_meta.into_map()),
        false => update,
    })
}

/// `terminal_output.data` on the final update: the full output when nothing was streamed; the
/// remainder when the output extends what was streamed; otherwise nothing. Past the cap the
/// remainder is not sent, and a remainder that would cross it becomes the truncation marker.
fn terminal_data(state: &CallState, cap: Cap) -> String {
    let Some(ToolResultView::Terminal(t)) = state.finished.as_ref().map(|f| &f.view) else {
        return String::new();
    };
    let full = t.output.as_deref();
    if state.streamed.is_empty() {
        return cap_text(full.unwrap_or(""), cap).into_owned();
    }
    if stream_crossed_cap(state, cap) {
        return String::new();
    }
    // Below the cap (or with none) the fold keeps the whole streamed text.
    let streamed = state.streamed.full().unwrap_or_default();
    match full.and_then(|o| o.strip_prefix(streamed)) {
        Some(rest) if !cap.allows((state.streamed.len() + rest.len()) as u64) => {
            TRUNCATED.to_owned()
        }
        Some(rest) => rest.to_owned(),
        None => String::new(),
    }
}
