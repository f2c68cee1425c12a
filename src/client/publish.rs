//! `toolview publish`: a harness in a shell pipeline. Events are read as lines arrive and
//! published as they come — batched by a short linger (lines written together go in one
//! `Publish`, a line written alone goes at once), one `Publish` in flight, acks printed as they
//! come — so `agent | toolview publish` shows the agent live, and a session of any length goes
//! through (no batch is near the message limit). Memory is bounded: a line at most
//! [`MAX_LINE_BYTES`], [`QUEUE`] lines read ahead, then the pipe waits. Transient failures
//! (the server restarting, a NATS election) are retried with backoff, the same batch again:
//! its events' ids make the retry safe. A refusal names the line.

use std::io::Write;
use std::time::Duration;

use anyhow::Context as _;
use futures_util::StreamExt as _;
use prost::Message as _;
use tokio::io::AsyncRead;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::codec::{FramedRead, LinesCodec};
use tonic::Code;

use super::Remote;
use super::remote::connect;
use crate::grpc::json::{event_from_json, to_json};
use crate::grpc::pb;

/// Longest line read: the server's default message limit; an event longer could not be
/// published anyway.
pub const MAX_LINE_BYTES: usize = 4 << 20;
/// Events per `Publish` at most…
const BATCH_EVENTS: usize = 256;
/// …and bytes: a quarter of the default message limit.
const BATCH_BYTES: usize = 1 << 20;
/// How long a batch's first event waits for more: what a writer writes at once goes together,
/// and a lone line goes within this.
const LINGER: Duration = Duration::from_millis(5);
/// Lines read ahead of the publisher at most: past this, reading stops and the writer waits.
const QUEUE: usize = 1024;
/// Pauses between attempts at a batch the server could not take: doubling, with jitter.
const RETRY_FIRST: Duration = Duration::from_millis(50);
const RETRY_MAX: Duration = Duration::from_secs(5);

/// An event and the line it came from.
type Line = (usize, pb::ToolEvent);

/// Publishes the events of `input` (JSON lines, blank ones skipped) to `session`, printing
/// one ack per event to `out` as they come.
pub async fn publish(
    server: &Remote,
    session: &str,
    input: impl AsyncRead + Unpin + Send + 'static,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let (tx, mut rx) = mpsc::channel(QUEUE);
    let reader = tokio::spawn(read(input, session.to_owned(), tx));
    let mut client = connect(server).await?;
    while let Some(Batch { lines, then }) = next_batch(&mut rx).await {
        if !lines.is_empty() {
            for ack in send(&mut client, lines).await? {
                writeln!(out, "{}", to_json(&ack, "toolview.v1.PublishAck"))?;
            }
            out.flush()?;
        }
        // A line that does not read ends it: what came before it was published.
        if let Some(e) = then {
            return Err(e);
        }
    }
    reader.await.context("reading the events")
}

/// Reads events from the lines of `input` until its end (or until the publisher is gone).
async fn read(
    input: impl AsyncRead + Unpin,
    session: String,
    tx: mpsc::Sender<anyhow::Result<Line>>,
) {
    let mut lines = FramedRead::new(input, LinesCodec::new_with_max_length(MAX_LINE_BYTES));
    let mut n = 0;
    while let Some(line) = lines.next().await {
        n += 1;
        let item = match line {
            Err(e) => Err(anyhow::anyhow!("line {n}: {e}")),
            Ok(line) if line.trim().is_empty() => continue,
            Ok(line) => event_from_json(&line)
                .map(|mut event| {
                    event.session_id.clone_from(&session);
                    (n, event)
                })
                .map_err(|e| anyhow::anyhow!("line {n}: {e}")),
        };
        // A line that does not read is the last one taken.
        let last = item.is_err();
        if tx.send(item).await.is_err() || last {
            break;
        }
    }
}

/// Events to publish together, and the error of the line that ended them, if one did.
struct Batch {
    lines: Vec<Line>,
    then: Option<anyhow::Error>,
}

/// The next batch: the first event there is, then whatever follows within the linger, up to
/// the batch's bounds. `None` at the end of the input.
async fn next_batch(rx: &mut mpsc::Receiver<anyhow::Result<Line>>) -> Option<Batch> {
    let mut batch = Batch {
        lines: Vec::new(),
        then: None,
    };
    match rx.recv().await? {
        Ok(line) => batch.lines.push(line),
        Err(e) => {
            batch.then = Some(e);
            return Some(batch);
        }
    }
    let mut bytes = batch.lines[0].1.encoded_len();
    let deadline = Instant::now() + LINGER;
    while batch.lines.len() < BATCH_EVENTS && bytes < BATCH_BYTES {
        match tokio::time::timeout_at(deadline, rx.recv()).await {
            Ok(Some(Ok(line))) => {
                bytes += line.1.encoded_len();
                batch.lines.push(line);
            }
            Ok(Some(Err(e))) => {
                batch.then = Some(e);
                break;
            }
            Ok(None) | Err(_) => break,
        }
    }
    Some(batch)
}

/// Publishes one batch, retrying it while the failure is the server's or the connection's; a
/// refusal names the line of the event it is about.
async fn send(client: &mut super::Client, batch: Vec<Line>) -> anyhow::Result<Vec<pb::PublishAck>> {
    let lines: Vec<usize> = batch.iter().map(|(n, _)| *n).collect();
    let request = pb::PublishRequest {
        events: batch.into_iter().map(|(_, e)| e).collect(),
    };
    let mut pause = RETRY_FIRST;
    loop {
        match client.publish(request.clone()).await {
            Ok(response) => return Ok(response.into_inner().acks),
            Err(s) if retried(s.code()) => {
                let wait = super::follow::jitter(pause);
                eprintln!(
                    "[publish: {}: {}; retrying in {wait:.1?}]",
                    s.code(),
                    s.message()
                );
                tokio::time::sleep(wait).await;
                pause = (pause * 2).min(RETRY_MAX);
            }
            Err(s) => {
                let line = refused_index(&s).and_then(|i| lines.get(i));
                let at = line.map(|n| format!("line {n}: ")).unwrap_or_default();
                anyhow::bail!("{at}{}: {}", s.code(), s.message());
            }
        }
    }
}

/// The codes after which the same publish may succeed (the client libraries' rule): the
/// server or the connection was away, writers collided, an attempt ran out of time.
fn retried(code: Code) -> bool {
    matches!(
        code,
        Code::Unavailable | Code::Aborted | Code::DeadlineExceeded | Code::Cancelled
    )
}

/// The index in the request of the event a refusal names: its field (`events[3]…`, the
/// status's `BadRequest` detail).
fn refused_index(status: &tonic::Status) -> Option<usize> {
    use tonic_types::StatusExt as _;
    let field = status
        .get_details_bad_request()?
        .field_violations
        .first()?
        .field
        .clone();
    field
        .strip_prefix("events[")?
        .split_once(']')?
        .0
        .parse()
        .ok()
}
