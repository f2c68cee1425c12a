//! Scale: a server started on a million stored sessions (startup, first publishes, memory), and
//! the memory each loaded idle session costs.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use toolview::domain::{Phase, SessionId, Subject, ToolEvent};
use toolview::grpc::StorageCodec;
use toolview::grpc::pb;
use toolview::grpc::pb::session_service_client::SessionServiceClient;
use toolview::store::{EmbeddedStore, Record, SessionAppend, SessionMeta, Store as _};

use crate::config::BenchConfig;
use crate::load::{self, SessionScript};
use crate::process::{Server, fresh_dir};
use crate::table::{Row, progress, thousands};

/// Sessions per append while storing them (one journal group and about 1 MB each).
const PREFILL_CHUNK: usize = 1_000;
/// Loaded sessions' events per `Publish` (one event per session).
const LOAD_CHUNK: usize = 100;

pub async fn rows(config: &BenchConfig, rows: &mut Vec<Row>) -> anyhow::Result<()> {
    stored_rows(config, rows).await?;
    rows.push(loaded_row(config).await?);
    Ok(())
}

/// The stored sessions' ids: `stored-0000042`.
pub(crate) fn stored(i: usize) -> String {
    format!("stored-{i:07}")
}

/// Stores `n` sessions of two events each (a session start, a call start) through the embedded
/// store's own append path, in process: a million `Publish` calls would take minutes, and what
/// is measured is the server that opens the result.
pub(crate) async fn prefill(dir: &Path, n: usize, payload: usize) -> anyhow::Result<()> {
    let store = EmbeddedStore::open(dir, 64 << 20, Arc::new(StorageCodec))?;
    let template = load::script_events(2, payload);
    let call = template[1]
        .body
        .call_id()
        .cloned()
        .expect("the script's second event starts a call");
    let now = toolview::store::now_ms();
    let mut in_flight = VecDeque::new();
    for start in (0..n).step_by(PREFILL_CHUNK) {
        let batch = (start..(start + PREFILL_CHUNK).min(n))
            .map(|i| {
                let session = SessionId::new(stored(i)).expect("a valid id");
                let records = template
                    .iter()
                    .enumerate()
                    .map(|(k, e)| Record {
                        offset: k as u64 + 1,
                        event: Arc::new(ToolEvent {
                            session_id: session.clone(),
                            ..e.clone()
                        }),
                    })
                    .collect();
                SessionAppend {
                    session,
                    meta: SessionMeta {
                        epoch: toolview::store::new_epoch(),
                        first_offset: 1,
                        head_offset: 2,
                        created_ms: now,
                        updated_ms: now,
                        calls: 1,
                        title: String::new(),
                        cwd: String::new(),
                        // A stand-in (idle): the bench measures the store, not the fold.
                        summary: Some(toolview::domain::SessionSummary {
                            activity_ms: now,
                            ..toolview::domain::SessionSummary::default()
                        }),
                    },
                    records,
                    trim_before: None,
                    phases: vec![(
                        Subject::call(&call),
                        Phase {
                            started: true,
                            finished: false,
                            input_open: false,
                        },
                    )],
                    loaded_at: 0,
                }
            })
            .collect();
        in_flight.push_back(store.append(batch).await?);
        if in_flight.len() >= 16 {
            in_flight.pop_front().expect("not empty").await?;
        }
    }
    for durable in in_flight {
        durable.await?;
    }
    store.close().await;
    Ok(())
}

/// One `Publish` of `events`, timed.
async fn timed_publish(url: &str, events: Vec<pb::ToolEvent>) -> anyhow::Result<Duration> {
    let mut client = SessionServiceClient::new(load::connect(url).await?);
    let t0 = Instant::now();
    client
        .publish(pb::PublishRequest { events })
        .await
        .map_err(|s| anyhow::anyhow!("publish: {}: {}", s.code(), s.message()))?;
    Ok(t0.elapsed())
}

async fn stored_rows(config: &BenchConfig, rows: &mut Vec<Row>) -> anyhow::Result<()> {
    let n = config.stored_sessions;
    let dir = fresh_dir("stored");
    progress(&format!(
        "scale: storing {n} sessions through the embedded store"
    ));
    let t0 = Instant::now();
    prefill(&dir, n, config.payload).await?;
    let filled = t0.elapsed();
    let bytes: u64 = walk_bytes(&dir);
    progress(&format!(
        "scale: stored in {:.1} s, {} MiB on disk; starting a server on them",
        filled.as_secs_f64(),
        bytes >> 20
    ));
    let t0 = Instant::now();
    let server = Server::toolview_in(&config.toolview, "embedded", dir, &[])?;
    let startup = t0.elapsed();
    let rss = server.rss_kib()?;
    // A new session first, then one of the stored ones (its log continues at offset 3).
    let mut fresh = SessionScript::new("scale-new", load::output_text(config.payload));
    let new = timed_publish(&server.url, vec![fresh.next_event()]).await?;
    let mut next = SessionScript::new("scale-new-2", load::output_text(config.payload));
    let new_again = timed_publish(&server.url, vec![next.next_event()]).await?;
    let mut old = SessionScript::new(stored(n / 2), load::output_text(config.payload));
    old.next_event();
    old.next_event();
    let existing = timed_publish(&server.url, vec![old.next_event()]).await?;
    let sessions = thousands(n as f64);
    let mut row = Row::new(
        format!("startup of a server with {sessions} stored sessions (embedded)"),
        format!(
            "{:.0} ms to listening, RSS {:.1} MiB",
            startup.as_secs_f64() * 1e3,
            rss as f64 / 1024.0
        ),
    );
    row.verdict = format!(
        "{} MiB of data, stored in {:.0} s",
        thousands((bytes >> 20) as f64),
        filled.as_secs_f64()
    );
    rows.push(row);
    rows.push(Row::new(
        format!("first publish after that startup ({sessions} stored sessions)"),
        format!(
            "new session {:.2} ms (the next new one {:.2} ms), a stored session {:.2} ms",
            new.as_secs_f64() * 1e3,
            new_again.as_secs_f64() * 1e3,
            existing.as_secs_f64() * 1e3
        ),
    ));
    Ok(())
}

pub(crate) fn walk_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| match e.metadata() {
                    Ok(m) if m.is_dir() => walk_bytes(&e.path()),
                    Ok(m) => m.len(),
                    Err(_) => 0,
                })
                .sum()
        })
        .unwrap_or(0)
}

/// Server RSS per loaded session: `--loaded-sessions` sessions get one event each, and stay
/// loaded (idle, no subscriber) within the server's `--max-loaded-sessions` default.
async fn loaded_row(config: &BenchConfig) -> anyhow::Result<Row> {
    let n = config.loaded_sessions;
    let server = Server::toolview(&config.toolview, "embedded")?;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let before = server.rss_kib()?;
    progress(&format!("memory: {n} loaded idle sessions"));
    let mut client = SessionServiceClient::new(load::connect(&server.url).await?);
    let text = load::output_text(config.payload);
    for start in (0..n).step_by(LOAD_CHUNK) {
        let events = (start..(start + LOAD_CHUNK).min(n))
            .map(|i| SessionScript::new(format!("loaded-{i}"), text.clone()).next_event())
            .collect();
        client
            .publish(pb::PublishRequest { events })
            .await
            .map_err(|s| anyhow::anyhow!("publish: {}: {}", s.code(), s.message()))?;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let after = server.rss_kib()?;
    let each = after.saturating_sub(before) as f64 / n.max(1) as f64;
    let mut row = Row::new(
        format!(
            "server memory, {} loaded idle sessions (one event each, no subscriber)",
            thousands(n as f64)
        ),
        format!("{each:.2} KiB per session"),
    );
    row.verdict = format!(
        "RSS {:.1} → {:.1} MiB",
        before as f64 / 1024.0,
        after as f64 / 1024.0
    );
    Ok(row)
}
