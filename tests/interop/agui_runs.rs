//! AG-UI runs as the official client checks them, wherever a stream starts or ends. A session of
//! three turns — `examples/conversation.jsonl` (two turns, reasoning, a streamed answer, two
//! calls), then a turn cancelled in the middle of an answer whose fence, markup and non-ASCII
//! text are split across deltas — is published a prefix at a time, each prefix its own session,
//! and every prefix is read by `@ag-ui/client`'s `HttpAgent.runAgent` from the beginning, by a
//! snapshot join, and resumed by `after` at every event of it. Every stream: `verifyEvents`
//! accepts it; every `RUN_FINISHED` names the run its `RUN_STARTED` opened; each message has one
//! START and one END; the cursor `runAgent` returns is the session's head, a cancelled turn's
//! last event included (so resuming from it repeats nothing); the answer arrives whole.

use serde_json::{Value, json};
use support::node::NodeClient;
use support::process::ServerProcess;
use support::sessions::client;
use toolview::grpc::pb;

use crate::agui::{agui_client, endpoint};

/// The answer the cancelled turn streams, and how it is split into its start and deltas.
const ANSWER: [&str; 4] = [
    "Here it is: ``",
    "`rust\nfn mä",
    "in() { println!(\"<b>é</b> [x](javascript:alert(1))\"); }\n``",
    "`\nand *then*",
];

/// The three turns as JSON lines (session `chat`).
fn events() -> Vec<String> {
    let mut lines: Vec<String> = support::cli::repo_file("examples/conversation.jsonl")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect();
    let mut more = vec![
        json!({"eventId": "e26", "turnStarted": {"turnId": "turn-3"}}),
        json!({"eventId": "e27", "messageStarted": {"messageId": "user-3", "role": "MESSAGE_ROLE_USER", "text": "Show me main."}}),
        json!({"eventId": "e28", "messageFinished": {"messageId": "user-3"}}),
        json!({"eventId": "e29", "messageStarted": {"messageId": "say-4", "role": "MESSAGE_ROLE_ASSISTANT", "text": ANSWER[0]}}),
    ];
    for (i, text) in ANSWER[1..].iter().enumerate() {
        more.push(json!({"eventId": format!("e{}", 30 + i), "messageDelta": {"messageId": "say-4", "text": text}}));
    }
    // The user pressed Stop: the turn ends cancelled, the answer unfinished.
    more.push(json!({"eventId": "e33", "turnFinished": {"turnId": "turn-3", "stopReason": "STOP_REASON_CANCELLED"}}));
    lines.extend(more.into_iter().map(|mut e| {
        e["sessionId"] = "chat".into();
        e.to_string()
    }));
    lines
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_stream_pairs_its_runs_ends_its_messages_and_hands_back_its_cursor() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    let all = events();
    assert_eq!(all.len(), 33);
    let mut c = client(&server.url).await;
    let caps = json!({"reasoning": true});
    // Per case: (session, its head, where the stream starts).
    let mut cases = Vec::new();
    let mut expected = Vec::new();
    for k in 1..=all.len() {
        let session = format!("p{k}");
        support::cli::publish_jsonl(&server.url, &session, &all[..k].join("\n"));
        let info = c
            .get_session(pb::GetSessionRequest {
                session_id: session.clone(),
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(info.head_offset, k as u64);
        cases.push(json!({"thread": session, "toolview": {"follow": false, "capabilities": caps}}));
        expected.push((k, "the beginning".to_owned()));
        cases.push(json!({"thread": session, "toolview": {"follow": false, "snapshot": true, "capabilities": caps}}));
        expected.push((k, "a snapshot join".to_owned()));
        for j in 1..k {
            let after = json!({"epoch": info.epoch, "offset": j.to_string()});
            cases.push(json!({"thread": session, "toolview": {"follow": false, "after": after, "capabilities": caps}}));
            expected.push((k, format!("after {j}")));
        }
    }
    let url = endpoint(&server);
    let input = Value::Array(cases).to_string();
    let report = tokio::task::spawn_blocking(move || {
        let mut node = NodeClient::spawn(agui_client(&["sweep", &url]));
        node.say(&input);
        node.finish()
    })
    .await
    .unwrap();
    let results = report.as_array().unwrap();
    assert_eq!(results.len(), expected.len());
    for (r, (k, from)) in results.iter().zip(&expected) {
        let what = format!("prefix {k}, from {from}: {r}");
        assert!(r["error"].is_null(), "rejected: {what}");
        assert_eq!(r["pairs"], true, "a RUN_FINISHED names another run: {what}");
        for (id, counts) in r["messages"].as_object().unwrap() {
            assert_eq!(counts["starts"], 1, "{id}: {what}");
            assert_eq!(counts["ends"], 1, "{id}: {what}");
        }
        assert_eq!(r["cursor"]["offset"], k.to_string(), "the cursor: {what}");
    }
    // Read whole, the cancelled answer is all there, as text.
    let whole = &results[expected
        .iter()
        .position(|(k, f)| *k == 33 && f == "the beginning")
        .unwrap()];
    assert_eq!(whole["content"]["say-4"], ANSWER.concat());
    assert_eq!(
        whole["content"]["say-2"],
        "The test still expects port 3000; it should read `port` from the config (8080)."
    );
}
