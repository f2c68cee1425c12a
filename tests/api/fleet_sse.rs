//! `GET /sessions/watch`: the fleet as Server-Sent Events — the first page, `synced`, then each
//! change live with an id; a reconnect with `Last-Event-ID` gets what changed since, a session
//! that left the watched states included; bad queries are refused naming the field.

use serde_json::Value;
use support::permissions::{ask, permissions, respond};
use support::server::Server;
use support::sessions::*;

/// An HTTP client (rustls with ring, as the server's own).
fn http() -> reqwest::Client {
    let _ = tokio_rustls::rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::new()
}

/// One SSE event: its id (if any), its name and its data.
#[derive(Debug)]
struct Event {
    id: Option<String>,
    name: String,
    data: Value,
}

/// A watch's response, read event by event.
struct Watch {
    response: reqwest::Response,
    buffer: String,
}

impl Watch {
    async fn open(url: &str, query: &str, last_id: Option<&str>) -> Watch {
        let mut request = http().get(format!("{url}/sessions/watch?{query}"));
        if let Some(id) = last_id {
            request = request.header("last-event-id", id);
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(response.headers()["content-type"], "text/event-stream");
        Watch {
            response,
            buffer: String::new(),
        }
    }

    /// The next event (comments skipped).
    async fn next(&mut self) -> Event {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let (mut id, mut name, mut data) = (None, String::new(), Value::Null);
                for line in block.lines() {
                    if let Some(v) = line.strip_prefix("id: ") {
                        id = Some(v.to_owned());
                    } else if let Some(v) = line.strip_prefix("event: ") {
                        name = v.to_owned();
                    } else if let Some(v) = line.strip_prefix("data: ") {
                        data = serde_json::from_str(v).unwrap();
                    }
                }
                if name.is_empty() {
                    continue;
                }
                return Event { id, name, data };
            }
            let chunk = tokio::time::timeout(PATIENCE, self.response.chunk())
                .await
                .expect("an event in time")
                .unwrap()
                .expect("the stream goes on");
            self.buffer.push_str(std::str::from_utf8(&chunk).unwrap());
        }
    }
}

#[tokio::test]
async fn the_fleet_streams_as_server_sent_events_and_resumes_after_its_last_id() {
    let server = Server::start().await;
    let mut c = client(&server.url).await;
    publish(
        &mut c,
        vec![bash_call("w", "e1", "c1"), ask("w", "p1", "c1", 60_000)],
    )
    .await
    .unwrap();
    publish(&mut c, vec![bash_call("busy", "e1", "c1")])
        .await
        .unwrap();
    let mut watch = Watch::open(&server.url, "states=requires_action", None).await;
    let first = watch.next().await;
    assert_eq!(
        (first.name.as_str(), first.id.as_deref()),
        ("session", None)
    );
    assert_eq!(first.data["sessionId"], "w");
    assert_eq!(
        first.data["summary"]["state"],
        "SESSION_STATE_REQUIRES_ACTION"
    );
    let synced = watch.next().await;
    assert_eq!(synced.name, "synced");
    assert!(synced.id.is_some());
    // Live: another session starts waiting.
    publish(
        &mut c,
        vec![bash_call("b", "e1", "c1"), ask("b", "p1", "c1", 60_000)],
    )
    .await
    .unwrap();
    let live = watch.next().await;
    assert_eq!(live.data["sessionId"], "b");
    let last_id = live.id.expect("a live event carries its resume point");
    drop(watch);

    // Away: w's prompt is answered, so w leaves the watched state.
    permissions(&server.url)
        .await
        .respond_permission(respond("w", "p1", "allow"))
        .await
        .unwrap();
    let mut watch = Watch::open(&server.url, "states=requires_action", Some(&last_id)).await;
    let mut resumed = Vec::new();
    loop {
        let e = watch.next().await;
        if e.name == "synced" {
            break;
        }
        resumed.push((
            e.data["sessionId"].as_str().unwrap().to_owned(),
            e.data["summary"]["state"].as_str().unwrap().to_owned(),
        ));
    }
    assert!(
        resumed.contains(&("w".into(), "SESSION_STATE_RUNNING".into())),
        "w left the filter while the watcher was away: {resumed:?}"
    );
    assert!(
        !resumed.iter().any(|(id, _)| id == "busy"),
        "busy did not change since: {resumed:?}"
    );
}

#[tokio::test]
async fn a_bad_query_is_refused_naming_the_field() {
    let server = Server::start().await;
    let get = |path: &str, last_id: Option<&str>| {
        let mut request = http().get(format!("{}{path}", server.url));
        if let Some(id) = last_id {
            request = request.header("last-event-id", id);
        }
        async move {
            let response = request.send().await.unwrap();
            let status = response.status().as_u16();
            let text = response.text().await.unwrap();
            (status, serde_json::from_str::<Value>(&text).unwrap())
        }
    };
    let (status, body) = get("/sessions/watch?states=waiting", None).await;
    assert_eq!(status, 400);
    assert_eq!(body["field"], "states");
    assert!(
        body["error"].as_str().unwrap().contains("requires_action"),
        "{body}"
    );
    let (status, body) = get("/sessions/watch", Some("yesterday")).await;
    assert_eq!(
        (status, body["field"].as_str()),
        (400, Some("Last-Event-ID"))
    );
    let (status, _) = get("/sessions/watch?color=red", None).await;
    assert_eq!(status, 400);
}
