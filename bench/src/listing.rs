//! `ListSessions` on the JetStream store: what a page costs with few and with many sessions in
//! the stream (the store reads the page's ids from its session directory, then each listed
//! session's first and last messages), so the growth shows.

use std::time::{Duration, Instant};

use toolview::grpc::pb;
use toolview::grpc::pb::session_service_client::SessionServiceClient;

use crate::config::BenchConfig;
use crate::load::{self, SessionScript};
use crate::process::Server;
use crate::table::{Row, progress, thousands};

/// Sessions per `Publish` while filling the stream (one event each).
const FILL_CHUNK: usize = 500;

/// One page, timed.
async fn page(
    client: &mut SessionServiceClient<tonic::transport::Channel>,
    size: u32,
    token: &str,
) -> anyhow::Result<(Duration, pb::ListSessionsResponse)> {
    let t0 = Instant::now();
    let page = client
        .list_sessions(pb::ListSessionsRequest {
            page_size: size,
            page_token: token.to_owned(),
            ..pb::ListSessionsRequest::default()
        })
        .await
        .map_err(|s| anyhow::anyhow!("list: {}: {}", s.code(), s.message()))?
        .into_inner();
    Ok((t0.elapsed(), page))
}

/// A row at 1,000 sessions, then one at `config.listed_sessions` (the same stream, filled up).
pub async fn rows(
    config: &BenchConfig,
    server: &Server,
    rows: &mut Vec<Row>,
) -> anyhow::Result<()> {
    let mut filled = 0;
    for n in [1_000.min(config.listed_sessions), config.listed_sessions] {
        rows.push(row(config, server, filled, n).await?);
        filled = n;
    }
    // The same stream, ten sessions asking: a state filter's pages (issue 59).
    let mut client = SessionServiceClient::new(load::connect(&server.url).await?);
    rows.push(crate::fleet::by_state(&mut client, "listed", filled, "JetStream").await?);
    Ok(())
}

/// Fills the stream up to `n` sessions through `server` (from `from`), then times the first
/// page of 100, a page from the middle, and a walk over every page of 1,000.
async fn row(config: &BenchConfig, server: &Server, from: usize, n: usize) -> anyhow::Result<Row> {
    progress(&format!("listing: {n} sessions into the stream"));
    let mut client = SessionServiceClient::new(load::connect(&server.url).await?);
    let text = load::output_text(config.payload);
    let t0 = Instant::now();
    for start in (from..n).step_by(FILL_CHUNK) {
        let events = (start..(start + FILL_CHUNK).min(n))
            .map(|i| SessionScript::new(format!("listed-{i:07}"), text.clone()).next_event())
            .collect();
        client
            .publish(pb::PublishRequest { events })
            .await
            .map_err(|s| anyhow::anyhow!("publish: {}: {}", s.code(), s.message()))?;
    }
    let filled = t0.elapsed();
    let (first, got) = page(&mut client, 100, "").await?;
    anyhow::ensure!(got.sessions.len() == 100.min(n), "a short first page");
    // A page token is the last id listed: this one starts in the middle of the list.
    let middle_token = format!("listed-{:07}", n / 2);
    let (middle, _) = page(&mut client, 100, &middle_token).await?;
    let (mut walk, mut pages, mut listed, mut token) = (Duration::ZERO, 0, 0, String::new());
    loop {
        let (took, got) = page(&mut client, 1000, &token).await?;
        walk += took;
        pages += 1;
        listed += got.sessions.len();
        if got.next_page_token.is_empty() {
            break;
        }
        token = got.next_page_token;
    }
    anyhow::ensure!(listed >= n, "the walk listed {listed} of {n} sessions");
    let mut row = Row::new(
        format!(
            "ListSessions on JetStream, {} sessions",
            thousands(n as f64)
        ),
        format!(
            "first page (100) {:.0} ms, a middle page {:.0} ms; all {pages} pages of 1,000 {:.1} s",
            first.as_secs_f64() * 1e3,
            middle.as_secs_f64() * 1e3,
            walk.as_secs_f64()
        ),
    );
    row.verdict = format!(
        "a page reads the session directory: O(page); filled in {:.0} s",
        filled.as_secs_f64()
    );
    Ok(row)
}
