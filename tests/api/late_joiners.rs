//! Late joiners: a `live_only` subscriber that joins while calls run is first sent their
//! current state (ACP: the `tool_call` and the output so far; AG-UI: start, arguments, end and
//! the output; VIEW, Markdown, ANSI: the snapshot), at the cursor of its start point, so no
//! target ever sends an update for a call the subscriber was not shown. The same start point
//! gives the same bytes.

use std::collections::HashSet;

use serde_json::Value;
use support::server::Server;
use support::sessions::*;
use toolview::grpc::pb::{self, rendered_update::Body, subscribe_response::Item};

fn live_only() -> pb::subscribe_request::Start {
    pb::subscribe_request::Start::LiveOnly(pb::StartLiveOnly {})
}

async fn next_update(s: &mut tonic::Streaming<pb::SubscribeResponse>) -> pb::RenderedUpdate {
    match next_item(s).await.unwrap() {
        Some(Item::Update(u)) => u,
        other => panic!("expected an update, got {other:?}"),
    }
}

/// Two calls in flight (one with output) and one finished, at offset 6.
async fn calls_in_flight(c: &mut Client, s: &str) {
    publish(
        c,
        vec![
            bash_call(s, "e1", "done"),
            finish(s, "e2", "done", "finished before", ""),
            bash_call(s, "e3", "c1"),
            output(s, "e4", "c1", "one\n"),
            start_call(s, "e5", "c2", "job_list", "{}"),
            output(s, "e6", "c1", "two\n"),
        ],
    )
    .await
    .unwrap();
}

/// The `update` objects of an update's ACP messages, each message validated against the
/// schema.
fn acp_updates(u: &pb::RenderedUpdate) -> Vec<Value> {
    match &u.body {
        Some(Body::Acp(m)) => m
            .json
            .iter()
            .map(|j| support::acp::validate(j).unwrap())
            .collect(),
        other => panic!("not ACP: {other:?}"),
    }
}

#[tokio::test]
async fn acp_joiners_are_shown_calls_in_flight_before_their_updates() {
    let server = Server::start().await;
    let mut c = client(&server.url).await;
    calls_in_flight(&mut c, "acp").await;
    for terminal in [true, false] {
        let mut s = subscribe(
            &mut c,
            request("acp", pb::Target::Acp, terminal, live_only()),
        )
        .await;
        // The catch-up: one update per call in flight, in the order they started, at the
        // start point's cursor.
        let first = next_update(&mut s).await;
        let second = next_update(&mut s).await;
        assert_eq!(first.call_id, "c1");
        assert_eq!(second.call_id, "c2");
        // The head: 6, then 7 after the first round's output.
        let head = if terminal { 6 } else { 7 };
        for u in [&first, &second] {
            assert_eq!(u.cursor.as_ref().unwrap().offset, head);
        }
        let mut shown = HashSet::new();
        let mut check = |u: &pb::RenderedUpdate| {
            for update in acp_updates(u) {
                let m = &update;
                let id = update["toolCallId"].as_str().unwrap().to_owned();
                match update["sessionUpdate"].as_str().unwrap() {
                    "tool_call" => assert!(shown.insert(id), "{m}"),
                    "tool_call_update" => assert!(shown.contains(&id), "update for {id}: {m}"),
                    other => panic!("unexpected {other}"),
                }
            }
        };
        check(&first);
        check(&second);
        let text = first.body.as_ref().map(|b| format!("{b:?}")).unwrap();
        if terminal {
            assert!(text.contains("terminal_output"), "{text}");
        }
        assert!(text.contains("one\\\\ntwo"), "the output so far: {text}");
        // What comes next is for calls the subscriber knows.
        if terminal {
            publish(&mut c, vec![output("acp", "e7", "c1", "three\n")])
                .await
                .unwrap();
            check(&next_update(&mut s).await);
        }
        drop(s);
    }
    publish(
        &mut c,
        vec![
            finish("acp", "e8", "c1", "ok", ""),
            finish("acp", "e9", "c2", "ok", ""),
        ],
    )
    .await
    .unwrap();
    server.shutdown().await;
}

#[tokio::test]
async fn every_target_gets_the_snapshot_and_the_same_start_gives_the_same_bytes() {
    let server = Server::start().await;
    let mut c = client(&server.url).await;
    calls_in_flight(&mut c, "all").await;
    for target in [
        pb::Target::View,
        pb::Target::Acp,
        pb::Target::AgUi,
        pb::Target::Markdown,
        pb::Target::Ansi,
    ] {
        let mut a = subscribe(&mut c, request("all", target, true, live_only())).await;
        let mut b = subscribe(&mut c, request("all", target, true, live_only())).await;
        let (a1, b1) = (next_update(&mut a).await, next_update(&mut b).await);
        assert_eq!(
            a1, b1,
            "{target:?}: the same start point, the same catch-up"
        );
        let text = format!("{:?}", a1.body);
        assert_eq!(a1.call_id, "c1", "{target:?}");
        assert!(
            text.contains("one") && text.contains("two"),
            "{target:?}: {text}"
        );
        if target == pb::Target::AgUi {
            assert!(text.contains("TOOL_CALL_START"), "{text}");
        }
        let (a2, _) = (next_update(&mut a).await, next_update(&mut b).await);
        assert_eq!(a2.call_id, "c2", "{target:?}");
    }
    // Nothing in flight: a live-only subscriber gets no catch-up, just what comes next.
    publish(
        &mut c,
        vec![
            finish("all", "e7", "c1", "ok", ""),
            finish("all", "e8", "c2", "ok", ""),
        ],
    )
    .await
    .unwrap();
    let mut quiet = subscribe(&mut c, request("all", pb::Target::Acp, true, live_only())).await;
    publish(&mut c, vec![bash_call("all", "e9", "c3")])
        .await
        .unwrap();
    let next = next_update(&mut quiet).await;
    assert_eq!(next.call_id, "c3");
    assert_eq!(next.cursor.unwrap().offset, 9);
    server.shutdown().await;
}
