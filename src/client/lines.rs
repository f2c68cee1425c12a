//! The command line's JSON lines: the offline `render`, and how every client command prints an
//! update (`publish.rs` reads its events as they arrive). Events are JSON lines in the protobuf
//! JSON mapping of `ToolEvent`.

use std::io::{BufRead, Write};

use crate::domain::Lifecycle;
use crate::grpc::convert::events_from_pb;
use crate::grpc::json::{event_from_json, to_json};
use crate::grpc::pb;
use crate::render::{self, Body, Capabilities, StreamEvent, StreamFrame, Target};

/// Reads `ToolEvent` JSON lines (blank lines skipped), naming the line of a bad one.
pub fn read_events(
    input: impl BufRead,
    session: Option<&str>,
) -> anyhow::Result<Vec<pb::ToolEvent>> {
    let mut events = Vec::new();
    for (n, line) in input.lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let mut event =
            event_from_json(&line).map_err(|e| anyhow::anyhow!("line {}: {e}", n + 1))?;
        if let Some(s) = session {
            event.session_id = s.to_owned();
        }
        events.push(event);
    }
    Ok(events)
}

/// Prints one update: text targets as their text, JSON targets one message per line, VIEW as
/// the update's protobuf JSON. Session updates of text targets print nothing.
pub fn print_update(update: &pb::RenderedUpdate, out: &mut impl Write) -> std::io::Result<()> {
    use pb::rendered_update::Body;
    match &update.body {
        Some(Body::Markdown(s) | Body::Ansi(s)) if s.is_empty() => Ok(()),
        // Markdown carries tool output verbatim: its control characters are shown, not sent
        // to the terminal. ANSI is made safe by its renderer (only its own colours remain).
        Some(Body::Markdown(s)) => writeln!(out, "{}\n", crate::render::visible(s)),
        Some(Body::Ansi(s)) => writeln!(out, "{s}\n"),
        Some(Body::Acp(m) | Body::AgUi(m) | Body::AiSdk(m)) => {
            m.json.iter().try_for_each(|j| writeln!(out, "{j}"))
        }
        Some(Body::View(_)) | None => {
            writeln!(out, "{}", to_json(update, "toolview.v1.RenderedUpdate"))
        }
    }
}

/// Prints one update framed by `frame` (AG-UI runs, one AI SDK message: the events decoded
/// from their JSON, framed, and encoded again); the other targets' updates, and events this
/// client does not know (a newer server's), as they came.
pub fn print_framed(
    update: &pb::RenderedUpdate,
    frame: &mut StreamFrame,
    out: &mut impl Write,
) -> std::io::Result<()> {
    let cursor = update
        .cursor
        .clone()
        .and_then(|c| crate::domain::Cursor::try_from(c).ok());
    match decoded(update) {
        Some(body) => print_events(frame.update(&body, cursor), out),
        None => {
            if let Some(cursor) = cursor {
                frame.delivered(cursor);
            }
            print_update(update, out)
        }
    }
}

/// Prints a framed stream's events, one JSON text a line.
pub fn print_events(events: Vec<StreamEvent<'_>>, out: &mut impl Write) -> std::io::Result<()> {
    events
        .iter()
        .try_for_each(|e| writeln!(out, "{}", e.text()))
}

/// The typed events of an AG-UI or AI SDK update; `None` for the other targets and for an
/// event that does not decode.
fn decoded(update: &pb::RenderedUpdate) -> Option<Body> {
    use pb::rendered_update::Body as B;
    fn all<T: serde::de::DeserializeOwned>(texts: &[String]) -> Option<Vec<T>> {
        texts.iter().map(|t| serde_json::from_str(t).ok()).collect()
    }
    match &update.body {
        Some(B::AgUi(m)) => all(&m.json).map(Body::AgUi),
        Some(B::AiSdk(m)) => all(&m.json).map(Body::AiSdk),
        Some(B::View(_) | B::Acp(_) | B::Markdown(_) | B::Ansi(_)) | None => None,
    }
}

/// `toolview render`: folds and renders events offline, exactly as a subscriber would get them.
pub fn render_offline(
    target: Target,
    caps: Capabilities,
    input: impl BufRead,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let events = events_from_pb(read_events(input, None)?).map_err(|e| anyhow::anyhow!("{e}"))?;
    Lifecycle::default().admit_batch(events.iter().map(|e| &e.body))?;
    // AG-UI output is framed as a run, the AI SDK's as one message, so their clients accept it.
    let thread = events.first().map_or("offline", |e| e.session_id.as_str());
    let mut frame = StreamFrame::new(target, thread, format!("{thread}@render"), None);
    print_events(frame.open(), out)?;
    for rendered in render::render_all("", &events, target, &caps) {
        match &rendered.body {
            Body::AgUi(_) | Body::AiSdk(_) => {
                print_events(frame.update(&rendered.body, None), out)?
            }
            Body::View(_) | Body::Acp(_) | Body::Markdown(_) | Body::Ansi(_) => {
                print_update(&pb::RenderedUpdate::from(rendered), out)?;
            }
        }
    }
    print_events(frame.end(), out)?;
    Ok(())
}
