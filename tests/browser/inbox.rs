//! The viewer's home page is an inbox: a session that asks a person comes first, live, with its
//! prompt and buttons; Allow in the inbox answers it (the harness's wait returns the decision)
//! and the row moves on. Screenshot: `target/test-artifacts/viewer-inbox.png`.

use support::permissions::{asking, requested, resolution};
use support::server::Server;
use support::sessions::*;
use toolview::grpc::pb::{self, permission_resolved::Outcome, tool_event::Event};

use crate::driver::{Viewer, artifact};

#[tokio::test]
async fn the_inbox_puts_a_waiting_session_first_and_answers_it() {
    let shot = artifact("viewer-inbox.png");
    let server = Server::start().await;
    let mut c = client(&server.url).await;
    publish(&mut c, crate::sample_session_for_viewer("agent-a/done"))
        .await
        .unwrap();
    let turn = ev(
        "agent-b/busy",
        "t",
        Event::TurnStarted(pb::TurnStarted {
            turn_id: "t1".into(),
        }),
    );
    publish(&mut c, vec![turn, bash_call("agent-b/busy", "e1", "c1")])
        .await
        .unwrap();
    let url = server.url.clone();
    let viewer = Viewer::script(
        "viewer_inbox.cjs",
        &[&url, "agent-z/asks", shot.to_str().unwrap()],
    )
    .await;
    // The inbox is live: a session that was not there asks a person.
    let ask = asking(
        "agent-z/asks",
        requested("p1", "c1", "Deploy to production?"),
    );
    publish(&mut c, vec![bash_call("agent-z/asks", "e1", "c1"), ask])
        .await
        .unwrap();
    // The harness's wait returns the inbox's answer.
    let decided = resolution(&server.url, "agent-z/asks", "p1").await;
    assert_eq!(
        decided.outcome,
        Some(Outcome::SelectedOptionId("allow".into()))
    );
    assert_eq!(decided.resolved_by.unwrap().via, "inbox");
    let summary = viewer.finish().await;
    let before: Vec<(&str, &str)> = summary["before"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["id"].as_str().unwrap(), r["state"].as_str().unwrap()))
        .collect();
    assert_eq!(
        before,
        [("agent-b/busy", "running"), ("agent-a/done", "idle")],
        "{summary}"
    );
    let waiting = &summary["waiting"][0];
    assert_eq!(waiting["id"], "agent-z/asks", "{summary}");
    assert_eq!(waiting["prompt"], "Deploy to production?");
    assert_eq!(
        waiting["buttons"],
        serde_json::json!(["allow", "always", "reject"])
    );
    assert_eq!(
        summary["after"]["state"], "running",
        "its call still runs: {summary}"
    );
    println!(
        "the prompt showed first in the inbox {} ms after it was live (publish included); screenshot: {}",
        summary["appearedMs"],
        shot.display()
    );
    server.shutdown().await;
}
