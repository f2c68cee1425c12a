//! Calls as agents make them, in the viewer: a subagent's calls grouped under its call, and a
//! session followed again after the server restarts.

use std::path::PathBuf;

use serde_json::Value;
use support::server::Server;
use support::sessions::*;

use crate::driver::{Viewer, artifact};

/// A subagent in the viewer: its calls and its words grouped inside the card of the call that
/// runs it (a grandchild inside its own parent's group), each group summarizing its children.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_viewer_groups_a_subagents_calls_under_its_call() {
    let shot = artifact("viewer-subagent.png");
    let server = Server::start().await;
    let mut c = client(&server.url).await;
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/subagent.jsonl");
    let events =
        toolview::client::read_events(std::fs::read(path).unwrap().as_slice(), None).unwrap();
    publish(&mut c, events).await.unwrap();
    let viewer = Viewer::open(&server.url, "sub", &shot, "nested1", None, "").await;
    let summary = viewer.finish().await;
    let cards = summary["cards"].as_array().unwrap();
    let card = |id: &str| cards.iter().find(|c| c["call"] == id).unwrap();
    assert_eq!(card("task1")["parent"], Value::Null);
    for child in ["grep1", "read1", "bash1"] {
        assert_eq!(card(child)["parent"], "task1", "{summary}");
    }
    assert_eq!(card("nested1")["parent"], "bash1");
    assert_eq!(card("task1")["group"], "subagent: 1 done, 2 failed");
    assert_eq!(card("bash1")["group"], "subagent: 1 done");
    let message = summary["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == "sub-m1")
        .unwrap();
    assert_eq!(message["parent"], "task1");
    println!("viewer screenshot: {}", shot.display());
    server.shutdown().await;
}

/// The viewer on the client package's resuming subscription: the server is stopped mid-session
/// and started again on the same port and data; the page follows again after its last cursor,
/// and shows every card once, the ones published while it was away too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_viewer_resumes_after_a_server_restart() {
    use support::process::ServerProcess;
    let shot = artifact("viewer-restart.png");
    let dir = tempfile::tempdir().unwrap();
    let mut server = ServerProcess::spawn(dir.path(), &[]);
    let (url, addr) = (server.url.clone(), server.addr().to_owned());
    let mut c = client(&url).await;
    let calls = |from, to| crate::finished_calls("r", from, to);
    publish(&mut c, calls(0, 3)).await.unwrap();
    let viewer = Viewer::open(&url, "r", &shot, "c5", None, "").await;
    server.stop();
    drop(c);
    // The same port and data: the page's origin, and the session it follows.
    let mut server = ServerProcess::spawn(dir.path(), &["--listen", &addr]);
    let mut c = client(&server.url).await;
    publish(&mut c, calls(3, 6)).await.unwrap();
    let summary = viewer.finish().await;
    let cards: Vec<&str> = summary["cards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|card| card["call"].as_str().unwrap())
        .collect();
    assert_eq!(cards, ["c0", "c1", "c2", "c3", "c4", "c5"], "{summary}");
    server.stop();
    println!("viewer screenshot: {}", shot.display());
}
