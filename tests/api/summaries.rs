//! Session summaries on the real binary: each session's state follows its log (a prompt
//! waiting, a turn or call open, a turn stopped short, nothing open), `GetSession` and
//! `ListSessions` carry it, `ListSessions` filters by it, and it survives a restart.

use support::permissions::{ask, permissions, respond};
use support::process::ServerProcess;
use support::sessions::*;
use toolview::grpc::pb;

/// Four sessions, one in each state.
async fn fleet(c: &mut Client) {
    let waiting = vec![
        turn("waiting", "e1", "t1"),
        start_call(
            "waiting",
            "e2",
            "c1",
            "bash",
            r#"{"command":"make test","description":"Run the tests"}"#,
        ),
        ask("waiting", "p1", "c1", 60_000),
    ];
    let running = vec![
        turn("running", "e1", "t1"),
        bash_call("running", "e2", "c1"),
    ];
    let failed = vec![
        turn("failed", "e1", "t1"),
        turn_end("failed", "e2", "t1", pb::StopReason::MaxTokens),
    ];
    let idle = sample_session("idle");
    for events in [waiting, running, failed, idle] {
        publish(c, events).await.unwrap();
    }
}

fn summary(s: &pb::GetSessionResponse) -> pb::SessionSummary {
    s.summary.clone().expect("a summary")
}

async fn listed(c: &mut Client, request: pb::ListSessionsRequest) -> Vec<String> {
    let page = c.list_sessions(request).await.unwrap().into_inner();
    page.sessions.into_iter().map(|s| s.session_id).collect()
}

fn in_states(states: &[pb::SessionState]) -> pb::ListSessionsRequest {
    pb::ListSessionsRequest {
        states: states.iter().map(|s| *s as i32).collect(),
        ..pb::ListSessionsRequest::default()
    }
}

#[tokio::test]
async fn each_sessions_state_follows_its_log_on_every_store() {
    use pb::SessionState as S;
    for store in ["embedded", "memory"] {
        let dir = tempfile::tempdir().unwrap();
        let server = ServerProcess::spawn(dir.path(), &["--store", store]);
        let mut c = client(&server.url).await;
        fleet(&mut c).await;
        let w = summary(&get_session(&mut c, "waiting").await.unwrap());
        assert_eq!(w.state(), S::RequiresAction, "{store}");
        assert_eq!((w.pending_count, w.open_calls, w.open_turns), (1, 1, 1));
        assert_eq!(w.pending[0].request_id, "p1");
        assert_eq!(w.pending[0].title, "Run rm -rf build?");
        assert_eq!(w.pending[0].options.len(), 3);
        assert!(w.activity.contains("make test"), "{}", w.activity);
        let f = summary(&get_session(&mut c, "failed").await.unwrap());
        assert_eq!((f.state(), f.turns), (S::Failed, 1));
        assert_eq!(f.usage.unwrap().input_tokens, 120);
        let i = summary(&get_session(&mut c, "idle").await.unwrap());
        assert_eq!((i.state(), i.open_calls), (S::Idle, 0));
        // The list carries the same summaries, and filters by state.
        let r = summary(&get_session(&mut c, "running").await.unwrap());
        assert_eq!(r.state(), S::Running);
        assert_eq!(
            listed(&mut c, in_states(&[S::RequiresAction])).await,
            ["waiting"]
        );
        assert_eq!(
            listed(&mut c, in_states(&[S::Running, S::Failed])).await,
            ["failed", "running"]
        );
        assert_eq!(listed(&mut c, in_states(&[])).await.len(), 4);
        // An answer moves the waiting session on: still running (its call is open).
        let mut p = permissions(&server.url).await;
        p.respond_permission(respond("waiting", "p1", "allow"))
            .await
            .unwrap();
        let w = summary(&get_session(&mut c, "waiting").await.unwrap());
        assert_eq!((w.state(), w.pending_count), (S::Running, 0), "{store}");
        assert!(
            listed(&mut c, in_states(&[S::RequiresAction]))
                .await
                .is_empty()
        );
    }
}

#[tokio::test]
async fn filters_by_title_cwd_and_time_and_refuses_an_unknown_state() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &[]);
    let mut c = client(&server.url).await;
    fleet(&mut c).await;
    let by_cwd = pb::ListSessionsRequest {
        cwd_prefix: "/work/".into(),
        ..pb::ListSessionsRequest::default()
    };
    assert_eq!(listed(&mut c, by_cwd).await, ["idle"]);
    let future = pb::ListSessionsRequest {
        updated_since: Some(prost_types::Timestamp {
            seconds: 4_000_000_000,
            nanos: 0,
        }),
        ..pb::ListSessionsRequest::default()
    };
    assert!(listed(&mut c, future).await.is_empty());
    let bad = pb::ListSessionsRequest {
        states: vec![0],
        ..pb::ListSessionsRequest::default()
    };
    let err = c.list_sessions(bad).await.unwrap_err();
    assert_eq!(err.code(), tonic::Code::InvalidArgument);
    assert_eq!(err.message(), "states[0]: not set");
}

#[tokio::test]
async fn a_summary_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let before = {
        let mut server = ServerProcess::spawn(dir.path(), &[]);
        let mut c = client(&server.url).await;
        fleet(&mut c).await;
        let got = get_session(&mut c, "waiting").await.unwrap();
        server.kill();
        got
    };
    let server = ServerProcess::spawn(dir.path(), &[]);
    let mut c = client(&server.url).await;
    let after = get_session(&mut c, "waiting").await.unwrap();
    assert_eq!(after.summary, before.summary);
    assert_eq!(summary(&after).state(), pb::SessionState::RequiresAction);
}

async fn watch(
    c: &mut Client,
    states: &[pb::SessionState],
) -> tonic::Streaming<pb::WatchSessionsResponse> {
    let request = pb::WatchSessionsRequest {
        states: states.iter().map(|s| *s as i32).collect(),
        ..pb::WatchSessionsRequest::default()
    };
    c.watch_sessions(request).await.unwrap().into_inner()
}

#[tokio::test]
async fn a_watch_sends_the_fleet_then_each_change_and_a_session_leaving_its_filter() {
    use pb::SessionState as S;
    use pb::watch_sessions_response::Item;
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &[]);
    let mut c = client(&server.url).await;
    fleet(&mut c).await;
    let mut waiting = watch(&mut c, &[S::RequiresAction]).await;
    let Item::Session(first) = next_watched(&mut waiting).await else {
        panic!("a session first")
    };
    assert_eq!(first.session_id, "waiting");
    assert!(matches!(next_watched(&mut waiting).await, Item::Synced(_)));
    // A new prompt elsewhere arrives at once; the answer to the first sends it once more,
    // running now (it leaves the filter).
    publish(&mut c, vec![ask("running", "p9", "c1", 60_000)])
        .await
        .unwrap();
    let Item::Session(asked) = next_watched(&mut waiting).await else {
        panic!("a session")
    };
    assert_eq!(asked.session_id, "running");
    assert_eq!(asked.summary.unwrap().state(), S::RequiresAction);
    let mut p = permissions(&server.url).await;
    p.respond_permission(respond("waiting", "p1", "allow"))
        .await
        .unwrap();
    let Item::Session(left) = next_watched(&mut waiting).await else {
        panic!("a session")
    };
    assert_eq!(left.session_id, "waiting");
    assert_eq!(left.summary.unwrap().state(), S::Running);
}

#[tokio::test]
async fn a_busy_session_costs_a_watcher_a_few_updates_not_one_per_chunk() {
    use pb::watch_sessions_response::Item;
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--fleet-throttle-ms", "500"]);
    let mut c = client(&server.url).await;
    publish(
        &mut c,
        vec![turn("busy", "e0", "t1"), bash_call("busy", "e1", "c1")],
    )
    .await
    .unwrap();
    let mut all = watch(&mut c, &[]).await;
    assert!(matches!(next_watched(&mut all).await, Item::Session(_)));
    assert!(matches!(next_watched(&mut all).await, Item::Synced(_)));
    // 2,000 output chunks, 10 per publish (200 appends), as fast as the server takes them.
    for batch in 0..200 {
        let chunks = (0..10)
            .map(|i| output("busy", &format!("o{batch}-{i}"), "c1", "line\n"))
            .collect();
        publish(&mut c, chunks).await.unwrap();
    }
    // The call and the turn end: that state change is sent at once, after at most the held
    // activity updates.
    publish(
        &mut c,
        vec![
            finish("busy", "f1", "c1", "done", ""),
            turn_end("busy", "t1e", "t1", pb::StopReason::EndTurn),
        ],
    )
    .await
    .unwrap();
    let mut updates = 0;
    loop {
        let Item::Session(s) = next_watched(&mut all).await else {
            panic!("a session")
        };
        updates += 1;
        if s.summary.unwrap().state() == pb::SessionState::Idle {
            break;
        }
    }
    println!("{updates} updates for 2,000 chunks and the end");
    assert!(updates <= 25, "{updates} updates");
}

/// `toolview sessions --watch --approve`, piped: the fleet as rows, then a line per change; `j`
/// and `k` choose a prompt (a line says which) and `1` answers it with its first option,
/// recorded `via sessions`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_watch_shows_each_change_and_keys_choose_and_answer_a_prompt() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &[]);
    let mut c = client(&server.url).await;
    publish(&mut c, sample_session("done")).await.unwrap();
    let mut child =
        support::cli::command(&["sessions", "--watch", "--approve", "--server", &server.url])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let mut next_line = async || {
        tokio::time::timeout(support::sessions::PATIENCE, rx.recv())
            .await
            .expect("a line")
            .expect("the watch goes on")
    };
    assert!(next_line().await.starts_with("STATE"));
    assert!(next_line().await.starts_with("idle             done"));
    publish(
        &mut c,
        vec![
            start_call(
                "asks",
                "e1",
                "c1",
                "bash",
                r#"{"command":"make deploy","description":"Deploy"}"#,
            ),
            ask("asks", "p1", "c1", 60_000),
        ],
    )
    .await
    .unwrap();
    let waiting = next_line().await;
    assert!(waiting.starts_with("requires_action  asks"), "{waiting}");
    assert!(waiting.contains("waiting: Run rm -rf build?"), "{waiting}");
    // A second session asks; `j` chooses it (the next one waiting), `1` answers it.
    publish(
        &mut c,
        vec![
            start_call("later", "e1", "c1", "bash", r#"{"command":"make"}"#),
            ask("later", "p1", "c1", 60_000),
        ],
    )
    .await
    .unwrap();
    assert!(next_line().await.starts_with("requires_action  later"));
    writeln!(stdin, "j").unwrap();
    let chosen = next_line().await;
    assert!(
        chosen.starts_with(
            "> answering later: Run rm -rf build? [1 Allow · 2 Always allow · 3 Reject]"
        ),
        "{chosen}"
    );
    writeln!(stdin, "1").unwrap();
    let decided = support::permissions::resolution(&server.url, "later", "p1").await;
    assert_eq!(decided.resolved_by.unwrap().via, "sessions");
    assert!(next_line().await.starts_with("running          later"));
    // `k` goes back; with one left waiting, it is the one chosen.
    writeln!(stdin, "k").unwrap();
    assert!(next_line().await.starts_with("> answering asks:"));
    writeln!(stdin, "1").unwrap();
    let decided = support::permissions::resolution(&server.url, "asks", "p1").await;
    assert_eq!(decided.resolved_by.unwrap().via, "sessions");
    let answered = next_line().await;
    assert!(answered.starts_with("running          asks"), "{answered}");
    child.kill().unwrap();
    child.wait().unwrap();
}
