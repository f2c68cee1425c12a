//! The scenarios and the table. The servers under test run as child processes (`toolview
//! serve` with each store, and a real `nats-server` as the fan-out peer), driven over loopback
//! from this process. Every scenario is bounded in count and time; see `docs/performance.md`
//! for the method and the figures.

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Context as _;

use crate::limits::Limits;

use crate::load::{self, Window};
use crate::measure::{self, Fanout, FanoutPlan, Sampled};
use crate::nats;
use crate::process::Server;

/// `toolview-bench` options. The defaults are the scenarios; `--quick` shrinks them
/// all for a smoke run.
#[derive(Debug, Clone, clap::Args)]
pub struct BenchConfig {
    /// Bytes of output text per published event (and of the baseline RPC's request field).
    #[arg(long, default_value_t = 256)]
    pub payload: usize,
    /// Concurrent publishers, one connection and session each.
    #[arg(long, value_delimiter = ',', default_value = "1,16,64")]
    pub publishers: Vec<usize>,
    /// Events per `Publish` in the extra batched rows (64 publishers, or the most given);
    /// 0 leaves those rows out.
    #[arg(long, default_value_t = 8)]
    pub publish_batch: usize,
    /// Runs of each closed-loop (publish and baseline) measurement; the row shows the run with
    /// the median rate.
    #[arg(long, default_value_t = 3)]
    pub repeat: usize,
    /// Warm-up before each closed-loop measurement, in milliseconds.
    #[arg(long, default_value_t = 300)]
    pub warmup_ms: u64,
    /// Length of each closed-loop measurement, in milliseconds.
    #[arg(long, default_value_t = 1_000)]
    pub duration_ms: u64,
    /// Subscribers of the fan-out session (one connection each).
    #[arg(long, default_value_t = 1_000)]
    pub fanout_subscribers: usize,
    /// Output events published per second during fan-out; one run (and one NATS run) per
    /// rate. The first is the goal's load; a lower one shows latency with CPU to spare.
    #[arg(long, value_delimiter = ',', default_value = "250,100")]
    pub fanout_rates: Vec<u64>,
    /// Events per `Publish` (and per NATS flush) during fan-out.
    #[arg(long, default_value_t = 5)]
    pub fanout_batch: usize,
    /// Length of the fan-out run, in milliseconds.
    #[arg(long, default_value_t = 5_000)]
    pub fanout_ms: u64,
    /// Events in the replayed session.
    #[arg(long, default_value_t = 100_000)]
    pub replay_events: u64,
    /// Idle subscribers whose memory is measured.
    #[arg(long, default_value_t = 10_000)]
    pub idle_subscribers: usize,
    /// Idle subscribers per connection, one measurement (and fresh server) per value.
    #[arg(long, value_delimiter = ',', default_value = "1,100")]
    pub idle_per_connection: Vec<usize>,
    /// Sessions stored before a server is started on them (the scale rows).
    #[arg(long, default_value_t = 1_000_000)]
    pub stored_sessions: usize,
    /// Sessions in the JetStream stream when `ListSessions` is timed.
    #[arg(long, default_value_t = 100_000)]
    pub listed_sessions: usize,
    /// Sessions loaded (one event each, idle) whose memory is measured; the server's
    /// `--max-loaded-sessions` default keeps them all.
    #[arg(long, default_value_t = 10_000)]
    pub loaded_sessions: usize,
    /// The `toolview` binary to serve with; by default the one next to this binary (cargo
    /// builds both into the same directory).
    #[arg(long, env = "TOOLVIEW_BIN", default_value_os_t = sibling_toolview())]
    pub toolview: PathBuf,
    /// The `nats-server` binary for the fan-out peer; without one, that row says so.
    #[arg(long, env = "TOOLVIEW_NATS_SERVER", default_value = "nats-server")]
    pub nats_server: PathBuf,
    /// Which scenarios to run.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "publish,fanout,replay,stream,idle,scale,render,jetstream"
    )]
    pub scenarios: Vec<Scenario>,
    /// Small counts everywhere: checks that every scenario runs, measures nothing useful.
    #[arg(long)]
    pub quick: bool,
}

/// `toolview` in this binary's directory.
fn sibling_toolview() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.join("toolview")))
        .unwrap_or_else(|| PathBuf::from("toolview"))
}

impl BenchConfig {
    fn shrink(&mut self) {
        self.publishers = vec![1, 4];
        self.repeat = 1;
        self.warmup_ms = 50;
        self.duration_ms = 200;
        self.fanout_subscribers = 20;
        self.fanout_rates = vec![200];
        self.fanout_ms = 250;
        self.replay_events = 2_000;
        self.idle_subscribers = 100;
        self.idle_per_connection = vec![1, 10];
        self.stored_sessions = 2_000;
        self.loaded_sessions = 100;
        self.listed_sessions = 1_000;
    }

    pub(crate) fn window(&self) -> Window {
        Window {
            warmup: Duration::from_millis(self.warmup_ms),
            duration: Duration::from_millis(self.duration_ms),
        }
    }
}

/// A group of rows of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Scenario {
    /// Publish throughput and ack latency per store, beside the bare unary RPC.
    Publish,
    /// One session to many subscribers, beside NATS core.
    Fanout,
    /// A new subscriber replays a long session.
    Replay,
    /// One long streaming call live to many VIEW subscribers, with and without appends.
    Stream,
    /// Server memory per idle subscriber.
    Idle,
    /// A server started on a million stored sessions; memory per loaded session.
    Scale,
    /// ACP rendering on one core, in process.
    Render,
    /// The JetStream store: publish on R1 and R3 beside bare JetStream, and fan-out across
    /// replicas.
    Jetstream,
}

/// One line of the table.
pub(crate) struct Row {
    pub scenario: String,
    pub result: String,
    pub latency: Option<(f64, f64)>,
    pub goal: &'static str,
    pub verdict: String,
}

impl Row {
    pub fn new(scenario: String, result: String) -> Self {
        Row {
            scenario,
            result,
            latency: None,
            goal: "",
            verdict: String::new(),
        }
    }
}

/// Runs every scenario and prints the table to `out` (progress goes to stderr).
pub async fn run(mut config: BenchConfig, out: &mut impl Write) -> anyhow::Result<()> {
    if config.quick {
        config.shrink();
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

pub(crate) fn progress(what: &str) {
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    let t = START.get_or_init(Instant::now).elapsed().as_secs_f64();
    eprintln!("bench [{t:6.1} s]: {what}");
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

/// The run with the median rate.
pub(crate) fn median(mut runs: Vec<Sampled>) -> Sampled {
    runs.sort_by(|a, b| a.rate().total_cmp(&b.rate()));
    let mid = runs.len() / 2;
    runs.swap_remove(mid)
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

pub(crate) fn percentile_of(f: &Fanout, p: f64) -> f64 {
    let mut v = f.delivered.latencies_us.clone();
    v.sort_unstable();
    measure::percentile(&v, p)
}

pub(crate) fn fanout_row(scenario: String, mut f: Fanout) -> Row {
    let missing = f.expected.saturating_sub(f.delivered.ops);
    let mut row = Row::new(
        scenario,
        format!("{} deliveries/s", thousands(f.delivered.rate())),
    );
    row.latency = Some(f.delivered.percentiles());
    row.result = format!(
        "{} (CPU per delivery: server {:.1} µs, clients {:.1} µs)",
        row.result,
        f.server_cpu_per_delivery(),
        f.client_cpu.as_secs_f64() * 1e6 / f.delivered.ops.max(1) as f64
    );
    if missing > 0 {
        row.verdict = format!(
            ", {missing} of {} ({} events × subscribers) not delivered",
            f.expected, f.published
        );
    }
    row
}

pub(crate) fn errors(s: &Sampled) -> String {
    if s.errors > 0 {
        format!(", {} errors", s.errors)
    } else {
        String::new()
    }
}

pub(crate) fn mark(met: bool, detail: String) -> String {
    let detail = detail.trim_start_matches(", ");
    match (met, detail.is_empty()) {
        (true, true) => "met".into(),
        (true, false) => format!("met: {detail}"),
        (false, true) => "MISSED".into(),
        (false, false) => format!("MISSED: {detail}"),
    }
}

/// `1 caller`, `16 callers`.
pub(crate) fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// `1234567.8` → `1,234,568`.
pub(crate) fn thousands(x: f64) -> String {
    let digits = format!("{:.0}", x.max(0.0));
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn print_table(rows: &[Row], out: &mut impl Write) -> std::io::Result<()> {
    writeln!(
        out,
        "| scenario | result | p50 ms | p99 ms | goal | verdict |"
    )?;
    writeln!(out, "|---|---:|---:|---:|---|---|")?;
    for r in rows {
        let (p50, p99) = r.latency.map_or((String::new(), String::new()), |(a, b)| {
            (format!("{a:.2}"), format!("{b:.2}"))
        });
        writeln!(
            out,
            "| {} | {} | {p50} | {p99} | {} | {} |",
            r.scenario, r.result, r.goal, r.verdict
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0.0), "0");
        assert_eq!(thousands(999.4), "999");
        assert_eq!(thousands(1000.0), "1,000");
        assert_eq!(thousands(1234567.8), "1,234,568");
    }

    #[test]
    fn verdicts() {
        assert_eq!(mark(true, String::new()), "met");
        assert_eq!(mark(false, ", 3 errors".into()), "MISSED: 3 errors");
    }
}
