//! Spans → events: each tool span a call (started at its start with its arguments, finished
//! at its end with its result or error), each model span's messages the conversation, each
//! outermost agent span a turn.
//!
//! Exporters send spans when they end, in batches, so a request holds children before their
//! parents and whole calls at once. Within a request the events are ordered by their time
//! (a call's start at its span's start, its finish at its end); nesting is read from the
//! parent links the request holds (a tool span under another tool span, at any depth, is its
//! child call). Every id derives from the span's, so an exporter's retry appends nothing, and
//! a call id never comes from the emitter (Pydantic AI's test model, for one, reuses them).

use std::collections::{HashMap, HashSet};

use super::envelope;
use super::messages::{Said, assistant_outputs, user_inputs};
use super::session::{SESSION_ID_KEY, session_of};
use super::span::Span;
use crate::domain::{
    CallFinished, CallId, CallStarted, ContentBlock, EventBody, EventId, MessageFinished,
    MessageId, MessageRole, MessageStarted, SessionId, StopReason, TokenUsage, ToolEvent,
    TurnFinished, TurnId, TurnStarted,
};

/// The tool's name, in order: the GenAI conventions', OpenInference's, the AI SDK's legacy
/// span's, Traceloop's.
const TOOL_NAME_KEYS: &[&str] = &[
    "gen_ai.tool.name",
    "tool.name",
    "ai.toolCall.name",
    "traceloop.entity.name",
];
/// The call's arguments, in order (Pydantic AI's instrumentation v2 last).
const ARGUMENT_KEYS: &[&str] = &[
    "gen_ai.tool.call.arguments",
    "input.value",
    "ai.toolCall.args",
    "traceloop.entity.input",
    "tool_arguments",
];
/// The call's result, in order.
const RESULT_KEYS: &[&str] = &[
    "gen_ai.tool.call.result",
    "output.value",
    "ai.toolCall.result",
    "traceloop.entity.output",
    "tool_response",
];
/// The GenAI conventions' span name of a tool call: `execute_tool {tool}`.
const EXECUTE_TOOL_PREFIX: &str = "execute_tool ";

/// What a request's spans became.
#[derive(Debug, Default)]
pub struct Mapped {
    /// The events, ordered by time, each id once.
    pub events: Vec<ToolEvent>,
    /// Tool spans mapped to calls.
    pub calls: usize,
    /// Agent and model spans read for the conversation.
    pub conversation: usize,
    /// Spans that describe nothing toolview shows (HTTP requests, steps, …).
    pub ignored: usize,
    /// Spans refused: a tool span without a tool name, a span without a valid id.
    pub rejected: usize,
    /// Why the first refused span was.
    pub reason: Option<String>,
}

/// What a span is, by its attributes (first match wins; see `docs/opentelemetry.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Tool,
    Agent,
    /// An agent run inside another agent's run with no tool call between, which an agent of
    /// the request declares as its managed agent (smolagents): shown as a call of its own, so
    /// what it does nests under it.
    Subagent,
    Model,
    Other,
}

fn kind(span: &Span) -> Kind {
    let a = &span.attributes;
    let operation = a.first_str(&["gen_ai.operation.name"]);
    let openinference = a.first_str(&["openinference.span.kind"]);
    let ai_operation = a.first_str(&["ai.operationId"]);
    if operation == Some("execute_tool")
        || openinference == Some("TOOL")
        || a.is("traceloop.span.kind", "tool")
        || span.name == "ai.toolCall"
        || span.name == "running tool"
        || span.name.starts_with(EXECUTE_TOOL_PREFIX)
    {
        Kind::Tool
    } else if operation == Some("invoke_agent")
        || openinference == Some("AGENT")
        // The AI SDK's own spans (before `@ai-sdk/otel`): a generation is a run…
        || matches!(ai_operation, Some("ai.generateText" | "ai.streamText"))
    {
        Kind::Agent
    } else if matches!(
        operation,
        Some("chat" | "text_completion" | "generate_content")
    ) || openinference == Some("LLM")
        // …and each of its steps' model calls a model call.
        || matches!(
            ai_operation,
            Some("ai.generateText.doGenerate" | "ai.streamText.doStream")
        )
    {
        Kind::Model
    } else {
        Kind::Other
    }
}

/// For each span, what the request holds above it: the nearest tool span, whether an agent
/// span is among its ancestors, and the topmost ancestor. One walk per chain (memoized), safe
/// against cycles.
struct Ancestry {
    above: Vec<(Option<usize>, bool)>,
    root: Vec<usize>,
}

impl Ancestry {
    fn new(spans: &[Span], kinds: &[Kind]) -> Self {
        let index: HashMap<&str, usize> = spans
            .iter()
            .enumerate()
            .map(|(i, s)| (s.span_id.as_str(), i))
            .collect();
        let parent: Vec<Option<usize>> = spans
            .iter()
            .map(|s| match s.parent_span_id.as_str() {
                "" => None,
                p => index.get(p).copied(),
            })
            .collect();
        let through = |p: usize, (tool, agent): (Option<usize>, bool)| {
            let tool = match kinds[p] {
                Kind::Tool | Kind::Subagent => Some(p),
                _ => tool,
            };
            (
                tool,
                agent || matches!(kinds[p], Kind::Agent | Kind::Subagent),
            )
        };
        let mut memo: Vec<Option<(Option<usize>, bool)>> = vec![None; spans.len()];
        let mut path = Vec::new();
        for start in 0..spans.len() {
            path.clear();
            let mut at = start;
            let mut top = (None, false);
            while memo[at].is_none() {
                path.push(at);
                match parent[at] {
                    // A chain longer than the request is a cycle: cut it here.
                    Some(p) if path.len() <= spans.len() => match memo[p] {
                        Some(m) => {
                            top = through(p, m);
                            break;
                        }
                        None => at = p,
                    },
                    _ => break,
                }
            }
            for &node in path.iter().rev() {
                if memo[node].is_none() {
                    memo[node] = Some(top);
                }
                top = through(node, memo[node].unwrap_or_default());
            }
        }
        Ancestry {
            above: memo.into_iter().map(Option::unwrap_or_default).collect(),
            root: roots(&parent),
        }
    }

    fn tool(&self, i: usize) -> Option<usize> {
        self.above[i].0
    }

    fn outermost(&self, i: usize) -> bool {
        self.above[i] == (None, false)
    }

    /// The topmost ancestor the request holds (the span itself at the top).
    fn root(&self, i: usize) -> usize {
        self.root[i]
    }
}

/// Each span's topmost ancestor through `parent`: memoized (each span walked once), a cycle
/// cut where it closes.
pub(super) fn roots(parent: &[Option<usize>]) -> Vec<usize> {
    let mut root: Vec<Option<usize>> = vec![None; parent.len()];
    // The walk that last visited each span: one seen again in the same walk closes a cycle.
    let mut walk: Vec<usize> = vec![usize::MAX; parent.len()];
    let mut path = Vec::new();
    for start in 0..parent.len() {
        path.clear();
        let mut at = start;
        let top = loop {
            if let Some(r) = root[at] {
                break r;
            }
            walk[at] = start;
            path.push(at);
            match parent[at] {
                Some(p) if walk[p] != start => at = p,
                _ => break at,
            }
        };
        for &node in &path {
            root[node] = Some(top);
        }
    }
    root.into_iter().map(Option::unwrap_or_default).collect()
}

/// An event and when it happened.
struct Timed {
    at: u64,
    event: ToolEvent,
}

/// The events of a request, as they are made.
#[derive(Default)]
struct Out {
    timed: Vec<Timed>,
}

impl Out {
    fn push(&mut self, at: u64, session: &SessionId, id: String, body: EventBody) {
        // Ids are made of hex digits and fixed words: always valid.
        if let Ok(event_id) = EventId::new(id) {
            self.timed.push(Timed {
                at,
                event: ToolEvent {
                    session_id: session.clone(),
                    event_id,
                    body,
                },
            });
        }
    }

    fn message(
        &mut self,
        at: u64,
        session: &SessionId,
        id: String,
        said: Said,
        parent: Option<CallId>,
    ) {
        let Ok(message_id) = MessageId::new(id) else {
            return;
        };
        let started = EventBody::MessageStarted(MessageStarted {
            message_id: message_id.clone(),
            role: said.role,
            text: said.text,
            parent,
        });
        self.push(at, session, message_id.to_string(), started);
        let finished = EventBody::MessageFinished(MessageFinished {
            message_id: message_id.clone(),
        });
        self.push(at, session, format!("{message_id}:end"), finished);
    }

    /// Ordered by time (a stable sort: a call's start before its finish at the same time),
    /// each (session, event id) once.
    fn finish(mut self) -> Vec<ToolEvent> {
        self.timed.sort_by_key(|t| t.at);
        let first: Vec<bool> = {
            let mut seen = HashSet::with_capacity(self.timed.len());
            self.timed
                .iter()
                .map(|t| seen.insert((t.event.session_id.as_str(), t.event.event_id.as_str())))
                .collect()
        };
        self.timed
            .into_iter()
            .zip(first)
            .filter_map(|(t, first)| first.then_some(t.event))
            .collect()
    }
}

/// The call id of a tool span.
fn call_id(span: &Span) -> Option<CallId> {
    CallId::new(format!("otel:{}", span.span_id)).ok()
}

/// Maps a request's spans to events (see the module doc).
pub fn map_spans(spans: &[Span]) -> Mapped {
    let mut kinds: Vec<Kind> = spans.iter().map(kind).collect();
    let first = Ancestry::new(spans, &kinds);
    let managed = managed_agents(spans);
    for (i, k) in kinds.iter_mut().enumerate() {
        let declared = agent_name(&spans[i]).is_some_and(|n| managed.contains(n));
        if *k == Kind::Agent && first.above[i] == (None, true) && declared {
            *k = Kind::Subagent;
        }
    }
    let ancestry = Ancestry::new(spans, &kinds);
    let mut mapped = Mapped::default();
    let mut out = Out::default();
    for (i, span) in spans.iter().enumerate() {
        if let Err(why) = check_ids(span) {
            mapped.rejected += 1;
            mapped.reason.get_or_insert(why);
            continue;
        }
        let session = session(span, &spans[ancestry.root(i)]);
        let parent = ancestry.tool(i).and_then(|p| call_id(&spans[p]));
        let end = span.end_ns.max(span.start_ns);
        match kinds[i] {
            Kind::Tool => match final_answer(span) {
                Some(text) => {
                    mapped.conversation += 1;
                    let said = Said {
                        index: 0,
                        role: MessageRole::Assistant,
                        text,
                    };
                    let id = format!("otel:{}:out:0", span.span_id);
                    out.message(end, &session, id, said, parent.clone());
                }
                None => call(
                    &mut out,
                    &mut mapped,
                    span,
                    tool_name(span),
                    &session,
                    parent,
                ),
            },
            Kind::Subagent => call(
                &mut out,
                &mut mapped,
                span,
                agent_name(span),
                &session,
                parent,
            ),
            Kind::Agent => {
                mapped.conversation += 1;
                if ancestry.outermost(i) {
                    // The run is the agent's topmost ancestor: LangGraph's graph span holds an
                    // agent span per step of its `agent` node, all one turn.
                    turn(&mut out, &spans[ancestry.root(i)], span, &session);
                }
                users(&mut out, span, &session, &parent);
            }
            Kind::Model => {
                mapped.conversation += 1;
                users(&mut out, span, &session, &parent);
                for said in assistant_outputs(&span.attributes) {
                    let what = if said.role == MessageRole::Reasoning {
                        "think"
                    } else {
                        "out"
                    };
                    let id = format!("otel:{}:{what}:{}", span.span_id, said.index);
                    out.message(end, &session, id, said, parent.clone());
                }
            }
            Kind::Other => mapped.ignored += 1,
        }
    }
    mapped.events = out.finish();
    mapped
}

/// A span's session: the one it names outright (`toolview.session.id`), else its topmost
/// ancestor's. A run started inside another's tool (a Pydantic AI agent calling another agent,
/// each with its own `gen_ai.conversation.id`) joins the outer run's session, under that tool's
/// call, instead of opening a session of its own.
fn session(span: &Span, root: &Span) -> SessionId {
    let named = span.attributes.first_str(&[SESSION_ID_KEY]).is_some();
    let from = if named { span } else { root };
    session_of(&from.attributes, &from.resource, &from.trace_id)
}

/// A tool span (or a subagent's, named `name`) as a call: started at its start, finished at its
/// end; a span that cannot be one is counted refused.
fn call(
    out: &mut Out,
    mapped: &mut Mapped,
    span: &Span,
    name: Option<&str>,
    session: &SessionId,
    parent: Option<CallId>,
) {
    match tool_call(span, name, parent) {
        Ok((started, finished)) => {
            mapped.calls += 1;
            let id = &span.span_id;
            out.push(span.start_ns, session, format!("otel:{id}:call"), started);
            let end = span.end_ns.max(span.start_ns);
            out.push(end, session, format!("otel:{id}:call:end"), finished);
        }
        Err(why) => {
            mapped.rejected += 1;
            mapped.reason.get_or_insert(why);
        }
    }
}

/// A span's ids as OTLP has them: 8 bytes of span id, 16 of trace id, a parent of 8 or none.
pub(super) fn check_ids(span: &Span) -> Result<(), String> {
    let hex = |s: &str, len: usize| s.len() == len && s.bytes().all(|b| b.is_ascii_hexdigit());
    if !hex(&span.span_id, 16) {
        return Err(format!("span {:?}: span_id must be 8 bytes", span.name));
    }
    if !hex(&span.trace_id, 32) {
        return Err(format!("span {:?}: trace_id must be 16 bytes", span.name));
    }
    if !(span.parent_span_id.is_empty() || hex(&span.parent_span_id, 16)) {
        return Err(format!(
            "span {:?}: parent_span_id must be 8 bytes or empty",
            span.name
        ));
    }
    Ok(())
}

/// The user's words among a span's inputs, at its start. Every model span repeats the
/// conversation so far, so a message's id is its position and a checksum of its text: the
/// same message from the next span (or the next run of the conversation) is the same event.
fn users(out: &mut Out, span: &Span, session: &SessionId, parent: &Option<CallId>) {
    for said in user_inputs(&span.attributes) {
        let id = format!(
            "otel:user:{}:{:08x}",
            said.index,
            crc32fast::hash(said.text.as_bytes())
        );
        out.message(span.start_ns, session, id, said, parent.clone());
    }
}

/// The turn of a run: `span` is the run (the topmost span over an agent span that runs under
/// no other agent or tool), `agent` that agent span, whose token counts stand in for the run's
/// when the run has none.
fn turn(out: &mut Out, span: &Span, agent: &Span, session: &SessionId) {
    let Ok(turn_id) = TurnId::new(format!("otel:{}", span.span_id)) else {
        return;
    };
    let id = &span.span_id;
    let started = EventBody::TurnStarted(TurnStarted {
        turn_id: turn_id.clone(),
    });
    out.push(span.start_ns, session, format!("otel:{id}:turn"), started);
    let stop_reason = match span.error {
        None => StopReason::EndTurn,
        Some(_) => StopReason::Unspecified,
    };
    let finished = EventBody::TurnFinished(TurnFinished {
        turn_id,
        stop_reason,
        usage: usage(&span.attributes).or_else(|| usage(&agent.attributes)),
    });
    out.push(
        span.end_ns.max(span.start_ns),
        session,
        format!("otel:{id}:turn:end"),
        finished,
    );
}

/// An agent span's token counts (the GenAI conventions', Pydantic AI's aggregated ones, or the
/// AI SDK's own).
fn usage(a: &super::Attributes) -> Option<TokenUsage> {
    let count = |keys: &[&str]| {
        keys.iter()
            .find_map(|k| a.get(k).and_then(serde_json::Value::as_u64))
    };
    let input = count(&[
        "gen_ai.usage.input_tokens",
        "gen_ai.aggregated_usage.input_tokens",
        "ai.usage.inputTokens",
    ]);
    let output = count(&[
        "gen_ai.usage.output_tokens",
        "gen_ai.aggregated_usage.output_tokens",
        "ai.usage.outputTokens",
    ]);
    if input.is_none() && output.is_none() {
        return None;
    }
    Some(TokenUsage {
        input_tokens: input.unwrap_or(0),
        output_tokens: output.unwrap_or(0),
        cached_input_tokens: count(&["gen_ai.usage.cache_read.input_tokens"]).unwrap_or(0),
        ..TokenUsage::default()
    })
}

/// A tool span's call: its start and its finish.
fn tool_call(
    span: &Span,
    name: Option<&str>,
    parent: Option<CallId>,
) -> Result<(EventBody, EventBody), String> {
    let a = &span.attributes;
    let name = name
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .ok_or_else(|| format!("span {:?}: a tool span names no tool", span.name))?;
    let call_id = call_id(span).ok_or_else(|| format!("span {:?}: no call id", span.name))?;
    let result = a.first_text(RESULT_KEYS).map(unquote).map(envelope::result);
    let is_error = span.error.is_some();
    let text = match (result, &span.error) {
        (Some(result), _) => Some(result),
        (None, Some(error)) if !error.is_empty() => Some(error.clone()),
        (None, _) => None,
    };
    let started = EventBody::CallStarted(CallStarted {
        call_id: call_id.clone(),
        tool_name: name.to_owned(),
        arguments_json: a
            .first_text(ARGUMENT_KEYS)
            .map(envelope::arguments)
            .unwrap_or_default(),
        view: None,
        input_streaming: false,
        parent,
    });
    let finished = EventBody::CallFinished(CallFinished {
        call_id,
        content: text
            .map(|text| ContentBlock::Text { text })
            .into_iter()
            .collect(),
        is_error,
        meta_json: String::new(),
        view: None,
    });
    Ok((started, finished))
}

/// A tool span's tool name.
fn tool_name(span: &Span) -> Option<&str> {
    let a = &span.attributes;
    a.first_str(TOOL_NAME_KEYS)
        .or_else(|| span.name.strip_prefix(EXECUTE_TOOL_PREFIX))
}

/// A subagent's name, as its card's tool name: the GenAI conventions' agent name, else the span
/// name without smolagents' `.run`.
fn agent_name(span: &Span) -> Option<&str> {
    let a = &span.attributes;
    a.first_str(&["gen_ai.agent.name"])
        .or_else(|| Some(span.name.strip_suffix(".run").unwrap_or(&span.name)))
}

/// The agents that agents of the request declare as theirs to call (smolagents'
/// `smolagents.managed_agents.<i>.name`).
fn managed_agents(spans: &[Span]) -> HashSet<&str> {
    spans
        .iter()
        .flat_map(|s| s.attributes.0.iter())
        .filter(|(k, _)| k.starts_with("smolagents.managed_agents.") && k.ends_with(".name"))
        .filter_map(|(_, v)| v.as_str())
        .collect()
}

/// smolagents ends a run by calling its `final_answer` tool (its envelope,
/// `{"args", "kwargs", "sanitize_inputs_outputs"}`, tells it from a tool of that name): the
/// answer is the assistant's words, not a card.
fn final_answer(span: &Span) -> Option<String> {
    let a = &span.attributes;
    if a.first_str(TOOL_NAME_KEYS) != Some("final_answer") {
        return None;
    }
    let arguments = a.first_text(ARGUMENT_KEYS)?;
    if !arguments.contains("\"sanitize_inputs_outputs\"") {
        return None;
    }
    a.first_text(RESULT_KEYS).map(unquote)
}

/// A result as the tool gave it: emitters that write results as JSON (the AI SDK) quote a
/// text result; one JSON string is unquoted, anything else kept verbatim.
fn unquote(result: String) -> String {
    if !result.trim_start().starts_with('"') {
        return result;
    }
    match serde_json::from_str::<String>(&result) {
        Ok(s) => s,
        Err(_) => result,
    }
}

#[cfg(test)]
#[path = "map_tests.rs"]
mod tests;
