//! The JetStream store under load: publishes through toolview to a stream with one and with
//! three copies (one server, a three-node cluster), beside a bare `async-nats` JetStream publish
//! of the same bytes to the same stream — the engine's own ceiling —, and fan-out from a
//! publisher on one replica to subscribers on another.

use std::sync::Arc;

use anyhow::Context as _;
use async_nats::HeaderMap;
use bytes::Bytes;
use toolview::grpc::StorageCodec;
use toolview::store::{Record, RecordCodec as _};

use crate::config::BenchConfig;
use crate::load::{self, Window};
use crate::measure::{FanoutPlan, Sampled};
use crate::process::{NatsCluster, Server};
use crate::table::{Row, errors, fanout_row, mark, median, plural, progress, thousands};

/// Deliveries per second the cross-replica fan-out is run at (the goal's load), and the
/// publish rate it never exceeds (a `--quick` run has few subscribers).
const FANOUT_DELIVERIES: usize = 100_000;
const FANOUT_MAX_RATE: u64 = 1_000;

/// Every JetStream row; none (with a note) without a `nats-server`.
pub async fn rows(config: &BenchConfig, rows: &mut Vec<Row>) -> anyhow::Result<()> {
    for copies in [1, 3] {
        let cluster = match NatsCluster::start(&config.nats_server, copies) {
            Ok(c) => c,
            Err(e) => {
                progress(&format!("no JetStream rows: {e:#}"));
                return Ok(());
            }
        };
        let urls = cluster.urls();
        let flags = ["--nats-url", &urls, "--nats-replicas", &copies.to_string()];
        let a = match Server::toolview_with(&config.toolview, "jetstream", &flags) {
            Ok(a) => a,
            Err(e) => {
                // A toolview built without the `jetstream` feature (scripts/bench.sh builds it).
                progress(&format!("no JetStream rows: {e:#}"));
                return Ok(());
            }
        };
        publish_rows(config, &a, &urls, copies, rows).await?;
        if copies == 1 {
            crate::listing::rows(config, &a, rows).await?;
            crate::feed::rows(config, &flags, rows).await?;
        }
        if copies == 3 {
            let b = Server::toolview_with(&config.toolview, "jetstream", &flags)?;
            rows.push(cross_replica_fanout(config, &a, &b).await?);
        }
    }
    Ok(())
}

/// The feed and listing rows alone, on one JetStream server.
pub async fn feed_rows(config: &BenchConfig, rows: &mut Vec<Row>) -> anyhow::Result<()> {
    let cluster = NatsCluster::start(&config.nats_server, 1)?;
    let urls = cluster.urls();
    let flags = ["--nats-url", &urls, "--nats-replicas", "1"];
    let a = Server::toolview_with(&config.toolview, "jetstream", &flags)?;
    crate::listing::rows(config, &a, rows).await?;
    crate::feed::rows(config, &flags, rows).await?;
    Ok(())
}

async fn publish_rows(
    config: &BenchConfig,
    toolview: &Server,
    urls: &str,
    copies: usize,
    rows: &mut Vec<Row>,
) -> anyhow::Result<()> {
    let (window, repeat) = (config.window(), config.repeat.max(1));
    let most = config.publishers.iter().copied().max().unwrap_or(1);
    let mut shapes: Vec<(usize, usize)> = config.publishers.iter().map(|&n| (n, 1)).collect();
    if config.publish_batch > 1 {
        shapes.push((most, config.publish_batch));
    }
    // The single-event rate at the most publishers, which a multi-event `Publish` must match.
    let mut single = None;
    for (n, batch) in shapes {
        let (mut ours, mut bare, mut rpc, mut atomic) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for r in 0..repeat {
            // The gRPC round trip alone, on the same server: what any RPC service can reach here.
            if batch == 1 {
                progress(&format!(
                    "bare unary RPC on the replica, {} (run {})",
                    plural(n, "caller"),
                    r + 1
                ));
                rpc.push(load::unary_baseline(&toolview.url, n, window, config.payload).await?);
            }
            let what = format!("R{copies}, {}, {batch} per publish", plural(n, "publisher"));
            progress(&format!(
                "publish via toolview on JetStream {what} (run {})",
                r + 1
            ));
            let run = format!("js{copies}-{n}-b{batch}-r{r}");
            ours.push(
                load::publish_load(&toolview.url, &run, n, batch, window, config.payload).await?,
            );
            progress(&format!("bare JetStream publish {what} (run {})", r + 1));
            bare.push(bare_publish(urls, &run, n, batch, window, config.payload, false).await?);
            if batch > 1 {
                progress(&format!(
                    "bare JetStream atomic batches {what} (run {})",
                    r + 1
                ));
                let run = format!("{run}-atomic");
                atomic
                    .push(bare_publish(urls, &run, n, batch, window, config.payload, true).await?);
            }
        }
        let (mut ours, mut bare) = (median(ours), median(bare));
        let rpc = (!rpc.is_empty()).then(|| median(rpc).rate());
        let each = if batch > 1 {
            format!(", {batch} events per `Publish`")
        } else {
            String::new()
        };
        let ratio = ours.rate() / bare.rate().max(1.0);
        let mut row = Row::new(
            format!(
                "publish, JetStream R{copies} store, {}{each}",
                plural(n, "publisher")
            ),
            format!("{} ev/s", thousands(ours.rate())),
        );
        row.latency = Some(ours.percentiles());
        row.verdict = format!(
            "{:.0}% of bare JetStream{}{}",
            ratio * 100.0,
            rpc.map_or(String::new(), |r| format!(
                ", {:.0}% of the bare RPC ({} RPC/s)",
                ours.rate() / r.max(1.0) * 100.0,
                thousands(r)
            )),
            errors(&ours)
        );
        if batch == 1 && n >= 16 {
            // Two ceilings share the machine: the RPC and JetStream; the lower one binds.
            let ceiling = rpc.map_or(bare.rate(), |r| r.min(bare.rate()));
            let of = ours.rate() / ceiling.max(1.0);
            row.goal = "≥ 70% of min(bare RPC, bare JetStream)";
            row.verdict = mark(
                of >= 0.70,
                format!("{:.0}% of it; {}", of * 100.0, row.verdict),
            );
        }
        if batch == 1 && n == most {
            single = Some(ours.rate());
        }
        if batch > 1
            && let Some(single) = single
        {
            let per_event = ours.rate() / single.max(1.0);
            let detail = format!(
                "{per_event:.2}× the single-event rate ({} ev/s); {}",
                thousands(single),
                row.verdict
            );
            row.verdict = if copies == 1 {
                row.goal = "per event ≥ 1.0× single-event publishes";
                mark(per_event >= 1.0, detail)
            } else {
                detail
            };
        }
        rows.push(row);
        let mut peer = Row::new(
            format!(
                "bare JetStream publish (peer), R{copies}, {}{}",
                plural(n, "publisher"),
                if batch > 1 {
                    format!(", {batch} messages awaited together")
                } else {
                    String::new()
                }
            ),
            format!("{} msg/s", thousands(bare.rate())),
        );
        peer.latency = Some(bare.percentiles());
        peer.verdict = errors(&bare);
        rows.push(peer);
        if !atomic.is_empty() {
            let mut atomic = median(atomic);
            let mut peer = Row::new(
                format!(
                    "bare JetStream atomic batches (peer), R{copies}, {}, {batch} messages each",
                    plural(n, "publisher")
                ),
                format!("{} msg/s", thousands(atomic.rate())),
            );
            peer.latency = Some(atomic.percentiles());
            peer.verdict = format!(
                "toolview: {:.0}% of it{}",
                ours.rate() / atomic.rate().max(1.0) * 100.0,
                errors(&atomic)
            );
            rows.push(peer);
        }
    }
    Ok(())
}

/// The message toolview stores for one output event of `payload` bytes, and its headers.
fn stored_message(payload: usize) -> (Bytes, HeaderMap) {
    let event = load::script_events(3, payload).remove(2);
    let record = Record {
        offset: 3,
        event: Arc::new(event),
    };
    let epoch = toolview::store::new_epoch();
    let bytes = StorageCodec.encode_event(&record, &epoch, 1);
    let mut headers = HeaderMap::new();
    for (name, value) in [
        ("Toolview-Offset", "3"),
        ("Toolview-Created-Ms", "1"),
        ("Toolview-Updated-Ms", "1"),
        ("Toolview-Calls", "1"),
    ] {
        headers.insert(name, value);
    }
    headers.insert("Toolview-Epoch", epoch.to_string());
    (Bytes::from(bytes), headers)
}

/// A single `nats-server` whose JetStream syncs every message to disk before acknowledging it
/// (`sync_interval: always`), with a file-backed stream for [`bare_publish`]: the durable peer of
/// the embedded store.
pub async fn durable_peer(bin: &std::path::Path) -> anyhow::Result<NatsCluster> {
    use async_nats::jetstream::stream;
    let server = NatsCluster::start_with(bin, 1, "sync_interval: always")?;
    let js = async_nats::jetstream::new(async_nats::connect(server.urls()).await?);
    js.create_stream(stream::Config {
        name: "PEER".into(),
        subjects: vec!["toolview.s.>".into()],
        storage: stream::StorageType::File,
        ..Default::default()
    })
    .await
    .context("creating the peer's stream")?;
    Ok(server)
}

/// Closed-loop JetStream publishes, one connection and subject per publisher, each message
/// with a `Nats-Msg-Id` as toolview's; `batch` messages are sent, then their acks awaited — or,
/// `atomic`, sent as one atomic batch (ADR-50, as toolview sends several events; no message
/// ids, which batches refuse).
pub(crate) async fn bare_publish(
    urls: &str,
    run: &str,
    publishers: usize,
    batch: usize,
    window: Window,
    payload: usize,
    atomic: bool,
) -> anyhow::Result<Sampled> {
    let (body, headers) = stored_message(payload);
    let mut clients = Vec::with_capacity(publishers);
    for p in 0..publishers {
        let servers: Vec<&str> = urls.split(',').collect();
        let client = async_nats::connect(servers)
            .await
            .with_context(|| format!("connecting to {urls}"))?;
        let subject = format!("toolview.s.bare-{run}-p{p}");
        clients.push((async_nats::jetstream::new(client), subject, 0u64));
    }
    let (body, headers) = (Arc::new(body), Arc::new(headers));
    load::closed_loop(
        clients,
        window,
        batch as u64,
        move |(js, subject, mut n)| {
            let (body, headers) = (body.clone(), headers.clone());
            async move {
                if atomic {
                    use jetstream_extra::batch_publish::BatchPublishExt as _;
                    let mut b = js.batch_publish().ack_first(false).build();
                    let message = || async_nats::jetstream::message::OutboundMessage {
                        subject: subject.clone().into(),
                        payload: (*body).clone(),
                        headers: Some((*headers).clone()),
                    };
                    for _ in 1..batch {
                        if b.add_message(message()).await.is_err() {
                            return ((js, subject, n), false);
                        }
                    }
                    let ok = b.commit_message(message()).await.is_ok();
                    return ((js, subject, n), ok);
                }
                let mut acks = Vec::with_capacity(batch);
                for _ in 0..batch {
                    n += 1;
                    let mut h = (*headers).clone();
                    h.insert("Nats-Msg-Id", format!("{subject}/{n}"));
                    match js
                        .publish_with_headers(subject.clone(), h, (*body).clone())
                        .await
                    {
                        Ok(ack) => acks.push(ack),
                        Err(_) => return ((js, subject, n), false),
                    }
                }
                let mut ok = true;
                for ack in acks {
                    ok &= ack.await.is_ok();
                }
                ((js, subject, n), ok)
            }
        },
    )
    .await
}

/// A publisher on replica `a`, the subscribers on replica `b`: every delivery crosses NATS.
async fn cross_replica_fanout(config: &BenchConfig, a: &Server, b: &Server) -> anyhow::Result<Row> {
    let subs = config.fanout_subscribers.max(1);
    let rate = ((FANOUT_DELIVERIES / subs) as u64).clamp(1, FANOUT_MAX_RATE);
    let plan = FanoutPlan {
        subscribers: subs,
        rate,
        duration: std::time::Duration::from_millis(config.fanout_ms),
        batch: config.fanout_batch,
    };
    progress(&format!(
        "fan-out across replicas: {subs} subscribers on B, {rate} events/s published on A"
    ));
    let cpu = || b.cpu_time();
    let f = load::fanout(&a.url, &b.url, "cross", plan, config.payload, &cpu).await?;
    let delivered = f.delivered.rate();
    let mut row = fanout_row(
        format!(
            "fan-out across replicas (JetStream R3; ACP, terminal on): publisher on A, \
             {subs} subscribers on B, {rate} ev/s in batches of {}",
            config.fanout_batch
        ),
        f,
    );
    let p99 = row.latency.map_or(f64::MAX, |l| l.1);
    row.goal = "p99 ≤ 100 ms at 100,000 deliveries/s";
    let load_met = delivered >= 0.95 * (rate as f64 * subs as f64)
        && subs * rate as usize >= FANOUT_DELIVERIES;
    row.verdict = mark(
        load_met && p99 <= 100.0,
        format!("p99 {p99:.0} ms{}", row.verdict),
    );
    Ok(row)
}
