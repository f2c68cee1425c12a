//! What a replica pays for the others' appends: replica A appends into a session no other
//! replica holds. Each replica's feed follows only the sessions it holds (the stream republishes
//! each message's headers to its session's subject; a replica subscribes to those it holds), so
//! the idle replicas read none of it. Rows at 1, 2 and 3 replicas on one JetStream (R1): the CPU
//! per appended event of A and of each idle replica (their idle CPU over the same time
//! subtracted), the appends each idle replica's feed read per appended event (its
//! `toolview_store_changes_total`), and the cluster's total.

use std::time::{Duration, Instant};

use crate::config::BenchConfig;
use crate::load;
use crate::process::Server;
use crate::table::{Row, progress, thousands};

/// Events appended on A per run (a `--quick` run appends fewer).
const EVENTS: u64 = 40_000;
/// …in batches of this many per `Publish`.
const BATCH: usize = 64;
/// After the appends, the idle replicas' feeds get this long to catch up before their CPU is read.
const SETTLE: Duration = Duration::from_millis(500);

/// The rows, on the JetStream at `urls` with the server `flags`.
/// What one row measured: the cluster's CPU per appended event.
pub struct FeedPoint {
    pub replicas: usize,
    pub cluster_us: f64,
}

pub async fn rows(
    config: &BenchConfig,
    flags: &[&str],
    rows: &mut Vec<Row>,
) -> anyhow::Result<Vec<FeedPoint>> {
    let events = if config.quick { 2_000 } else { EVENTS };
    let mut points = Vec::new();
    for replicas in 1..=3usize {
        let a = Server::toolview_with(&config.toolview, "jetstream", flags)?;
        let metrics: Vec<&str> = flags
            .iter()
            .copied()
            .chain(["--metrics-listen", "127.0.0.1:0"])
            .collect();
        let idle: Vec<Server> = (1..replicas)
            .map(|_| Server::toolview_with(&config.toolview, "jetstream", &metrics))
            .collect::<anyhow::Result<_>>()?;
        // The idle replicas' own CPU (heartbeats, pings) over a quiet second, to subtract.
        let quiet = Duration::from_secs(1);
        let before: Vec<Duration> = idle.iter().map(Server::cpu_time).collect();
        tokio::time::sleep(quiet).await;
        let background: Vec<f64> = idle
            .iter()
            .zip(&before)
            .map(|(s, b)| (s.cpu_time() - *b).as_secs_f64() / quiet.as_secs_f64())
            .collect();
        progress(&format!(
            "the feed: {events} appends on A, {replicas} replica(s)"
        ));
        let a_before = a.cpu_time();
        let before: Vec<Duration> = idle.iter().map(Server::cpu_time).collect();
        let read_before: Vec<f64> = idle
            .iter()
            .map(|s| s.metric("toolview_store_changes_total"))
            .collect::<anyhow::Result<_>>()?;
        let started = Instant::now();
        let session = format!("feed-{replicas}-{}", std::process::id());
        load::fill(&a.url, &session, events, config.payload, BATCH).await?;
        tokio::time::sleep(SETTLE).await;
        let elapsed = started.elapsed().as_secs_f64();
        let per_event = |cpu: Duration| cpu.as_secs_f64() * 1e6 / events as f64;
        let a_us = per_event(a.cpu_time() - a_before);
        let idle_us: Vec<f64> = idle
            .iter()
            .zip(&before)
            .zip(&background)
            .map(|((s, b), bg)| {
                let used = (s.cpu_time() - *b).as_secs_f64() - bg * elapsed;
                used.max(0.0) * 1e6 / events as f64
            })
            .collect();
        let reads: Vec<f64> = idle
            .iter()
            .zip(&read_before)
            .map(|(s, b)| Ok((s.metric("toolview_store_changes_total")? - b) / events as f64))
            .collect::<anyhow::Result<_>>()?;
        let mean_reads = if reads.is_empty() {
            0.0
        } else {
            reads.iter().sum::<f64>() / reads.len() as f64
        };
        let total: f64 = a_us + idle_us.iter().sum::<f64>();
        let mean_idle = if idle_us.is_empty() {
            0.0
        } else {
            idle_us.iter().sum::<f64>() / idle_us.len() as f64
        };
        let mut row = Row::new(
            format!(
                "the feed: {} appends on replica A, {replicas} replica(s), none subscribed elsewhere (JetStream R1)",
                thousands(events as f64)
            ),
            format!("{total:.1} µs cluster CPU per appended event"),
        );
        row.verdict = if idle_us.is_empty() {
            format!("A {a_us:.1} µs")
        } else {
            format!(
                "A {a_us:.1} µs; each idle replica {mean_idle:.1} µs and reads {mean_reads:.2} \
                 appends per appended event"
            )
        };
        rows.push(row);
        points.push(FeedPoint {
            replicas,
            cluster_us: total,
        });
    }
    Ok(points)
}
