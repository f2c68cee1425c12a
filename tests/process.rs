//! The real binary as a separate process: a crash (SIGKILL) under publish load, and a slow
//! subscriber whose memory must stay bounded.

use std::collections::HashMap;
use std::process::Command;
use std::sync::Arc;

use parking_lot::Mutex;

use support::process::{ServerProcess, rss_kib};
use support::sessions::*;
use tonic::Code;
use toolview::grpc::pb::{self, subscribe_response::Item};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_acked_event_survives_a_crash_exactly_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = ServerProcess::spawn(dir.path(), &[]);
    let url = server.url.clone();
    let acked: Arc<Mutex<HashMap<(String, String), u64>>> = Arc::default();

    // Eight publishers: two per session, batches of five calls each, until the server dies.
    let mut publishers = Vec::new();
    for p in 0..8 {
        let (url, acked) = (url.clone(), acked.clone());
        publishers.push(tokio::spawn(async move {
            let mut c = client(&url).await;
            let session = format!("s{}", p % 4);
            for n in 0.. {
                let events: Vec<_> = (0..5)
                    .map(|k| {
                        let id = format!("p{p}-{n}-{k}");
                        start_call(&session, &id, &id, "job_list", "{}")
                    })
                    .collect();
                match publish(&mut c, events).await {
                    Ok(acks) => {
                        let mut acked = acked.lock();
                        for a in acks {
                            acked.insert((session.clone(), a.event_id), a.cursor.unwrap().offset);
                        }
                    }
                    Err(_) => return,
                }
            }
        }));
    }
    // Kill it mid-load, once a good number of events is durable.
    while acked.lock().len() < 2000 {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    server.kill(); // SIGKILL
    for p in publishers {
        p.await.unwrap();
    }
    let acked = acked.lock().clone();
    println!("acked before the crash: {}", acked.len());

    let server = ServerProcess::spawn(dir.path(), &[]);
    let mut c = client(&server.url).await;
    for s in 0..4 {
        let session = format!("s{s}");
        let head = c
            .get_session(pb::GetSessionRequest {
                session_id: session.clone(),
            })
            .await
            .unwrap()
            .into_inner()
            .head_offset;
        let mut stream = subscribe(
            &mut c,
            request(&session, pb::Target::View, false, from_beginning()),
        )
        .await;
        let updates = updates_until(&mut stream, head).await;
        assert_eq!(
            offsets(&updates),
            (1..=head).collect::<Vec<_>>(),
            "{session}: no gap"
        );
        // Each event is its own call: the call id at each offset is the event id.
        let at: HashMap<u64, String> = updates
            .iter()
            .map(|u| (u.cursor.as_ref().unwrap().offset, u.call_id.clone()))
            .collect();
        let mut seen = std::collections::HashSet::new();
        for id in at.values() {
            assert!(seen.insert(id.clone()), "{session}: {id} is stored twice");
        }
        for ((s, id), offset) in acked.iter().filter(|((s, _), _)| *s == session) {
            assert_eq!(
                at.get(offset),
                Some(id),
                "{s}: acked event {id} is not at its offset {offset}"
            );
        }
    }
    // Retrying every acked event appends nothing.
    let mut by_session: HashMap<String, Vec<(String, u64)>> = HashMap::new();
    for ((s, id), o) in &acked {
        by_session
            .entry(s.clone())
            .or_default()
            .push((id.clone(), *o));
    }
    for (session, ids) in by_session {
        for chunk in ids.chunks(500) {
            let events = chunk
                .iter()
                .map(|(id, _)| start_call(&session, id, id, "job_list", "{}"))
                .collect();
            let acks = publish(&mut c, events).await.unwrap();
            for (a, (_, offset)) in acks.iter().zip(chunk) {
                assert!(a.duplicate);
                assert_eq!(a.cursor.as_ref().unwrap().offset, *offset);
            }
        }
    }
}

/// Publishes `calls` calls with a 64 KiB result each to `session`.
async fn publish_calls(c: &mut Client, session: &str, calls: u64, payload: &str) {
    for i in 0..calls {
        let (call, start, end) = (format!("c{i}"), format!("c{i}-start"), format!("c{i}-end"));
        let events = vec![
            start_call(session, &start, &call, "job_list", "{}"),
            finish(session, &end, &call, payload, ""),
        ];
        publish(c, events).await.unwrap();
    }
}

/// Subscribes from the beginning and reads every update up to `last` in the background.
async fn fast_reader(url: &str, session: &str, last: u64) -> tokio::task::JoinHandle<Vec<u64>> {
    let mut c = client(url).await;
    let mut s = subscribe(
        &mut c,
        request(session, pb::Target::Acp, false, from_beginning()),
    )
    .await;
    tokio::spawn(async move {
        let _keep = c;
        offsets(&updates_until(&mut s, last).await)
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_subscriber_neither_blocks_others_nor_grows_memory() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(
        dir.path(),
        &[
            "--subscriber-lag-limit",
            "300",
            "--store-cache-mb",
            "8",
            "--lane-cache-mb",
            "4",
        ],
    );
    let url = server.url.clone();
    let mut c = client(&url).await;
    let payload = "x".repeat(64 * 1024);
    const CALLS: u64 = 800;
    let total = 2 * CALLS;

    // Control: the same load with only a fast subscriber, so the allocator and caches reach
    // their working size before the baseline is taken.
    let warm = fast_reader(&url, "warm", total).await;
    publish_calls(&mut c, "warm", CALLS, &payload).await;
    assert_eq!(warm.await.unwrap(), (1..=total).collect::<Vec<_>>());
    let baseline = rss_kib(server.pid());

    // The slow one reads one update, then stops reading; a fast one keeps up.
    let mut slow = subscribe(
        &mut c,
        request("s", pb::Target::Acp, false, from_beginning()),
    )
    .await;
    let fast = fast_reader(&url, "s", total).await;
    publish(
        &mut c,
        vec![start_call("s", "c0-start", "c0", "job_list", "{}")],
    )
    .await
    .unwrap();
    let first = match next_item(&mut slow).await.unwrap() {
        Some(Item::Update(u)) => u.cursor.unwrap(),
        other => panic!("{other:?}"),
    };
    publish(&mut c, vec![finish("s", "c0-end", "c0", &payload, "")])
        .await
        .unwrap();
    for i in 1..CALLS {
        let (call, start, end) = (format!("c{i}"), format!("c{i}-start"), format!("c{i}-end"));
        publish(
            &mut c,
            vec![
                start_call("s", &start, &call, "job_list", "{}"),
                finish("s", &end, &call, &payload, ""),
            ],
        )
        .await
        .unwrap();
    }
    // The fast subscriber got everything while the slow one was stuck.
    assert_eq!(fast.await.unwrap(), (1..=total).collect::<Vec<_>>());
    let grown_mib = rss_kib(server.pid()).saturating_sub(baseline) / 1024;
    let published_mib = (CALLS * payload.len() as u64) >> 20;
    println!(
        "slow subscriber: server RSS grew {grown_mib} MiB over the control run while {published_mib} MiB of results were published"
    );
    assert!(
        grown_mib < published_mib / 2,
        "server memory grew {grown_mib} MiB for {published_mib} MiB published"
    );

    // The slow one drains what was buffered, is ended past the lag limit, and resumes by cursor.
    let mut got = vec![first.offset];
    let mut last = first.clone();
    loop {
        match tokio::time::timeout(PATIENCE, slow.message())
            .await
            .expect("stalled")
        {
            Ok(Some(pb::SubscribeResponse {
                item: Some(Item::Update(u)),
                ..
            })) => {
                last = u.cursor.clone().unwrap();
                got.push(last.offset);
            }
            Ok(Some(_)) => {}
            Ok(None) => panic!("the slow stream ended without an error"),
            Err(status) => {
                assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
                break;
            }
        }
    }
    let mut resumed = subscribe(
        &mut c,
        request("s", pb::Target::Acp, false, after(last.offset, &last.epoch)),
    )
    .await;
    if last.offset < total {
        got.extend(offsets(&updates_until(&mut resumed, total).await));
    }
    assert_eq!(
        got,
        (1..=total).collect::<Vec<_>>(),
        "nothing lost, nothing twice"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_ends_streams_finishes_publishes_and_closes_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = ServerProcess::spawn(dir.path(), &[]);
    let mut c = client(&server.url).await;
    publish(&mut c, vec![start_call("s", "e0", "c0", "job_list", "{}")])
        .await
        .unwrap();
    let mut stream = subscribe(
        &mut c,
        request("s", pb::Target::Ansi, false, from_beginning()),
    )
    .await;
    updates_until(&mut stream, 1).await;

    // A publisher keeps going while the server is asked to stop.
    let url = server.url.clone();
    let (going, mut acks_seen) = tokio::sync::watch::channel(0usize);
    let publisher = tokio::spawn(async move {
        let mut c = client(&url).await;
        let mut acked = Vec::new();
        for n in 1.. {
            let id = format!("e{n}");
            match publish(&mut c, vec![start_call("s", &id, &id, "job_list", "{}")]).await {
                Ok(acks) => acked.push((id, acks[0].cursor.as_ref().unwrap().offset)),
                Err(_) => return acked,
            }
            going.send_replace(acked.len());
        }
        unreachable!()
    });
    // Stop it mid-flight: after some publishes were acknowledged, with more on the way.
    acks_seen.wait_for(|&n| n >= 10).await.unwrap();
    let status = Command::new("kill")
        .args(["-TERM", &server.pid().to_string()])
        .status()
        .unwrap();
    assert!(status.success());

    // The open stream ends cleanly (OK), and the process exits successfully.
    loop {
        match tokio::time::timeout(PATIENCE, stream.message())
            .await
            .expect("the stream did not end")
        {
            Ok(Some(_)) => continue,
            Ok(None) => break,
            Err(status) => panic!("the stream ended with an error: {status:?}"),
        }
    }
    let exit = tokio::task::spawn_blocking(move || {
        let exit = server.child.wait().unwrap();
        (exit, server)
    })
    .await
    .unwrap()
    .0;
    assert!(exit.success(), "{exit:?}");
    let acked = publisher.await.unwrap();
    assert!(!acked.is_empty());

    // Every acknowledged publish is there after a restart.
    let server = ServerProcess::spawn(dir.path(), &[]);
    let mut c = client(&server.url).await;
    let head = c
        .get_session(pb::GetSessionRequest {
            session_id: "s".into(),
        })
        .await
        .unwrap()
        .into_inner()
        .head_offset;
    let mut stream = subscribe(
        &mut c,
        request("s", pb::Target::View, false, from_beginning()),
    )
    .await;
    let updates = updates_until(&mut stream, head).await;
    for (id, offset) in acked {
        assert_eq!(updates[offset as usize - 1].call_id, id);
    }
}
