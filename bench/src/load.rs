//! The client side of `toolview-bench`: load scenarios over real gRPC connections, one
//! connection per simulated harness or UI (they are separate processes in real use).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use tokio::sync::Notify;
use tokio::task::JoinSet;
use tonic::transport::{Channel, Endpoint};

use crate::measure::{CpuProbe, CpuSpan, Fanout, FanoutPlan, Sampled, micros};
use toolview::grpc::pb::{
    self, presentation_service_client::PresentationServiceClient, rendered_update::Body,
    session_service_client::SessionServiceClient, subscribe_request::Start,
    subscribe_response::Item, tool_event::Event,
};
use toolview::render::Capabilities;

/// The call every scenario's session runs: a shell command streaming output.
const CALL_ID: &str = "call-1";

/// Opens one HTTP/2 connection.
pub async fn connect(url: &str) -> anyhow::Result<Channel> {
    Endpoint::from_shared(url.to_owned())?
        .tcp_nodelay(true)
        .connect()
        .await
        .with_context(|| format!("connecting to {url}"))
}

/// Output text of exactly `bytes` bytes, shaped like a build log.
pub fn output_text(bytes: usize) -> String {
    const LINE: &str = "   Compiling toolview-bench-crate v0.1.0 (/work/crates/bench)\n";
    LINE.chars().cycle().take(bytes).collect()
}

/// The events of one benchmark session, in order: the session start, one shell call, then its
/// output chunks (`data` each). Event `i` lands at offset `i + 1`.
pub struct SessionScript {
    session: String,
    data: String,
    next: u64,
    /// The call writes a file whose arguments stream in pieces of `data` (escaped for a JSON
    /// string), instead of a command printing `data` chunks.
    input: bool,
}

impl SessionScript {
    /// A script for `session` whose output chunks carry `data`.
    pub fn new(session: impl Into<String>, data: String) -> Self {
        SessionScript {
            session: session.into(),
            data,
            next: 0,
            input: false,
        }
    }

    /// A script for `session` whose one call's input streams: a `Write` of a file whose text
    /// comes in pieces of `data` (made JSON-string safe).
    pub fn streaming_input(session: impl Into<String>, data: &str) -> Self {
        SessionScript {
            session: session.into(),
            data: data
                .replace('\\', "/")
                .replace('\n', "\\n")
                .replace('"', "'"),
            next: 0,
            input: true,
        }
    }

    /// The offset the next event will land at.
    pub fn next_offset(&self) -> u64 {
        self.next + 1
    }

    /// The next event.
    pub fn next_event(&mut self) -> pb::ToolEvent {
        let event = match self.next {
            0 => Event::SessionStarted(pb::SessionStarted {
                cwd: "/work".into(),
            }),
            1 if self.input => Event::CallStarted(pb::ToolCallStarted {
                parent_call_id: String::new(),
                input_streaming: true,
                call_id: CALL_ID.into(),
                tool_name: "Write".into(),
                arguments_json: r#"{"file_path": "/work/big.txt", "content": ""#.into(),
                view: None,
            }),
            _ if self.input => Event::CallInputDelta(pb::ToolCallInputDelta {
                call_id: CALL_ID.into(),
                text: self.data.clone(),
            }),
            1 => Event::CallStarted(pb::ToolCallStarted {
                parent_call_id: String::new(),
                input_streaming: false,
                call_id: CALL_ID.into(),
                tool_name: "bash".into(),
                arguments_json: r#"{"command":"cargo build --release","description":"Build"}"#
                    .into(),
                view: None,
            }),
            _ => Event::CallOutput(pb::ToolCallOutput {
                call_id: CALL_ID.into(),
                data: self.data.clone(),
            }),
        };
        self.next += 1;
        pb::ToolEvent {
            session_id: self.session.clone(),
            event_id: format!("e{}", self.next),
            event: Some(event),
        }
    }

    /// The next `n` events.
    pub fn next_events(&mut self, n: usize) -> Vec<pb::ToolEvent> {
        (0..n).map(|_| self.next_event()).collect()
    }
}

/// Publishes a batch and checks that it landed where the script says.
async fn publish_checked(
    client: &mut SessionServiceClient<Channel>,
    events: Vec<pb::ToolEvent>,
    first_offset: u64,
) -> anyhow::Result<()> {
    let n = events.len();
    let acks = client
        .publish(pb::PublishRequest { events })
        .await
        .map_err(|s| anyhow::anyhow!("publish: {}: {}", s.code(), s.message()))?
        .into_inner()
        .acks;
    let last = acks
        .last()
        .and_then(|a| a.cursor.as_ref())
        .map(|c| c.offset);
    if acks.len() != n || last != Some(first_offset + n as u64 - 1) {
        bail!("publish: acks do not match the script (is the session fresh?)");
    }
    Ok(())
}

/// The measured window of a closed-loop run: `warmup`, then `duration`.
#[derive(Debug, Clone, Copy)]
pub struct Window {
    pub warmup: Duration,
    pub duration: Duration,
}

impl Window {
    fn split(&self) -> (Instant, Instant) {
        let start = Instant::now() + self.warmup;
        (start, start + self.duration)
    }
}

/// Closed-loop publishing: `publishers` harnesses, each on its own connection and session,
/// publishing `batch` output events per `Publish` and waiting for its ack. Counts events; one
/// latency per `Publish`.
pub async fn publish_load(
    url: &str,
    run: &str,
    publishers: usize,
    batch: usize,
    window: Window,
    payload: usize,
) -> anyhow::Result<Sampled> {
    let data = output_text(payload);
    let mut clients = Vec::with_capacity(publishers);
    for p in 0..publishers {
        let mut client = SessionServiceClient::new(connect(url).await?);
        let mut script = SessionScript::new(format!("{run}-p{p}"), data.clone());
        publish_checked(&mut client, script.next_events(2), 1).await?;
        clients.push((client, script));
    }
    closed_loop(
        clients,
        window,
        batch as u64,
        move |(mut client, mut script)| async move {
            let events = script.next_events(batch);
            let ok = client.publish(pb::PublishRequest { events }).await.is_ok();
            ((client, script), ok)
        },
    )
    .await
}

/// The baseline: closed-loop `Render` calls with no events and a `session_cwd` of `payload`
/// bytes — a unary RPC of the same request size that does no work beyond decoding it.
pub async fn unary_baseline(
    url: &str,
    callers: usize,
    window: Window,
    payload: usize,
) -> anyhow::Result<Sampled> {
    let cwd = output_text(payload);
    let mut clients = Vec::with_capacity(callers);
    for _ in 0..callers {
        clients.push((
            PresentationServiceClient::new(connect(url).await?),
            cwd.clone(),
        ));
    }
    closed_loop(clients, window, 1, |(mut client, cwd)| async move {
        let request = pb::RenderRequest {
            session_cwd: cwd.clone(),
            target: pb::Target::Acp as i32,
            capabilities: None,
            events: Vec::new(),
        };
        let ok = client.render(request).await.is_ok();
        ((client, cwd), ok)
    })
    .await
}

/// Runs one closed loop per client: `op` takes the client's state, makes one call and gives
/// the state back with whether the call succeeded. Calls that end inside the window count
/// `weight` operations and one latency each.
pub(crate) async fn closed_loop<C, F, Fut>(
    clients: Vec<C>,
    window: Window,
    weight: u64,
    op: F,
) -> anyhow::Result<Sampled>
where
    C: Send + 'static,
    F: Fn(C) -> Fut + Clone + Send + 'static,
    Fut: std::future::Future<Output = (C, bool)> + Send,
{
    let (start, end) = window.split();
    let mut tasks = JoinSet::new();
    for mut state in clients {
        let op = op.clone();
        tasks.spawn(async move {
            let mut s = Sampled::default();
            loop {
                let t0 = Instant::now();
                let (next, ok) = op(state).await;
                state = next;
                let t1 = Instant::now();
                if t1 >= end {
                    break;
                }
                if t1 >= start {
                    if ok {
                        s.ops += weight;
                        s.latencies_us.push(micros(t1 - t0));
                    } else {
                        s.errors += 1;
                    }
                }
            }
            s
        });
    }
    let mut total = Sampled {
        elapsed: window.duration,
        ..Sampled::default()
    };
    while let Some(s) = tasks.join_next().await {
        total.merge(s?);
    }
    Ok(total)
}

/// Publishes a session of `events` events in batches of `batch`.
pub async fn fill(
    url: &str,
    session: &str,
    events: u64,
    payload: usize,
    batch: usize,
) -> anyhow::Result<()> {
    fill_with(
        url,
        &mut SessionScript::new(session, output_text(payload)),
        events,
        batch,
    )
    .await
}

/// Publishes a script's events up to offset `events`, `batch` per `Publish`; the script goes
/// on from there.
pub async fn fill_with(
    url: &str,
    script: &mut SessionScript,
    events: u64,
    batch: usize,
) -> anyhow::Result<()> {
    let mut client = SessionServiceClient::new(connect(url).await?);
    while script.next_offset() <= events {
        let first = script.next_offset();
        let n = batch.min((events - first + 1) as usize);
        publish_checked(&mut client, script.next_events(n), first).await?;
    }
    Ok(())
}

fn subscribe_request(session: &str, start: Start) -> pb::SubscribeRequest {
    pb::SubscribeRequest {
        session_id: session.to_owned(),
        target: pb::Target::Acp as i32,
        capabilities: Some(Capabilities::all(true).into()),
        start: Some(start),
    }
}

fn update_offset(msg: &pb::SubscribeResponse) -> Option<u64> {
    match &msg.item {
        Some(Item::Update(u)) => u.cursor.as_ref().map(|c| c.offset),
        _ => None,
    }
}

/// A new subscriber (ACP, terminal on) replays a session up to offset `last`: how long from
/// the `Subscribe` call to the last update, and how many updates came.
pub async fn replay(url: &str, session: &str, last: u64) -> anyhow::Result<(Duration, u64)> {
    let mut client = SessionServiceClient::new(connect(url).await?);
    let t0 = Instant::now();
    let mut stream = client
        .subscribe(subscribe_request(
            session,
            Start::FromBeginning(pb::StartFromBeginning {}),
        ))
        .await?
        .into_inner();
    let mut updates = 0;
    while let Some(msg) = stream.message().await? {
        if let Some(offset) = update_offset(&msg) {
            updates += 1;
            if offset >= last {
                return Ok((t0.elapsed(), updates));
            }
        }
    }
    bail!("replay: the stream ended after {updates} updates")
}

/// Fan-out: `subscribers` UIs (ACP, terminal on, one connection each) follow one session
/// while one harness publishes `rate` output events per second for `duration`, `batch`
/// events per `Publish`. Each delivery's latency runs from just before its `Publish` was sent.
/// The harness publishes to `url`, the UIs subscribe at `subscribe_url` (another replica, or
/// the same server).
pub async fn fanout(
    url: &str,
    subscribe_url: &str,
    session: &str,
    plan: FanoutPlan,
    payload: usize,
    server_cpu: CpuProbe<'_>,
) -> anyhow::Result<Fanout> {
    let (subscribers, batch) = (plan.subscribers, plan.batch);
    let mut publisher = SessionServiceClient::new(connect(url).await?);
    let mut script = SessionScript::new(session, output_text(payload));
    publish_checked(&mut publisher, script.next_events(2), 1).await?;

    let outputs = plan.events();
    let first = script.next_offset();
    let last = first + outputs - 1;
    let origin = Instant::now();
    let sent: Arc<Vec<AtomicU64>> = Arc::new((0..=last).map(|_| AtomicU64::new(0)).collect());
    let ready = Arc::new((AtomicUsize::new(0), Notify::new()));
    // Generous: a run that falls this far behind is reported with what arrived.
    let give_up = Instant::now() + plan.duration * 3 + Duration::from_secs(30);

    let mut tasks = JoinSet::new();
    for i in 0..subscribers {
        let mut client = SessionServiceClient::new(connect(subscribe_url).await?);
        let (sent, ready) = (sent.clone(), ready.clone());
        let request = subscribe_request(session, Start::FromBeginning(pb::StartFromBeginning {}));
        tasks.spawn(async move {
            let mut got = Sampled::default();
            let mut sample = None;
            let receive = async {
                let mut stream = client.subscribe(request).await?.into_inner();
                let mut announced = false;
                while let Some(msg) = stream.message().await? {
                    let Some(offset) = update_offset(&msg) else {
                        continue;
                    };
                    let now = Instant::now();
                    if offset + 1 == first && !announced {
                        announced = true;
                        if ready.0.fetch_add(1, Ordering::SeqCst) + 1 == subscribers {
                            ready.1.notify_one();
                        }
                    }
                    if offset >= first {
                        let at = origin
                            + Duration::from_nanos(sent[offset as usize].load(Ordering::Acquire));
                        got.ops += 1;
                        got.latencies_us
                            .push(micros(now.saturating_duration_since(at)));
                        if i == 0
                            && sample.is_none()
                            && let Some(Item::Update(pb::RenderedUpdate {
                                body: Some(Body::Acp(m)),
                                ..
                            })) = &msg.item
                        {
                            sample = m.json.first().map(String::len);
                        }
                    }
                    if offset >= last {
                        break;
                    }
                }
                anyhow::Ok(())
            };
            let outcome = tokio::time::timeout_at(give_up.into(), receive).await;
            if !matches!(outcome, Ok(Ok(()))) {
                got.errors += 1;
            }
            (got, sample, Instant::now())
        });
    }
    let wait = async {
        while ready.0.load(Ordering::SeqCst) < subscribers {
            ready.1.notified().await;
        }
    };
    if tokio::time::timeout(Duration::from_secs(60), wait)
        .await
        .is_err()
    {
        bail!("fan-out: subscribers did not all catch up to the session's start within 60 s");
    }

    let t0 = Instant::now();
    let cpu = CpuSpan::start(server_cpu);
    let mut publishes = Sampled::default();
    let mut ticks = tokio::time::interval(plan.period());
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
    while script.next_offset() <= last {
        ticks.tick().await;
        let at = script.next_offset();
        let n = batch.min((last - at + 1) as usize);
        let stamp = nanos_since(origin);
        for o in at..at + n as u64 {
            sent[o as usize].store(stamp, Ordering::Release);
        }
        let acked = Instant::now();
        publish_checked(&mut publisher, script.next_events(n), at).await?;
        publishes.latencies_us.push(micros(acked.elapsed()));
        publishes.ops += 1;
    }

    let mut report = Fanout {
        published: outputs,
        expected: outputs * subscribers as u64,
        publishes,
        ..Fanout::default()
    };
    let mut done = t0;
    while let Some(joined) = tasks.join_next().await {
        let (got, sample, at) = joined?;
        report.delivered.merge(got);
        done = done.max(at);
        if let Some(bytes) = sample {
            report.message_bytes = bytes;
        }
    }
    report.delivered.elapsed = done - t0;
    (report.server_cpu, report.client_cpu) = cpu.stop();
    Ok(report)
}

fn nanos_since(origin: Instant) -> u64 {
    u64::try_from(origin.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

/// Idle subscribers, held open until dropped.
pub struct Idle {
    _streams: Vec<tonic::Streaming<pb::SubscribeResponse>>,
}

/// Opens `n` live subscriptions to `session` (which must have an event), `per_connection` on
/// each connection, and waits until each has received its first update.
pub async fn idle_subscribers(
    url: &str,
    session: &str,
    n: usize,
    per_connection: usize,
) -> anyhow::Result<Idle> {
    let mut streams = Vec::with_capacity(n);
    let mut channel = None;
    for i in 0..n {
        if i % per_connection.max(1) == 0 {
            channel = Some(connect(url).await?);
        }
        let mut client = SessionServiceClient::new(channel.clone().expect("connected above"));
        let mut stream = client
            .subscribe(subscribe_request(
                session,
                Start::FromBeginning(pb::StartFromBeginning {}),
            ))
            .await
            .with_context(|| format!("idle subscriber {i}"))?
            .into_inner();
        loop {
            let msg = stream
                .message()
                .await?
                .with_context(|| format!("idle subscriber {i}: stream ended"))?;
            if update_offset(&msg).is_some() {
                break;
            }
        }
        streams.push(stream);
    }
    Ok(Idle { _streams: streams })
}

/// The first `n` events of a benchmark session as domain events (for in-process rendering).
pub fn script_events(n: usize, payload: usize) -> Vec<toolview::domain::ToolEvent> {
    let mut script = SessionScript::new("render", output_text(payload));
    toolview::grpc::convert::events_from_pb(script.next_events(n))
        .expect("the script's events are valid")
}
