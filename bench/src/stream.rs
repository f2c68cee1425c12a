//! A streaming call with and without appends: VIEW subscribers (one connection each) follow a
//! session live while one call streams its output, and the server's CPU per chunk per
//! subscriber is what the row says. With `output_appends` a chunk is sent once; without, each
//! subscriber gets a snapshot per chunk until the output cap, then empty updates.
//!
//! Then the same for a call whose *input* streams (a `Write` whose arguments arrive in pieces):
//! per piece per subscriber, for VIEW with appends, the AI SDK (a `tool-input-delta` each) and
//! ACP (a `rawInput` replacement only where the server reads the input again, so O(input) in
//! all; `toolview acp` throttles those further in time, on the client's side).

use std::time::{Duration, Instant};

use anyhow::bail;
use tokio::task::JoinSet;
use toolview::grpc::pb::{
    self, session_service_client::SessionServiceClient, subscribe_request::Start,
    subscribe_response::Item,
};
use toolview::render::Capabilities;

use crate::config::BenchConfig;
use crate::load;
use crate::process::Server;
use crate::table::{Row, progress, thousands};

/// The output cap the subscribers ask for: a UI's, small enough that the snapshot rows send
/// hundreds of MB rather than tens of GB.
const CAP: u64 = 64 * 1024;

/// Pieces of the streamed input: about 770 KB at 256 B each, below the 1 MiB the renderings
/// keep of one call's input.
const INPUT_PIECES: u64 = 3_000;

/// How the subscribers receive the call.
#[derive(Clone, Copy)]
enum Case {
    /// Its output, as VIEW cards with or without appends.
    Output { appends: bool },
    /// Its input while it streams, in a target.
    Input(InputTarget),
}

/// The targets the streamed-input rows measure.
#[derive(Clone, Copy)]
enum InputTarget {
    View,
    AiSdk,
    Acp,
}

impl Case {
    /// The target and whether VIEW subscribers take appends.
    fn target(self) -> (pb::Target, bool) {
        match self {
            Case::Output { appends } => (pb::Target::View, appends),
            Case::Input(InputTarget::View) => (pb::Target::View, true),
            Case::Input(InputTarget::AiSdk) => (pb::Target::AiSdk, true),
            Case::Input(InputTarget::Acp) => (pb::Target::Acp, true),
        }
    }

    /// The row's scenario and what one event is.
    fn describe(self, payload: usize, chunks: u64, subscribers: usize) -> (String, &'static str) {
        let n = thousands(chunks as f64);
        match self {
            Case::Output { appends } => (
                format!(
                    "a {n}-chunk call ({payload} B each) live to {subscribers} VIEW subscribers, cap {} KiB, {}",
                    CAP / 1024,
                    if appends { "appends" } else { "snapshots" }
                ),
                "chunk",
            ),
            Case::Input(target) => {
                let who = match target {
                    InputTarget::View => "VIEW (appends)",
                    InputTarget::AiSdk => "AI SDK",
                    InputTarget::Acp => "ACP",
                };
                (
                    format!(
                        "a call's input in {n} pieces ({payload} B each) live to {subscribers} {who} subscribers"
                    ),
                    "piece",
                )
            }
        }
    }
}

/// One row per way of receiving the call's output, then its streamed input.
pub async fn rows(config: &BenchConfig, rows: &mut Vec<Row>) -> anyhow::Result<()> {
    let cases = [
        Case::Output { appends: true },
        Case::Output { appends: false },
        Case::Input(InputTarget::View),
        Case::Input(InputTarget::AiSdk),
        Case::Input(InputTarget::Acp),
    ];
    for case in cases {
        rows.push(row(config, case).await?);
        // Give the next server a quiet machine.
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    Ok(())
}

/// One subscriber's stream of the session, from the beginning.
async fn subscribe(
    url: &str,
    target: pb::Target,
    appends: bool,
) -> anyhow::Result<tonic::Streaming<pb::SubscribeResponse>> {
    let mut client = SessionServiceClient::new(load::connect(url).await?);
    let caps = Capabilities {
        output_appends: appends,
        max_output_bytes: CAP,
        ..Capabilities::all(true)
    };
    let request = pb::SubscribeRequest {
        session_id: "stream".into(),
        target: target as i32,
        capabilities: Some(caps.into()),
        start: Some(Start::FromBeginning(pb::StartFromBeginning {})),
    };
    Ok(client.subscribe(request).await?.into_inner())
}

/// Reads a stream up to offset `last`: the bytes its updates took on the wire.
async fn read_until(
    mut stream: tonic::Streaming<pb::SubscribeResponse>,
    last: u64,
) -> anyhow::Result<u64> {
    let mut bytes = 0u64;
    while let Some(msg) = stream.message().await? {
        if let Some(Item::Update(u)) = &msg.item {
            bytes += prost::Message::encoded_len(u) as u64;
            if u.cursor.as_ref().is_some_and(|c| c.offset >= last) {
                return Ok(bytes);
            }
        }
    }
    bail!("the stream ended before offset {last}")
}

async fn row(config: &BenchConfig, case: Case) -> anyhow::Result<Row> {
    let subscribers = if config.quick { 10 } else { 100 };
    let chunks = match (case, config.quick) {
        (_, true) => 500,
        (Case::Output { .. }, false) => 10_000,
        (Case::Input(_), false) => INPUT_PIECES,
    };
    let (target, appends) = case.target();
    let server = Server::toolview(&config.toolview, "embedded")?;
    progress(&format!(
        "stream: {chunks} pieces to {subscribers} subscribers ({target:?}), appends {appends}"
    ));
    // The session start, the call, then its chunks.
    let last = chunks + 2;
    let mut readers = JoinSet::new();
    for _ in 0..subscribers {
        let stream = subscribe(&server.url, target, appends).await?;
        readers.spawn(read_until(stream, last));
    }
    let cpu = server.cpu_time();
    let t0 = Instant::now();
    let mut script = match case {
        Case::Output { .. } => {
            load::SessionScript::new("stream", load::output_text(config.payload))
        }
        Case::Input(_) => {
            load::SessionScript::streaming_input("stream", &load::output_text(config.payload))
        }
    };
    load::fill_with(&server.url, &mut script, last, 100).await?;
    let mut sent = 0u64;
    while let Some(read) = readers.join_next().await {
        sent += read??;
    }
    let took = t0.elapsed();
    let cpu = server.cpu_time().saturating_sub(cpu);
    let per = cpu.as_secs_f64() * 1e6 / (chunks * subscribers as u64) as f64;
    let (what, unit) = case.describe(config.payload, chunks, subscribers);
    let mut row = Row::new(
        what,
        format!("{per:.2} µs server CPU per {unit} per subscriber"),
    );
    row.verdict = format!(
        "{:.1} MB sent, {:.2} s, server CPU {:.2} s",
        sent as f64 / 1e6,
        took.as_secs_f64(),
        cpu.as_secs_f64()
    );
    Ok(row)
}
