//! SessionService against a real server on port 0 with the real embedded store in a temporary
//! directory: the replay→live seam, resume and resets, idempotency, lifecycle and validation
//! errors, restart byte-identity, and fan-out to many subscribers.

use prost::Message;
use support::server::Server;
use support::sessions::*;
use tonic::Code;
use toolview::app::ServeConfig;
use toolview::grpc::pb::{self, subscribe_response::Item};

fn embedded(dir: &std::path::Path) -> ServeConfig {
    ServeConfig {
        data_dir: dir.to_owned(),
        ..ServeConfig::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replay_then_live_has_no_gap_and_no_duplicate() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_with(embedded(dir.path())).await;
    let mut c = client(&server.url).await;
    publish(
        &mut c,
        vec![start_call(
            "s",
            "start",
            "c",
            "bash",
            r#"{"command":"yes","description":"y"}"#,
        )],
    )
    .await
    .unwrap();

    // Four publishers append output chunks concurrently while subscribers join mid-way.
    const PER_PUBLISHER: usize = 400;
    let mut publishers = Vec::new();
    for p in 0..4 {
        let url = server.url.clone();
        publishers.push(tokio::spawn(async move {
            let mut c = client(&url).await;
            for n in 0..PER_PUBLISHER / 4 {
                let events = (0..4)
                    .map(|k| output("s", &format!("p{p}-{n}-{k}"), "c", "y\n"))
                    .collect();
                publish(&mut c, events).await.unwrap();
            }
        }));
    }
    let total = 1 + 4 * PER_PUBLISHER as u64;
    let mut subscribers = Vec::new();
    for k in 0..3 {
        let url = server.url.clone();
        subscribers.push(tokio::spawn(async move {
            // Join at different moments of the load.
            tokio::time::sleep(std::time::Duration::from_millis(20 * k)).await;
            let mut c = client(&url).await;
            let mut s = subscribe(
                &mut c,
                request("s", pb::Target::AgUi, true, from_beginning()),
            )
            .await;
            offsets(&updates_until(&mut s, total).await)
        }));
    }
    for p in publishers {
        p.await.unwrap();
    }
    for s in subscribers {
        let got = s.await.unwrap();
        assert_eq!(
            got,
            (1..=total).collect::<Vec<_>>(),
            "in order, no gap, no duplicate"
        );
    }
    server.shutdown().await;
}

#[tokio::test]
async fn resume_by_cursor_and_resets() {
    let dir = tempfile::tempdir().unwrap();
    let config = ServeConfig {
        max_events_per_session: 6,
        ..embedded(dir.path())
    };
    let server = Server::start_with(config).await;
    let mut c = client(&server.url).await;
    let events: Vec<_> = (1..=5)
        .map(|i| start_call("s", &format!("e{i}"), &format!("c{i}"), "job_list", "{}"))
        .collect();
    let acks = publish(&mut c, events).await.unwrap();
    let epoch = acks[0].cursor.as_ref().unwrap().epoch.clone();

    // Read three, disconnect, resume after the third.
    let mut s = subscribe(
        &mut c,
        request("s", pb::Target::Markdown, false, from_beginning()),
    )
    .await;
    let first = updates_until(&mut s, 3).await;
    drop(s);
    let mut s = subscribe(
        &mut c,
        request("s", pb::Target::Markdown, false, after(3, &epoch)),
    )
    .await;
    assert_eq!(offsets(&updates_until(&mut s, 5).await), vec![4, 5]);
    assert_eq!(offsets(&first), vec![1, 2, 3]);
    drop(s);

    // A wrong epoch: one Reset, then everything kept.
    let mut s = subscribe(
        &mut c,
        request("s", pb::Target::Markdown, false, after(3, "not-the-epoch")),
    )
    .await;
    match next_item(&mut s).await.unwrap() {
        Some(Item::Reset(r)) => assert_eq!((r.epoch.as_str(), r.head_offset), (epoch.as_str(), 5)),
        other => panic!("expected a reset, got {other:?}"),
    }
    assert_eq!(
        offsets(&updates_until(&mut s, 5).await),
        vec![1, 2, 3, 4, 5]
    );
    drop(s);

    // Retention keeps 6 events: after 5 more, offsets 1–4 are gone; resuming after 2 resets.
    let events: Vec<_> = (6..=10)
        .map(|i| start_call("s", &format!("e{i}"), &format!("c{i}"), "job_list", "{}"))
        .collect();
    publish(&mut c, events).await.unwrap();
    let mut s = subscribe(
        &mut c,
        request("s", pb::Target::Markdown, false, after(2, &epoch)),
    )
    .await;
    match next_item(&mut s).await.unwrap() {
        Some(Item::Reset(r)) => assert_eq!(r.head_offset, 10),
        other => panic!("expected a reset, got {other:?}"),
    }
    assert_eq!(
        offsets(&updates_until(&mut s, 10).await),
        vec![5, 6, 7, 8, 9, 10]
    );
    // Resuming inside what is kept needs no reset.
    let mut s = subscribe(
        &mut c,
        request("s", pb::Target::Markdown, false, after(8, &epoch)),
    )
    .await;
    assert_eq!(offsets(&updates_until(&mut s, 10).await), vec![9, 10]);
    // A cursor without an epoch is not a cursor: no log has an empty epoch.
    let e = c
        .subscribe(request("s", pb::Target::Markdown, false, after(8, "")))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert_eq!(e.message(), "start.after.epoch: must not be empty");
    server.shutdown().await;
}

/// A session `s` whose first call ran (offsets 1–3) and a second started (4): what the tests of
/// retries, the lifecycle and validation publish against.
async fn four_events(dir: &std::path::Path) -> (Server, Client) {
    let server = Server::start_with(embedded(dir)).await;
    let mut c = client(&server.url).await;
    publish(&mut c, first_call()).await.unwrap();
    publish(&mut c, vec![start_call("s", "e4", "c2", "job_list", "{}")])
        .await
        .unwrap();
    (server, c)
}

fn first_call() -> Vec<pb::ToolEvent> {
    vec![
        start_call(
            "s",
            "e1",
            "c1",
            "bash",
            r#"{"command":"ls","description":"l"}"#,
        ),
        output("s", "e2", "c1", "a\n"),
        finish("s", "e3", "c1", "a\n", ""),
    ]
}

async fn head_of_s(url: &str) -> u64 {
    let mut c = client(url).await;
    c.get_session(pb::GetSessionRequest {
        session_id: "s".into(),
    })
    .await
    .unwrap()
    .into_inner()
    .head_offset
}

#[tokio::test]
async fn retries_and_duplicates_ack_the_first_cursor() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_with(embedded(dir.path())).await;
    let mut c = client(&server.url).await;
    let batch = first_call();
    let acks = publish(&mut c, batch.clone()).await.unwrap();
    assert!(acks.iter().all(|a| !a.duplicate));
    assert_eq!(
        acks.iter()
            .map(|a| a.cursor.as_ref().unwrap().offset)
            .collect::<Vec<_>>(),
        vec![1, 2, 3]
    );

    // Retrying the whole batch appends nothing and acks the original cursors.
    let retry = publish(&mut c, batch.clone()).await.unwrap();
    assert_eq!(
        retry
            .iter()
            .map(|a| (a.cursor.clone(), a.duplicate))
            .collect::<Vec<_>>(),
        acks.iter()
            .map(|a| (a.cursor.clone(), true))
            .collect::<Vec<_>>()
    );
    // Whatever the payload: the id decides.
    let same_id = publish(&mut c, vec![output("s", "e2", "c9", "other")])
        .await
        .unwrap();
    assert!(same_id[0].duplicate && same_id[0].cursor.as_ref().unwrap().offset == 2);
    // Duplicates within one batch ack the first occurrence.
    let twice = publish(
        &mut c,
        vec![
            start_call("s", "e4", "c2", "job_list", "{}"),
            start_call("s", "e4", "c2", "job_list", "{}"),
        ],
    )
    .await
    .unwrap();
    assert_eq!((twice[0].duplicate, twice[1].duplicate), (false, true));
    assert_eq!(twice[0].cursor, twice[1].cursor);

    assert_eq!(head_of_s(&server.url).await, 4);
    server.shutdown().await;
}

#[tokio::test]
async fn lifecycle_violations_refuse_the_whole_batch() {
    let dir = tempfile::tempdir().unwrap();
    let (server, mut c) = four_events(dir.path()).await;
    let head = || head_of_s(&server.url);
    // Lifecycle violations, each rejecting the whole batch.
    let cases = [
        (
            start_call("s", "x1", "c1", "bash", "{}"),
            "events[1]: call c1 was already started",
        ),
        (
            output("s", "x2", "c1", "late"),
            "events[1]: call c1 has already finished: no more output",
        ),
        (
            finish("s", "x3", "c1", "again", ""),
            "events[1]: call c1 has already finished",
        ),
    ];
    for (bad, message) in cases {
        let ok = start_call("s", "fresh", "c-new", "job_list", "{}");
        let err = publish(&mut c, vec![ok, bad]).await.unwrap_err();
        assert_eq!(err.code(), Code::FailedPrecondition);
        assert_eq!(err.message(), message);
        assert_eq!(head().await, 4, "nothing of a rejected batch is appended");
    }
    // Within one batch too: a second start of a call started earlier in the batch.
    let err = publish(
        &mut c,
        vec![
            start_call("s", "y1", "c3", "job_list", "{}"),
            start_call("s", "y2", "c3", "job_list", "{}"),
        ],
    )
    .await
    .unwrap_err();
    assert_eq!(err.message(), "events[1]: call c3 was already started");
    let lifecycle = {
        use tonic_types::StatusExt as _;
        err.get_details_bad_request().expect("a BadRequest detail")
    };
    assert_eq!(lifecycle.field_violations[0].field, "events[1]");

    server.shutdown().await;
}

#[tokio::test]
async fn bad_requests_name_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let (server, mut c) = four_events(dir.path()).await;
    let head = || head_of_s(&server.url);
    // Validation names the index and the field.
    let mut bad_id = output("s", "ok", "c2", "x");
    bad_id.event_id = "no spaces".into();
    let err = publish(&mut c, vec![output("s", "z1", "c2", "x"), bad_id])
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert_eq!(
        err.message(),
        "events[1].event_id: may only contain [A-Za-z0-9._:-], found ' '"
    );
    // The field also comes apart, as a google.rpc.BadRequest field violation.
    let bad_request = {
        use tonic_types::StatusExt as _;
        err.get_details_bad_request().expect("a BadRequest detail")
    };
    assert_eq!(bad_request.field_violations.len(), 1);
    assert_eq!(bad_request.field_violations[0].field, "events[1].event_id");
    assert_eq!(
        bad_request.field_violations[0].description,
        "may only contain [A-Za-z0-9._:-], found ' '"
    );
    let err = publish(
        &mut c,
        vec![
            output("s", "z1", "c2", "x"),
            output("s", "z2", "c2", "x"),
            finish("s", "z3", "c2", "r", "{oops"),
        ],
    )
    .await
    .unwrap_err();
    assert!(
        err.message()
            .starts_with("events[2].call_finished.meta_json: not valid JSON"),
        "{}",
        err.message()
    );
    let err = publish(
        &mut c,
        vec![pb::ToolEvent {
            session_id: "s".into(),
            event_id: "n".into(),
            event: None,
        }],
    )
    .await
    .unwrap_err();
    assert_eq!(err.message(), "events[0].event: not set");
    assert_eq!(head().await, 4);

    let err = c
        .get_session(pb::GetSessionRequest {
            session_id: "nope".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::NotFound);
    let err = c
        .subscribe(pb::SubscribeRequest {
            session_id: "s".into(),
            target: pb::Target::Acp as i32,
            capabilities: None,
            start: None,
        })
        .await
        .unwrap_err();
    assert_eq!(
        (err.code(), err.message()),
        (Code::InvalidArgument, "start: not set")
    );
    let err = c
        .subscribe(request(
            "s",
            pb::Target::Unspecified,
            false,
            from_beginning(),
        ))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    server.shutdown().await;
}

/// Every update of a from-beginning subscription, as encoded bytes.
async fn replay_bytes(url: &str, target: pb::Target, terminal: bool, last: u64) -> Vec<Vec<u8>> {
    let mut c = client(url).await;
    let mut s = subscribe(&mut c, request("s", target, terminal, from_beginning())).await;
    updates_until(&mut s, last)
        .await
        .iter()
        .map(|u| u.encode_to_vec())
        .collect()
}

const TARGETS: [pb::Target; 5] = [
    pb::Target::View,
    pb::Target::Acp,
    pb::Target::AgUi,
    pb::Target::Markdown,
    pb::Target::Ansi,
];

#[tokio::test]
async fn restart_on_the_same_data_directory_replays_identical_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_with(embedded(dir.path())).await;
    let mut c = client(&server.url).await;
    let events = sample_session("s");
    let n = events.len() as u64;
    publish(&mut c, events).await.unwrap();
    let mut before = Vec::new();
    for t in TARGETS {
        for terminal in [false, true] {
            before.push(replay_bytes(&server.url, t, terminal, n).await);
        }
    }
    let info = c
        .get_session(pb::GetSessionRequest {
            session_id: "s".into(),
        })
        .await
        .unwrap()
        .into_inner();
    server.shutdown().await;

    let server = Server::start_with(embedded(dir.path())).await;
    let mut after = Vec::new();
    for t in TARGETS {
        for terminal in [false, true] {
            after.push(replay_bytes(&server.url, t, terminal, n).await);
        }
    }
    assert_eq!(before, after, "byte-identical replay after a restart");
    let mut c = client(&server.url).await;
    let again = c
        .get_session(pb::GetSessionRequest {
            session_id: "s".into(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        (again.epoch, again.head_offset, again.calls),
        (info.epoch, info.head_offset, 6)
    );
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_subscribers_receive_identical_streams() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_with(embedded(dir.path())).await;
    let total = 300u64;
    let mut subs = Vec::new();
    for _ in 0..100 {
        let url = server.url.clone();
        subs.push(tokio::spawn(async move {
            let mut c = client(&url).await;
            let mut s = subscribe(
                &mut c,
                request("s", pb::Target::Acp, true, from_beginning()),
            )
            .await;
            updates_until(&mut s, total)
                .await
                .iter()
                .map(|u| u.encode_to_vec())
                .collect::<Vec<_>>()
        }));
    }
    let mut c = client(&server.url).await;
    publish(
        &mut c,
        vec![start_call(
            "s",
            "e0",
            "c",
            "bash",
            r#"{"command":"make","description":"m"}"#,
        )],
    )
    .await
    .unwrap();
    for i in 1..total - 1 {
        publish(
            &mut c,
            vec![output("s", &format!("e{i}"), "c", &format!("line {i}\n"))],
        )
        .await
        .unwrap();
    }
    publish(
        &mut c,
        vec![finish("s", "end", "c", "done", r#"{"exit_code":0}"#)],
    )
    .await
    .unwrap();
    let first = subs.remove(0).await.unwrap();
    assert_eq!(first.len() as u64, total);
    for s in subs {
        assert_eq!(s.await.unwrap(), first);
    }
    server.shutdown().await;
}

#[tokio::test]
async fn heartbeats_while_idle_and_the_message_size_limit() {
    let dir = tempfile::tempdir().unwrap();
    let config = ServeConfig {
        heartbeat_interval_ms: 50,
        max_message_size: 64 * 1024,
        ..embedded(dir.path())
    };
    let server = Server::start_with(config).await;
    let mut c = client(&server.url).await;
    publish(&mut c, vec![start_call("s", "e1", "c1", "job_list", "{}")])
        .await
        .unwrap();
    let mut s = subscribe(
        &mut c,
        request("s", pb::Target::Ansi, false, from_beginning()),
    )
    .await;
    updates_until(&mut s, 1).await;
    // Idle now: the next item is a heartbeat carrying the head.
    let item = tokio::time::timeout(PATIENCE, s.message())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    match item.item {
        Some(Item::Heartbeat(h)) => assert_eq!(h.head_offset, 1),
        other => panic!("expected a heartbeat, got {other:?}"),
    }

    // A request over the limit is refused, and nothing is appended.
    let big = output("s", "e2", "c1", &"x".repeat(100 * 1024));
    let err = publish(&mut c, vec![big]).await.unwrap_err();
    assert_eq!(err.code(), Code::ResourceExhausted, "{err:?}");
    let info = c
        .get_session(pb::GetSessionRequest {
            session_id: "s".into(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(info.head_offset, 1);
    server.shutdown().await;
}
