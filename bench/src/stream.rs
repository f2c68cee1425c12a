//! A streaming call with and without appends: VIEW subscribers (one connection each) follow a
//! session live while one call streams its output, and the server's CPU per chunk per
//! subscriber is what the row says. With `output_appends` a chunk is sent once; without, each
//! subscriber gets a snapshot per chunk until the output cap, then empty updates.

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

/// One row per way of receiving the call's output.
pub async fn rows(config: &BenchConfig, rows: &mut Vec<Row>) -> anyhow::Result<()> {
    let (chunks, subscribers) = if config.quick {
        (500, 10)
    } else {
        (10_000, 100)
    };
    for appends in [true, false] {
        let server = Server::toolview(&config.toolview, "embedded")?;
        progress(&format!(
            "stream: {chunks} chunks to {subscribers} VIEW subscribers, appends {appends}"
        ));
        // The session start, the call, then its chunks.
        let last = chunks + 2;
        let mut readers = JoinSet::new();
        for _ in 0..subscribers {
            let mut client = SessionServiceClient::new(load::connect(&server.url).await?);
            let caps = Capabilities {
                output_appends: appends,
                max_output_bytes: CAP,
                ..Capabilities::all(true)
            };
            let request = pb::SubscribeRequest {
                session_id: "stream".into(),
                target: pb::Target::View as i32,
                capabilities: Some(caps.into()),
                start: Some(Start::FromBeginning(pb::StartFromBeginning {})),
            };
            let mut stream = client.subscribe(request).await?.into_inner();
            readers.spawn(async move {
                let mut bytes = 0u64;
                while let Some(msg) = stream.message().await? {
                    if let Some(Item::Update(u)) = &msg.item {
                        bytes += prost::Message::encoded_len(u) as u64;
                        if u.cursor.as_ref().is_some_and(|c| c.offset >= last) {
                            return anyhow::Ok(bytes);
                        }
                    }
                }
                bail!("the stream ended before offset {last}")
            });
        }
        let cpu = server.cpu_time();
        let t0 = Instant::now();
        load::fill(&server.url, "stream", last, config.payload, 100).await?;
        let mut sent = 0u64;
        while let Some(read) = readers.join_next().await {
            sent += read??;
        }
        let took = t0.elapsed();
        let cpu = server.cpu_time().saturating_sub(cpu);
        let per = cpu.as_secs_f64() * 1e6 / (chunks * subscribers as u64) as f64;
        let mut row = Row::new(
            format!(
                "a {}-chunk call ({} B each) live to {subscribers} VIEW subscribers, cap {} KiB, {}",
                thousands(chunks as f64),
                config.payload,
                CAP / 1024,
                if appends { "appends" } else { "snapshots" }
            ),
            format!("{per:.2} µs server CPU per chunk per subscriber"),
        );
        row.verdict = format!(
            "{:.1} MB sent, {:.2} s, server CPU {:.2} s",
            sent as f64 / 1e6,
            took.as_secs_f64(),
            cpu.as_secs_f64()
        );
        rows.push(row);
        // Give the next server a quiet machine.
        drop(server);
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    Ok(())
}
