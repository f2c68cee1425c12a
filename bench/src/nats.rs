//! The peer for fan-out: NATS core publish/subscribe on a real `nats-server`, with the same
//! subscriber count, one connection each, the same rate and batches, and messages of the same
//! size as toolview's rendered ACP updates (an 8-byte sequence number, then that JSON).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use bytes::Bytes;
use tokio::task::JoinSet;
use tokio_stream::StreamExt as _;

use crate::measure::{CpuProbe, CpuSpan, Fanout, FanoutPlan, Sampled, micros};

const SUBJECT: &str = "bench.fanout";

/// Runs the NATS fan-out: `message` is what each delivery carries after its sequence number.
pub async fn fanout(
    url: &str,
    plan: FanoutPlan,
    message: &[u8],
    server_cpu: CpuProbe<'_>,
) -> anyhow::Result<Fanout> {
    let (subscribers, batch) = (plan.subscribers, plan.batch);
    let outputs = plan.events();
    let last = outputs; // sequence numbers 1..=outputs
    let origin = Instant::now();
    let sent: Arc<Vec<AtomicU64>> = Arc::new((0..=last).map(|_| AtomicU64::new(0)).collect());
    let give_up = Instant::now() + plan.duration * 3 + Duration::from_secs(30);

    let mut tasks = JoinSet::new();
    for _ in 0..subscribers {
        let client = async_nats::connect(url)
            .await
            .with_context(|| format!("connecting to {url}"))?;
        let mut sub = client.subscribe(SUBJECT).await?;
        // The round trip makes sure the server has the subscription before publishing starts.
        client.flush().await?;
        let sent = sent.clone();
        tasks.spawn(async move {
            let _client = client;
            let mut got = Sampled::default();
            let receive = async {
                while let Some(msg) = sub.next().await {
                    let now = Instant::now();
                    let Some(seq) = msg
                        .payload
                        .get(..8)
                        .and_then(|b| b.try_into().ok())
                        .map(u64::from_be_bytes)
                    else {
                        continue;
                    };
                    let at =
                        origin + Duration::from_nanos(sent[seq as usize].load(Ordering::Acquire));
                    got.ops += 1;
                    got.latencies_us
                        .push(micros(now.saturating_duration_since(at)));
                    if seq >= last {
                        break;
                    }
                }
            };
            if tokio::time::timeout_at(give_up.into(), receive)
                .await
                .is_err()
            {
                got.errors += 1;
            }
            (got, Instant::now())
        });
    }

    let publisher = async_nats::connect(url).await?;
    let t0 = Instant::now();
    let cpu = CpuSpan::start(server_cpu);
    let mut ticks = tokio::time::interval(plan.period());
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
    let mut seq = 1;
    while seq <= last {
        ticks.tick().await;
        let stamp = u64::try_from(origin.elapsed().as_nanos()).unwrap_or(u64::MAX);
        let end = (seq + batch as u64).min(last + 1);
        for s in seq..end {
            sent[s as usize].store(stamp, Ordering::Release);
            let mut payload = Vec::with_capacity(8 + message.len());
            payload.extend_from_slice(&s.to_be_bytes());
            payload.extend_from_slice(message);
            publisher.publish(SUBJECT, Bytes::from(payload)).await?;
        }
        // Like a toolview Publish, a batch is on the wire when the tick ends.
        publisher.flush().await?;
        seq = end;
    }

    let mut report = Fanout {
        published: outputs,
        expected: outputs * subscribers as u64,
        message_bytes: message.len() + 8,
        ..Fanout::default()
    };
    let mut done = t0;
    while let Some(joined) = tasks.join_next().await {
        let (got, at) = joined?;
        report.delivered.merge(got);
        done = done.max(at);
    }
    report.delivered.elapsed = done - t0;
    (report.server_cpu, report.client_cpu) = cpu.stop();
    Ok(report)
}
