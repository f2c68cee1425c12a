//! The command line's JSON lines: `publish` (a harness in a shell pipeline) and the offline
//! `render`, and how every client command prints an update. Events are JSON lines in the
//! protobuf JSON mapping of `ToolEvent`.

use std::io::{BufRead, Write};

use super::Remote;
use super::json::{event_from_json, to_json};
use super::remote::connect;
use crate::domain::Lifecycle;
use crate::grpc::convert::events_from_pb;
use crate::grpc::pb;
use crate::render::{self, Capabilities, RunFrame, Target};

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

/// Prints one update, AG-UI events framed in runs when `run` is set ([`RunFrame::update`]).
pub fn print_framed(
    update: &pb::RenderedUpdate,
    run: Option<&mut RunFrame>,
    out: &mut impl Write,
) -> std::io::Result<()> {
    use pb::rendered_update::Body;
    let (Some(run), Some(Body::AgUi(m))) = (run, &update.body) else {
        return print_update(update, out);
    };
    let cursor = update
        .cursor
        .clone()
        .and_then(|c| crate::domain::Cursor::try_from(c).ok());
    let framed = run.update(&m.json, cursor);
    for event in &framed.before {
        writeln!(out, "{event}")?;
    }
    if let Some((last, rest)) = m.json.split_last() {
        for event in rest {
            writeln!(out, "{event}")?;
        }
        writeln!(out, "{}", framed.last.as_deref().unwrap_or(last))?;
    }
    Ok(())
}

/// `toolview publish`: sends the events as one batch and prints one ack per line.
pub async fn publish(
    server: &Remote,
    session: &str,
    input: impl BufRead,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let events = read_events(input, Some(session))?;
    let mut client = connect(server).await?;
    let acks = client
        .publish(pb::PublishRequest { events })
        .await
        .map_err(|s| anyhow::anyhow!("{}: {}", s.code(), s.message()))?;
    for ack in acks.into_inner().acks {
        writeln!(out, "{}", to_json(&ack, "toolview.v1.PublishAck"))?;
    }
    Ok(())
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
    // AG-UI output is framed as a run, so AG-UI clients accept it.
    let mut run = (target == Target::AgUi).then(|| {
        let thread = events.first().map_or("offline", |e| e.session_id.as_str());
        RunFrame::new(thread, format!("{thread}@render"), None)
    });
    if let Some(run) = &mut run {
        writeln!(out, "{}", run.started())?;
    }
    // The AI SDK's stream is one message: `start` before the updates, `finish` after them.
    let thread = events.first().map_or("offline", |e| e.session_id.as_str());
    if target == Target::AiSdk {
        writeln!(out, "{}", render::ai_sdk_frame::start(thread))?;
    }
    for rendered in render::render_all("", &events, target, &caps) {
        print_framed(&pb::RenderedUpdate::from(rendered), run.as_mut(), out)?;
    }
    if let Some(end) = run.as_mut().and_then(RunFrame::end) {
        writeln!(out, "{end}")?;
    }
    if target == Target::AiSdk {
        writeln!(out, "{}", render::ai_sdk_frame::finish())?;
    }
    Ok(())
}
