//! What a replica pays for the others' appends (issue 45's "measure first"): replica A appends
//! into a session no one else reads; every other replica's feed (one ordered consumer over every
//! session's subject) still reads each append. Rows at 1, 2 and 3 replicas on one JetStream
//! (R1): the CPU per appended event of A and of each idle replica (their idle CPU over the same
//! time subtracted), and the cluster's total, which grows by one idle replica's cost per replica.

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
pub async fn rows(config: &BenchConfig, flags: &[&str], rows: &mut Vec<Row>) -> anyhow::Result<()> {
    let events = if config.quick { 2_000 } else { EVENTS };
    for replicas in 1..=3usize {
        let a = Server::toolview_with(&config.toolview, "jetstream", flags)?;
        let idle: Vec<Server> = (1..replicas)
            .map(|_| Server::toolview_with(&config.toolview, "jetstream", flags))
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
                "A {a_us:.1} µs; each idle replica {mean_idle:.1} µs and reads every append \
                 (1 read per replica per event)"
            )
        };
        rows.push(row);
    }
    Ok(())
}
