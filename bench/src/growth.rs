//! Growth curves (`scripts/bench.sh --scale`): how publish latency, replay time, server RSS and
//! CPU grow with stored sessions, live subscribers, events per session and replicas. A row per
//! size, all from one run, and after each dimension a row stating each figure's slope: the
//! exponent k of y ∝ xᵏ from the smallest size to the largest (flat ≈ 0, linear ≈ 1). The rows
//! beside it show the figure at every size, so a bend between two sizes shows too.

use std::time::{Duration, Instant};

use anyhow::bail;
use toolview::grpc::pb;
use toolview::grpc::pb::session_service_client::SessionServiceClient;

use crate::config::BenchConfig;
use crate::load::{self, SessionScript};
use crate::measure::{self, CpuSpan, FanoutPlan, Sampled};
use crate::process::{NatsCluster, Server, fresh_dir};
use crate::scale::{prefill, stored};
use crate::table::{Row, mark, progress, thousands};

/// Single-event publishes timed at each size, one at a time on one connection: enough for the
/// server's CPU over them (read in 10 ms clock ticks) to be good to a few percent.
const PROBES: usize = 2_000;
/// The live-subscriber runs publish this many events a second for this long: low enough that
/// 10,000 subscribers (a delivery each per event, and the bench decoding them) stay within two
/// cores, so what grows is the server's cost, not a backlog.
const LIVE_EVENTS_PER_S: u64 = 10;
const LIVE_SECONDS: u64 = 5;
/// Events per `Publish` while a long session is filled.
const FILL_BATCH: usize = 1_000;
/// Slopes within this of 0 are flat, within this of 1 linear.
const SLOPE_TOLERANCE: f64 = 0.15;

pub async fn rows(config: &BenchConfig, rows: &mut Vec<Row>) -> anyhow::Result<()> {
    let mut curves = vec![
        stored_curve(config, rows).await?,
        live_curve(config, rows).await?,
        events_curve(config, rows).await?,
    ];
    curves.extend(replica_curve(config, rows).await?);
    for curve in &curves {
        rows.extend(curve.slope_row());
    }
    Ok(())
}

/// The figures measured at one size.
struct Point {
    size: usize,
    figures: Vec<(&'static str, f64)>,
}

/// One dimension's points.
struct Curve {
    what: &'static str,
    points: Vec<Point>,
}

impl Curve {
    /// A curve with no sizes yet.
    fn new(what: &'static str) -> Self {
        Curve {
            what,
            points: Vec::new(),
        }
    }

    /// One size: its row (with the publish latency) in the table, its figures in the curve.
    fn add(
        &mut self,
        rows: &mut Vec<Row>,
        mut row: Row,
        latency: (f64, f64),
        size: usize,
        figures: Vec<(&'static str, f64)>,
    ) {
        row.latency = Some(latency);
        rows.push(row);
        self.points.push(Point { size, figures });
    }

    /// Each figure's slope from the first size to the last.
    fn slope_row(&self) -> Option<Row> {
        let (first, last) = (self.points.first()?, self.points.last()?);
        if last.size <= first.size {
            return None;
        }
        let span = (last.size as f64 / first.size as f64).ln();
        let mut steeper = Vec::new();
        let slopes: Vec<String> = first
            .figures
            .iter()
            .zip(&last.figures)
            .map(|(&(name, y0), &(_, y1))| {
                if y0 <= 0.0 || y1 <= 0.0 {
                    return format!("{name}: — ({y0:.2} → {y1:.2})");
                }
                let k = (y1 / y0).ln() / span;
                if k > 1.0 + SLOPE_TOLERANCE {
                    steeper.push(name);
                }
                format!("{name}: {} (k = {k:.2})", shape(k))
            })
            .collect();
        let mut row = Row::new(
            format!(
                "growth: slopes over {} ({} → {})",
                self.what,
                thousands(first.size as f64),
                thousands(last.size as f64)
            ),
            slopes.join("; "),
        );
        row.goal = "no super-linear cost";
        row.verdict = mark(
            steeper.is_empty(),
            if steeper.is_empty() {
                "none grows faster than linearly".to_owned()
            } else {
                format!("super-linear: {}", steeper.join(", "))
            },
        );
        Some(row)
    }
}

/// The name of a growth exponent.
fn shape(k: f64) -> &'static str {
    if k.abs() <= SLOPE_TOLERANCE {
        "flat"
    } else if k < 0.0 {
        "falling"
    } else if k < 1.0 - SLOPE_TOLERANCE {
        "sub-linear"
    } else if k <= 1.0 + SLOPE_TOLERANCE {
        "linear"
    } else {
        "super-linear"
    }
}

/// Ack latencies of single-event publishes and the server's CPU per publish.
struct Probe {
    p50: f64,
    p99: f64,
    cpu_us: f64,
}

/// Publishes `count` single events, one at a time on one connection; `next` gives each event
/// and the offset its ack must name.
async fn probe(
    server: &Server,
    count: usize,
    mut next: impl FnMut(usize) -> (pb::ToolEvent, u64),
) -> anyhow::Result<Probe> {
    let mut client = SessionServiceClient::new(load::connect(&server.url).await?);
    let server_cpu = || server.cpu_time();
    let cpu = CpuSpan::start(&server_cpu);
    let mut sampled = Sampled::default();
    for i in 0..count {
        let (event, expected) = next(i);
        let t0 = Instant::now();
        let acks = client
            .publish(pb::PublishRequest {
                events: vec![event],
            })
            .await
            .map_err(|s| anyhow::anyhow!("publish: {}: {}", s.code(), s.message()))?
            .into_inner()
            .acks;
        sampled.latencies_us.push(measure::micros(t0.elapsed()));
        let offset = acks
            .first()
            .and_then(|a| a.cursor.as_ref())
            .map(|c| c.offset);
        if offset != Some(expected) {
            bail!("growth probe: acked at {offset:?}, expected offset {expected}");
        }
    }
    let (used, _) = cpu.stop();
    let (p50, p99) = sampled.percentiles();
    Ok(Probe {
        p50,
        p99,
        cpu_us: used.as_secs_f64() * 1e6 / count.max(1) as f64,
    })
}

fn probes(config: &BenchConfig) -> usize {
    if config.quick { 50 } else { PROBES }
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// A server started on `n` stored sessions: startup, publishes that each continue a different
/// stored session (a load from the store each), a replay of one, RSS.
async fn stored_curve(config: &BenchConfig, rows: &mut Vec<Row>) -> anyhow::Result<Curve> {
    let mut curve = Curve::new("stored sessions (embedded)");
    for &n in &config.growth_stored {
        progress(&format!("growth: {n} stored sessions"));
        let dir = fresh_dir("growth-stored");
        prefill(&dir, n, config.payload).await?;
        let t0 = Instant::now();
        let server = Server::toolview_in(&config.toolview, "embedded", dir, &[])?;
        let startup = t0.elapsed().as_secs_f64() * 1e3;
        let text = load::output_text(config.payload);
        // 7,919 is prime, so the probed sessions are distinct and spread over the store.
        let p = probe(&server, probes(config).min(n), |i| {
            let mut script = SessionScript::new(stored(i * 7_919 % n), text.clone());
            script.next_events(2);
            (script.next_event(), 3)
        })
        .await?;
        let (replay, _) = load::replay(&server.url, &stored(n - 1), 2).await?;
        let replay = replay.as_secs_f64() * 1e3;
        let rss = mib(server.rss_kib()?);
        let row = Row::new(
            format!("growth: {} stored sessions (embedded)", thousands(n as f64)),
            format!(
                "publish to a stored session {:.0} µs server CPU; replay of one {replay:.2} ms; \
                 startup {startup:.0} ms; RSS {rss:.1} MiB",
                p.cpu_us
            ),
        );
        let figures = vec![
            ("publish p50", p.p50),
            ("publish p99", p.p99),
            ("CPU per publish", p.cpu_us),
            ("replay", replay),
            ("startup", startup),
            ("RSS", rss),
        ];
        curve.add(rows, row, (p.p50, p.p99), n, figures);
    }
    Ok(curve)
}

/// `n` live subscribers (one connection each) on one session while it gets
/// `LIVE_EVENTS_PER_S` events a second: publish and delivery latency, server CPU, RSS.
async fn live_curve(config: &BenchConfig, rows: &mut Vec<Row>) -> anyhow::Result<Curve> {
    let mut curve = Curve::new("live subscribers (one session, embedded)");
    for &n in &config.growth_subscribers {
        progress(&format!("growth: {n} live subscribers"));
        let server = Server::toolview(&config.toolview, "embedded")?;
        tokio::time::sleep(Duration::from_millis(300)).await;
        let before = server.rss_kib()?;
        let plan = FanoutPlan {
            subscribers: n,
            rate: LIVE_EVENTS_PER_S,
            duration: Duration::from_secs(LIVE_SECONDS),
            batch: 1,
        };
        let server_cpu = || server.cpu_time();
        let mut f = load::fanout(
            &server.url,
            &server.url,
            "growth-live",
            plan,
            config.payload,
            &server_cpu,
        )
        .await?;
        let after = server.rss_kib()?;
        let rss = mib(after);
        let per_subscriber = after.saturating_sub(before) as f64 / n as f64;
        let (p50, p99) = f.publishes.percentiles();
        let (d50, d99) = f.delivered.percentiles();
        let per_event = f.server_cpu.as_secs_f64() * 1e6 / f.published.max(1) as f64;
        let mut row = Row::new(
            format!(
                "growth: {} live subscribers on one session, {LIVE_EVENTS_PER_S} events/s",
                thousands(n as f64)
            ),
            format!(
                "delivery {d50:.2} / {d99:.2} ms; {per_event:.0} µs server CPU per event \
                 ({:.2} per delivery); RSS {rss:.1} MiB ({per_subscriber:.1} KiB per subscriber)",
                f.server_cpu_per_delivery()
            ),
        );
        let missing = f.expected.saturating_sub(f.delivered.ops);
        if missing > 0 || f.delivered.errors > 0 {
            row.verdict = format!(
                "{missing} deliveries missing, {} subscribers failed",
                f.delivered.errors
            );
        }
        let figures = vec![
            ("publish p50", p50),
            ("delivery p50", d50),
            ("delivery p99", d99),
            ("CPU per event", per_event),
            ("RSS", rss),
        ];
        curve.add(rows, row, (p50, p99), n, figures);
    }
    Ok(curve)
}

/// One session of `n` events: its replay to a new subscriber, publishes at its end, RSS.
async fn events_curve(config: &BenchConfig, rows: &mut Vec<Row>) -> anyhow::Result<Curve> {
    let mut curve = Curve::new("events per session (embedded)");
    for &n in &config.growth_events {
        progress(&format!("growth: a session of {n} events"));
        let server = Server::toolview(&config.toolview, "embedded")?;
        let session = format!("growth-long-{n}");
        let mut script = SessionScript::new(session.clone(), load::output_text(config.payload));
        load::fill_with(&server.url, &mut script, n as u64, FILL_BATCH).await?;
        let server_cpu = || server.cpu_time();
        let cpu = CpuSpan::start(&server_cpu);
        let (took, updates) = load::replay(&server.url, &session, n as u64).await?;
        let (replay_cpu, _) = cpu.stop();
        let replay = took.as_secs_f64() * 1e3;
        let replay_each = took.as_secs_f64() * 1e6 / updates.max(1) as f64;
        // Clock ticks: meaningful from some 10,000 events up.
        let replay_cpu_us = replay_cpu.as_secs_f64() * 1e6 / updates.max(1) as f64;
        let p = probe(&server, probes(config), |_| {
            let at = script.next_offset();
            (script.next_event(), at)
        })
        .await?;
        let rss = mib(server.rss_kib()?);
        let row = Row::new(
            format!(
                "growth: a session of {} events (embedded)",
                thousands(n as f64)
            ),
            format!(
                "replay {replay:.1} ms ({replay_each:.2} µs per event, {replay_cpu_us:.2} µs \
                 server CPU); a publish at its end {:.0} µs server CPU; RSS {rss:.1} MiB",
                p.cpu_us
            ),
        );
        let figures = vec![
            ("publish p50", p.p50),
            ("CPU per publish", p.cpu_us),
            ("replay", replay),
            ("replay per event", replay_each),
            ("RSS", rss),
        ];
        curve.add(rows, row, (p.p50, p.p99), n, figures);
    }
    Ok(curve)
}

/// The feed's rows at 1, 2 and 3 replicas (JetStream R1): the cluster's CPU per appended event.
async fn replica_curve(config: &BenchConfig, rows: &mut Vec<Row>) -> anyhow::Result<Option<Curve>> {
    let cluster = match NatsCluster::start(&config.nats_server, 1) {
        Ok(cluster) => cluster,
        Err(e) => {
            rows.push(Row::new(
                "growth: replicas".to_owned(),
                format!("not run: no nats-server ({e:#})"),
            ));
            return Ok(None);
        }
    };
    let urls = cluster.urls();
    let flags = ["--nats-url", &urls, "--nats-replicas", "1"];
    let points = crate::feed::rows(config, &flags, rows).await?;
    Ok(Some(Curve {
        what: "replicas (JetStream R1, appends on one)",
        points: points
            .into_iter()
            .map(|p| Point {
                size: p.replicas,
                figures: vec![("cluster CPU per appended event", p.cluster_us)],
            })
            .collect(),
    }))
}
