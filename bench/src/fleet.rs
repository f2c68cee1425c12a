//! The fleet (`WatchSessions`, `ListSessions` by state) on the embedded store: what one summary
//! change costs the server per watcher while many sessions publish; that a session streaming
//! output reaches watchers as a few throttled notices; and what a page of `ListSessions`
//! filtered by state costs with few and with many sessions stored.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio_stream::StreamExt as _;
use toolview::grpc::pb;
use toolview::grpc::pb::session_service_client::SessionServiceClient;

use crate::config::BenchConfig;
use crate::load::{self, SessionScript};
use crate::process::Server;
use crate::table::{Row, progress, thousands};

type Client = SessionServiceClient<tonic::transport::Channel>;

/// Sessions per `Publish` while filling the store (one event each).
const FILL_CHUNK: usize = 500;
/// Sessions each `Publish` of the active load names (one chunk each).
const ACTIVE_BATCH: usize = 100;

/// Every row of the scenario.
pub async fn rows(config: &BenchConfig, out: &mut Vec<Row>) -> anyhow::Result<()> {
    let server = Server::toolview(&config.toolview, "embedded")?;
    let mut client = SessionServiceClient::new(load::connect(&server.url).await?);
    fill(
        &mut client,
        "idle",
        0,
        config.fleet_sessions,
        &load::output_text(16),
    )
    .await?;
    let mut baseline = None;
    for &watchers in std::iter::once(&0).chain(&config.fleet_watchers) {
        let run = active_load(config, &server, watchers).await?;
        if watchers == 0 {
            baseline = Some(run.cpu);
            continue;
        }
        out.push(run.row(config, watchers, baseline.unwrap_or_default()));
    }
    out.push(solo_stream(config, &server).await?);
    drop(server);
    for n in [1_000.min(config.fleet_listed), config.fleet_listed] {
        out.push(listing(n, config).await?);
    }
    Ok(())
}

/// Publishes one `SessionStarted` into each of the sessions `<prefix>-<from..to>`.
async fn fill(
    client: &mut Client,
    prefix: &str,
    from: usize,
    to: usize,
    text: &str,
) -> anyhow::Result<()> {
    progress(&format!("fleet: {to} sessions ({prefix})"));
    for start in (from..to).step_by(FILL_CHUNK) {
        let events = (start..(start + FILL_CHUNK).min(to))
            .map(|i| SessionScript::new(format!("{prefix}-{i:07}"), text.to_owned()).next_event())
            .collect();
        client
            .publish(pb::PublishRequest { events })
            .await
            .map_err(|s| anyhow::anyhow!("publish: {}: {}", s.code(), s.message()))?;
    }
    Ok(())
}

/// One run of the active load: what it published, what each watcher got, the server's CPU.
struct Run {
    events: u64,
    notices: Vec<u64>,
    cpu: Duration,
    took: Duration,
}

impl Run {
    fn row(&self, config: &BenchConfig, watchers: usize, baseline: Duration) -> Row {
        let each = self.notices.iter().sum::<u64>() as f64 / self.notices.len().max(1) as f64;
        let extra = self.cpu.saturating_sub(baseline).as_secs_f64() * 1e6;
        let per_notice = extra / (each * watchers as f64).max(1.0);
        let mut row = Row::new(
            format!(
                "fleet: {} sessions, {} publishing, {watchers} watcher{}",
                thousands(config.fleet_sessions as f64),
                thousands(config.fleet_active as f64),
                if watchers == 1 { "" } else { "s" }
            ),
            format!(
                "{} events/s published; {} notices per watcher ({:.0}/s); server CPU {:.1} s, {:.1} s more than unwatched",
                thousands(self.events as f64 / self.took.as_secs_f64()),
                thousands(each),
                each / self.took.as_secs_f64(),
                self.cpu.as_secs_f64(),
                extra / 1e6,
            ),
        );
        row.verdict = format!(
            "{per_notice:.0} µs of server CPU per notice per watcher; {:.3} notices per event",
            each / self.events.max(1) as f64
        );
        row
    }
}

/// `fleet_active` sessions each start a call, then print output for `fleet_ms`, while
/// `watchers` watch the whole fleet.
async fn active_load(
    config: &BenchConfig,
    server: &Server,
    watchers: usize,
) -> anyhow::Result<Run> {
    progress(&format!(
        "fleet: {} publishing, {watchers} watchers",
        config.fleet_active
    ));
    let counts: Vec<Arc<AtomicU64>> = (0..watchers).map(|_| Arc::default()).collect();
    let mut watches = Vec::new();
    for count in &counts {
        watches.push(
            watch(
                &server.url,
                pb::WatchSessionsRequest::default(),
                count.clone(),
            )
            .await?,
        );
    }
    let mut client = SessionServiceClient::new(load::connect(&server.url).await?);
    let text = load::output_text(config.payload);
    let tag = format!("active{watchers}");
    let mut scripts: Vec<SessionScript> = (0..config.fleet_active)
        .map(|i| SessionScript::new(format!("{tag}-{i:05}"), text.clone()))
        .collect();
    let before = server.cpu_time();
    let t0 = Instant::now();
    let mut events = 0u64;
    let mut at = 0;
    while t0.elapsed() < Duration::from_millis(config.fleet_ms) {
        let live = scripts.len();
        let batch: Vec<pb::ToolEvent> = (0..ACTIVE_BATCH)
            .map(|k| scripts[(at + k) % live].next_event())
            .collect();
        at = (at + ACTIVE_BATCH) % live;
        events += batch.len() as u64;
        client
            .publish(pb::PublishRequest { events: batch })
            .await
            .map_err(|s| anyhow::anyhow!("publish: {}: {}", s.code(), s.message()))?;
    }
    let took = t0.elapsed();
    // The throttle's last held notices go out within its interval.
    tokio::time::sleep(Duration::from_millis(700)).await;
    let cpu = server.cpu_time() - before;
    for w in watches {
        w.abort();
    }
    Ok(Run {
        events,
        notices: counts.iter().map(|c| c.load(Ordering::Relaxed)).collect(),
        cpu,
        took,
    })
}

/// A watch whose sessions (after `synced`) are counted into `count`.
async fn watch(
    url: &str,
    request: pb::WatchSessionsRequest,
    count: Arc<AtomicU64>,
) -> anyhow::Result<tokio::task::JoinHandle<()>> {
    let mut client = SessionServiceClient::new(load::connect(url).await?);
    let mut stream = client
        .watch_sessions(request)
        .await
        .map_err(|s| anyhow::anyhow!("watch: {}: {}", s.code(), s.message()))?
        .into_inner();
    // Live once the first page is sent: counted from then.
    while let Some(item) = stream.next().await {
        if matches!(
            item?.item,
            Some(pb::watch_sessions_response::Item::Synced(_))
        ) {
            break;
        }
    }
    Ok(tokio::spawn(async move {
        while let Some(Ok(_)) = stream.next().await {
            count.fetch_add(1, Ordering::Relaxed);
        }
    }))
}

/// One session prints 10,000 chunks over 10 s (a tenth of both with `--quick`): the notices a
/// watcher of it gets.
async fn solo_stream(config: &BenchConfig, server: &Server) -> anyhow::Result<Row> {
    let (chunks, over) = (
        config.fleet_solo_chunks,
        Duration::from_millis(config.fleet_ms),
    );
    progress(&format!("fleet: one session, {chunks} chunks"));
    let count = Arc::new(AtomicU64::new(0));
    let request = pb::WatchSessionsRequest {
        title_prefix: String::new(),
        cwd_prefix: "/solo".into(),
        ..pb::WatchSessionsRequest::default()
    };
    let watcher = watch(&server.url, request, count.clone()).await?;
    let mut client = SessionServiceClient::new(load::connect(&server.url).await?);
    let mut start = SessionScript::new("solo", load::output_text(config.payload));
    let mut first = start.next_event();
    if let Some(pb::tool_event::Event::SessionStarted(s)) = &mut first.event {
        s.cwd = "/solo".into();
    }
    client
        .publish(pb::PublishRequest {
            events: vec![first, start.next_event()],
        })
        .await?;
    let t0 = Instant::now();
    for i in 0..chunks {
        let due = over.mul_f64(i as f64 / chunks as f64);
        if let Some(wait) = due.checked_sub(t0.elapsed()) {
            tokio::time::sleep(wait).await;
        }
        client
            .publish(pb::PublishRequest {
                events: vec![start.next_event()],
            })
            .await?;
    }
    tokio::time::sleep(Duration::from_millis(700)).await;
    watcher.abort();
    let notices = count.load(Ordering::Relaxed);
    let mut row = Row::new(
        format!(
            "fleet: one session printing {} chunks in {:.0} s",
            thousands(chunks as f64),
            over.as_secs_f64()
        ),
        format!("{notices} notices to its watcher (the call's start, then the throttled activity)"),
    );
    row.verdict = format!(
        "at most 25 wanted: {}",
        if notices <= 25 { "yes" } else { "NO" }
    );
    Ok(row)
}

/// `ListSessions` filtered to `requires_action` at `n` sessions on the embedded store.
async fn listing(n: usize, config: &BenchConfig) -> anyhow::Result<Row> {
    let server = Server::toolview(&config.toolview, "embedded")?;
    let mut client = SessionServiceClient::new(load::connect(&server.url).await?);
    fill(&mut client, "listed", 0, n, &load::output_text(16)).await?;
    by_state(&mut client, "listed", n, "embedded").await
}

/// Ten of the `n` sessions `<prefix>-<i>` (spread through the id order) ask a person; then the
/// first page of `ListSessions` filtered to `requires_action`, and the walk that finds all ten.
pub(crate) async fn by_state(
    client: &mut Client,
    prefix: &str,
    n: usize,
    store: &str,
) -> anyhow::Result<Row> {
    for k in 0..10 {
        let id = format!("{prefix}-{:07}", k * n / 10 + n / 20);
        client
            .publish(pb::PublishRequest {
                events: vec![ask(id)],
            })
            .await?;
    }
    let request = |token: String| pb::ListSessionsRequest {
        page_size: 100,
        page_token: token,
        states: vec![pb::SessionState::RequiresAction as i32],
        ..pb::ListSessionsRequest::default()
    };
    let t0 = Instant::now();
    let first = client
        .list_sessions(request(String::new()))
        .await?
        .into_inner();
    let first_took = t0.elapsed();
    let (mut found, mut pages, mut token) = (first.sessions.len(), 1, first.next_page_token);
    let t1 = Instant::now();
    while !token.is_empty() {
        let page = client.list_sessions(request(token)).await?.into_inner();
        found += page.sessions.len();
        pages += 1;
        token = page.next_page_token;
    }
    let walk = first_took + t1.elapsed();
    let mut row = Row::new(
        format!(
            "ListSessions by state on {store}, {} sessions (10 waiting)",
            thousands(n as f64)
        ),
        format!(
            "first page {:.1} ms ({} found); all {found} in {pages} pages, {:.0} ms",
            first_took.as_secs_f64() * 1e3,
            first.sessions.len(),
            walk.as_secs_f64() * 1e3
        ),
    );
    row.verdict =
        "a page looks at 10 sessions per one asked: O(page) each, O(sessions) to find sparse ones"
            .into();
    Ok(row)
}

/// A permission request in `session`, open for ten minutes.
fn ask(session: String) -> pb::ToolEvent {
    let option = |id: &str, kind: pb::PermissionOptionKind| pb::PermissionOption {
        option_id: id.into(),
        name: id.into(),
        kind: kind.into(),
    };
    pb::ToolEvent {
        session_id: session,
        event_id: "ask".into(),
        event: Some(pb::tool_event::Event::PermissionRequested(
            pb::PermissionRequested {
                request_id: "p1".into(),
                call_id: String::new(),
                title: "Deploy?".into(),
                description: String::new(),
                options: vec![
                    option("allow", pb::PermissionOptionKind::AllowOnce),
                    option("reject", pb::PermissionOptionKind::RejectOnce),
                ],
                expiry_option_id: "reject".into(),
                timeout_ms: 600_000,
                expires_at_unix_ms: 0,
            },
        )),
    }
}
