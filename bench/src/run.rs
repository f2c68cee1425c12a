//! The scenarios and the table. The servers under test run as child processes (`toolview
//! serve` with each store, and a real `nats-server` as the fan-out peer), driven over loopback
//! from this process. Every scenario is bounded in count and time; see `docs/performance.md`
//! for the method and the figures.

use std::io::Write;
use std::time::{Duration, Instant};

use anyhow::Context as _;

use crate::config::{BenchConfig, Scenario};
use crate::limits::Limits;

use crate::load;
use crate::measure::{Fanout, FanoutPlan};
use crate::nats;
use crate::process::Server;
use crate::table::{
    Row, errors, fanout_row, mark, median, percentile_of, plural, print_table, progress, thousands,
};

/// Runs every scenario and prints the table to `out` (progress goes to stderr).
pub async fn run(mut config: BenchConfig, out: &mut impl Write) -> anyhow::Result<()> {
    if config.quick {
        config.shrink();
    }
    if config.scale {
        config.scenarios = vec![Scenario::Growth];
    }
    // Thousands of connections, each an fd here and one in the server (which inherits this).
    let _ = rlimit::increase_nofile_limit(u64::MAX);
    let started = Instant::now();
    let limits = Limits::measure(&config)?;
    let mut rows = Vec::new();
    for scenario in config.scenarios.clone() {
        match scenario {
            Scenario::Publish => publish_rows(&config, &limits, &mut rows).await?,
            Scenario::Fanout => fanout_rows(&config, &mut rows).await?,
            Scenario::Replay => crate::replay::replay_row(&config, &limits, &mut rows).await?,
            Scenario::Stream => crate::stream::rows(&config, &mut rows).await?,
            Scenario::Idle => crate::replay::idle_rows(&config, &mut rows).await?,
            Scenario::Scale => crate::scale::rows(&config, &mut rows).await?,
            Scenario::Render => rows.push(limits.render_row()),
            Scenario::Jetstream => crate::jetstream::rows(&config, &mut rows).await?,
            Scenario::Otlp => crate::otlp::rows(&config, &mut rows).await?,
            Scenario::Feed => crate::jetstream::feed_rows(&config, &mut rows).await?,
            Scenario::Growth => crate::growth::rows(&config, &mut rows).await?,
            Scenario::Fleet => crate::fleet::rows(&config, &mut rows).await?,
        }
    }

    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    writeln!(
        out,
        "toolview-bench: {cores} cores, loopback, {} B output per event, {} build, {:.0} s; \
         publish and baseline rows: the median of {}{}\n",
        config.payload,
        if cfg!(debug_assertions) {
            "DEBUG"
        } else {
            "release"
        },
        started.elapsed().as_secs_f64(),
        plural(config.repeat.max(1), "run"),
        if config.quick {
            ", --quick (not a measurement)"
        } else {
            ""
        },
    )?;
    writeln!(out, "Limits measured in this run: {}.\n", limits.describe())?;
    print_table(&rows, out)?;
    Ok(())
}

async fn publish_rows(
    config: &BenchConfig,
    limits: &Limits,
    rows: &mut Vec<Row>,
) -> anyhow::Result<()> {
    let (window, repeat) = (config.window(), config.repeat.max(1));
    let mut baselines = Vec::new();
    for store in ["memory", "embedded"] {
        let server = Server::toolview(&config.toolview, store)?;
        // The durable peer of the embedded store: JetStream syncing every message.
        let peer = match store {
            "embedded" => match crate::jetstream::durable_peer(&config.nats_server).await {
                Ok(peer) => Some(peer),
                Err(e) => {
                    progress(&format!("no durable JetStream peer: {e:#}"));
                    None
                }
            },
            _ => None,
        };
        for &n in &config.publishers {
            // Baseline and publish alternate, so drift on a noisy machine hits both alike.
            let (mut base_runs, mut runs, mut peer_runs) = (Vec::new(), Vec::new(), Vec::new());
            for r in 0..repeat {
                if store == "memory" {
                    progress(&format!(
                        "bare unary RPC, {} (run {})",
                        plural(n, "caller"),
                        r + 1
                    ));
                    base_runs
                        .push(load::unary_baseline(&server.url, n, window, config.payload).await?);
                }
                progress(&format!(
                    "publish, {store} store, {} (run {})",
                    plural(n, "publisher"),
                    r + 1
                ));
                let run = format!("{store}-{n}-r{r}");
                runs.push(
                    load::publish_load(&server.url, &run, n, 1, window, config.payload).await?,
                );
                if let Some(peer) = &peer {
                    progress(&format!(
                        "durable JetStream peer, {} (run {})",
                        plural(n, "publisher"),
                        r + 1
                    ));
                    peer_runs.push(
                        crate::jetstream::bare_publish(
                            &peer.urls(),
                            &run,
                            n,
                            1,
                            window,
                            config.payload,
                            false,
                        )
                        .await?,
                    );
                }
            }
            if store == "memory" {
                let mut s = median(base_runs);
                let mut row = Row::new(
                    format!(
                        "bare unary RPC (`Render`, no events), {}",
                        plural(n, "caller")
                    ),
                    format!("{} RPC/s", thousands(s.rate())),
                );
                let latency = s.percentiles();
                row.latency = Some(latency);
                row.verdict = errors(&s);
                rows.push(row);
                baselines.push((n, s.rate(), latency.0));
            }
            let mut s = median(runs);
            let base = baselines.iter().find(|b| b.0 == n).map_or(0.0, |b| b.1);
            let ratio = if base > 0.0 { s.rate() / base } else { 0.0 };
            let mut row = Row::new(
                format!("publish, {store} store, {}", plural(n, "publisher")),
                format!("{} ev/s", thousands(s.rate())),
            );
            let latency = s.percentiles();
            row.latency = Some(latency);
            row.verdict = format!("{:.0}% of bare RPC{}", ratio * 100.0, errors(&s));
            // The durable store's ratio goal is at 64 publishers, where group commit shares a
            // flush among many; below that its goals are the flush bound and the durable peer.
            let goal = match (store, n) {
                ("memory", _) | (_, 64..) => Some(("≥ 70% of bare RPC", 0.70)),
                _ => None,
            };
            if let Some((text, at_least)) = goal {
                row.goal = text;
                row.verdict = mark(ratio >= at_least, row.verdict);
            }
            // A lone durable publish: the bare RPC plus about one disk flush, both measured in
            // this run (each ack waits for a flush that a lone publisher cannot share).
            if (store, n) == ("embedded", 1)
                && let Some(&(_, _, base_p50)) = baselines.iter().find(|b| b.0 == 1)
            {
                let bound = base_p50 + 1.5 * limits.flush_us.0 / 1000.0;
                row.goal = "p50 ≤ bare RPC p50 + 1.5 × flush p50";
                row.verdict = mark(
                    latency.0 <= bound,
                    format!("bound {bound:.2} ms; {}", row.verdict),
                );
            }
            rows.push(row);
            if !peer_runs.is_empty() {
                let mut p = median(peer_runs);
                let versus = s.rate() / p.rate().max(1.0);
                let mut row = Row::new(
                    format!(
                        "bare JetStream publish (durable peer: file storage, `sync_interval: always`), {}",
                        plural(n, "publisher")
                    ),
                    format!("{} msg/s", thousands(p.rate())),
                );
                row.latency = Some(p.percentiles());
                row.goal = "embedded store ≥ 1.0× it";
                row.verdict = mark(
                    versus >= 1.0,
                    format!("embedded store: {versus:.2}× it{}", errors(&p)),
                );
                rows.push(row);
            }
        }
        let (n, batch) = (
            config.publishers.iter().copied().max().unwrap_or(1),
            config.publish_batch,
        );
        if batch > 0 {
            let mut runs = Vec::new();
            for r in 0..repeat {
                progress(&format!(
                    "publish, {store} store, {n} publishers, {batch} events each (run {})",
                    r + 1
                ));
                let run = format!("{store}-{n}-b{batch}-r{r}");
                runs.push(
                    load::publish_load(&server.url, &run, n, batch, window, config.payload).await?,
                );
            }
            let mut s = median(runs);
            let mut row = Row::new(
                format!("publish, {store} store, {n} publishers, {batch} events per `Publish`"),
                format!("{} ev/s", thousands(s.rate())),
            );
            row.latency = Some(s.percentiles());
            row.verdict = errors(&s);
            if store == "embedded" {
                row.goal = "≥ 20,000 ev/s";
                row.verdict = mark(s.rate() >= 20_000.0, row.verdict);
            }
            rows.push(row);
        }
    }
    Ok(())
}

async fn fanout_rows(config: &BenchConfig, rows: &mut Vec<Row>) -> anyhow::Result<()> {
    for (i, &rate) in config.fanout_rates.iter().enumerate() {
        fanout_rate_rows(config, rate, i == 0, rows).await?;
    }
    Ok(())
}

async fn fanout_rate_rows(
    config: &BenchConfig,
    rate: u64,
    goal: bool,
    rows: &mut Vec<Row>,
) -> anyhow::Result<()> {
    let (subs, batch) = (config.fanout_subscribers, config.fanout_batch);
    let duration = Duration::from_millis(config.fanout_ms);
    let plan = FanoutPlan {
        subscribers: subs,
        rate,
        duration,
        batch,
    };
    progress(&format!(
        "fan-out, {subs} subscribers, {rate} events/s for {duration:?}"
    ));
    let ours = {
        let server = Server::toolview(&config.toolview, "embedded")?;
        let cpu = || server.cpu_time();
        load::fanout(
            &server.url,
            &server.url,
            "fanout",
            plan,
            config.payload,
            &cpu,
        )
        .await?
    };
    let message = "x".repeat(ours.message_bytes.max(1));
    let peer = match Server::nats(&config.nats_server) {
        Ok(nats) => {
            progress(&format!("fan-out peer: NATS core, {subs} subscribers"));
            let cpu = || nats.cpu_time();
            Some(
                nats::fanout(&nats.url, plan, message.as_bytes(), &cpu)
                    .await
                    .context("NATS fan-out")?,
            )
        }
        Err(e) => {
            progress(&format!("no NATS peer: {e:#}"));
            None
        }
    };
    let scenario = |who: &str, f: &Fanout| {
        format!(
            "fan-out via {who}: {subs} subscribers, {rate} ev/s in batches of {batch}, {} B messages",
            f.message_bytes
        )
    };
    let mut ours_row = fanout_row(scenario("toolview (ACP, terminal on)", &ours), ours.clone());
    // At the first rate: the offered load delivered in time. At every rate: the server's CPU
    // per delivery at most half the peer's in the same run.
    let ok = !goal
        || ours.delivered.rate() >= 200_000.0
            && ours_row.latency.is_some_and(|(_, p99)| p99 <= 50.0);
    ours_row.goal = if goal {
        "≥ 200,000/s, p99 ≤ 50 ms; server CPU per delivery ≤ 0.5× NATS's"
    } else {
        "server CPU per delivery ≤ 0.5× NATS's"
    };
    match peer {
        Some(peer) => {
            let ratio = ours.delivered.rate() / peer.delivered.rate().max(1.0);
            let cpu = ours.server_cpu_per_delivery() / peer.server_cpu_per_delivery().max(1e-9);
            let p50s = (
                ours_row.latency.map_or(0.0, |l| l.0),
                percentile_of(&peer, 0.5),
            );
            ours_row.verdict = mark(
                ok && cpu <= 0.5,
                format!(
                    "server CPU {cpu:.2}× NATS's; {:.0}% of NATS's rate, p50 {:.0}% of NATS's{}",
                    ratio * 100.0,
                    p50s.0 / p50s.1.max(0.001) * 100.0,
                    ours_row.verdict
                ),
            );
            rows.push(ours_row);
            rows.push(fanout_row(scenario("NATS core (peer)", &peer), peer));
        }
        None => {
            ours_row.verdict = mark(false, format!("no NATS peer{}", ours_row.verdict));
            rows.push(ours_row);
        }
    }
    Ok(())
}
