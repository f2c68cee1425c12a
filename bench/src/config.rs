//! `toolview-bench`'s options: the scenarios and their sizes.

use std::path::PathBuf;
use std::time::Duration;

use crate::load::Window;

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
    /// Sessions stored when the fleet is watched (`fleet`).
    #[arg(long, default_value_t = 10_000)]
    pub fleet_sessions: usize,
    /// Of them, sessions publishing output while it is watched.
    #[arg(long, default_value_t = 1_000)]
    pub fleet_active: usize,
    /// How long they publish, in milliseconds (and the one streaming session's chunks' span).
    #[arg(long, default_value_t = 10_000)]
    pub fleet_ms: u64,
    /// Watchers of the whole fleet, one run per value (and one unwatched, the baseline).
    #[arg(long, value_delimiter = ',', default_value = "1,10")]
    pub fleet_watchers: Vec<usize>,
    /// Output chunks the one streaming session prints over `fleet_ms`.
    #[arg(long, default_value_t = 10_000)]
    pub fleet_solo_chunks: usize,
    /// Sessions stored when `ListSessions` is filtered by state.
    #[arg(long, default_value_t = 100_000)]
    pub fleet_listed: usize,
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
        default_value = "publish,fanout,replay,stream,idle,scale,render,jetstream,otlp"
    )]
    pub scenarios: Vec<Scenario>,
    /// Small counts everywhere: checks that every scenario runs, measures nothing useful.
    #[arg(long)]
    pub quick: bool,
    /// The growth curves alone (`scripts/bench.sh --scale`): the `growth` scenario, whatever
    /// `--scenarios` says.
    #[arg(long)]
    pub scale: bool,
    /// Stored sessions at each size of the growth curves.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "1000,10000,100000,1000000"
    )]
    pub growth_stored: Vec<usize>,
    /// Live subscribers at each size of the growth curves.
    #[arg(long, value_delimiter = ',', default_value = "10,100,1000,10000")]
    pub growth_subscribers: Vec<usize>,
    /// Events in the session at each size of the growth curves.
    #[arg(long, value_delimiter = ',', default_value = "100,1000,10000,100000")]
    pub growth_events: Vec<usize>,
}

/// `toolview` in this binary's directory.
fn sibling_toolview() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.join("toolview")))
        .unwrap_or_else(|| PathBuf::from("toolview"))
}

impl BenchConfig {
    pub(crate) fn shrink(&mut self) {
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
        self.growth_stored = vec![100, 1_000];
        self.growth_subscribers = vec![2, 10];
        self.growth_events = vec![10, 100];
        self.fleet_sessions = 500;
        self.fleet_active = 50;
        self.fleet_ms = 1_000;
        self.fleet_watchers = vec![1, 2];
        self.fleet_solo_chunks = 1_000;
        self.fleet_listed = 2_000;
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
    /// OTLP ingestion: tool spans per second over OTLP/HTTP beside `Publish`.
    Otlp,
    /// The JetStream rows of replicas' feeds and listings alone (R1; part of `jetstream`).
    Feed,
    /// Growth curves: publish latency, replay, RSS and CPU against stored sessions, live
    /// subscribers, events per session and replicas (`--scale`).
    Growth,
    /// The fleet watch's cost per summary change and watcher, a busy session's notices, and
    /// `ListSessions` filtered by state at many sessions.
    Fleet,
}
