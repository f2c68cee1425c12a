//! `ListSessions` on the real binary: pages in id order over the embedded and memory stores,
//! a bad page token named, and a token's grants deciding what a caller sees (a page scans a
//! bounded number of sessions, so it can come back short with a next page).

use support::auth::{secret_server, token, with_token};
use support::process::ServerProcess;
use support::sessions::*;
use toolview::grpc::pb;

async fn list(
    c: &mut Client,
    page_size: u32,
    page_token: &str,
    bearer: Option<&str>,
) -> Result<pb::ListSessionsResponse, tonic::Status> {
    let request = pb::ListSessionsRequest {
        page_size,
        page_token: page_token.into(),
        ..pb::ListSessionsRequest::default()
    };
    let result = match bearer {
        Some(t) => c.list_sessions(with_token(request, t)).await,
        None => c.list_sessions(request).await,
    };
    result.map(tonic::Response::into_inner)
}

/// Every page in turn; the session ids.
async fn all_pages(c: &mut Client, page_size: u32, bearer: Option<&str>) -> (Vec<String>, usize) {
    let (mut ids, mut pages, mut token) = (Vec::new(), 0, String::new());
    loop {
        let page = list(c, page_size, &token, bearer).await.unwrap();
        pages += 1;
        assert!(page.sessions.len() <= page_size as usize);
        ids.extend(page.sessions.into_iter().map(|s| s.session_id));
        if page.next_page_token.is_empty() {
            return (ids, pages);
        }
        token = page.next_page_token;
    }
}

#[tokio::test]
async fn pages_list_every_session_in_id_order() {
    for store in ["embedded", "memory"] {
        let dir = tempfile::tempdir().unwrap();
        let server = ServerProcess::spawn(dir.path(), &["--store", store]);
        let mut c = client(&server.url).await;
        let mut want: Vec<String> = (0..25).map(|n| format!("s{n:02}")).collect();
        for id in want.iter().rev() {
            publish(&mut c, vec![bash_call(id, "e1", "c1")])
                .await
                .unwrap();
        }
        want.sort();
        let (ids, pages) = all_pages(&mut c, 10, None).await;
        assert_eq!(ids, want, "{store}");
        assert_eq!(pages, 3, "{store}");
        let first = list(&mut c, 0, "", None).await.unwrap();
        assert_eq!(first.sessions.len(), 25, "the default page holds them all");
        assert_eq!(first.sessions[0].head_offset, 1);
        assert!(!first.sessions[0].epoch.is_empty());
        let bad = list(&mut c, 10, "not a session id", None)
            .await
            .unwrap_err();
        assert_eq!(bad.code(), tonic::Code::InvalidArgument);
        assert!(bad.message().contains("page_token"), "{}", bad.message());
    }
}

#[tokio::test]
async fn a_token_lists_only_what_it_may_read() {
    let dir = tempfile::tempdir().unwrap();
    let server = secret_server(dir.path(), &[]);
    let mut c = client(&server.url).await;
    let writer = token(&["publish"], &["team-b/*", "team-c/*"]);
    // 30 sessions of team b sort before team c's 3.
    for id in (0..30)
        .map(|n| format!("team-b/{n:02}"))
        .chain((0..3).map(|n| format!("team-c/{n}")))
    {
        c.publish(with_token(
            pb::PublishRequest {
                events: vec![bash_call(&id, "e1", "c1")],
            },
            &writer,
        ))
        .await
        .unwrap();
    }
    let none = list(&mut c, 10, "", None).await.unwrap_err();
    assert_eq!(none.code(), tonic::Code::Unauthenticated);
    let reader = token(&["read"], &["team-c/*"]);
    // A page of 1 scans at most 10 sessions: the first pages come back empty, with a next.
    let first = list(&mut c, 1, "", Some(&reader)).await.unwrap();
    assert!(first.sessions.is_empty());
    assert!(!first.next_page_token.is_empty());
    let (ids, _) = all_pages(&mut c, 1, Some(&reader)).await;
    assert_eq!(ids, ["team-c/0", "team-c/1", "team-c/2"]);
    let publisher_only = token(&["publish"], &["team-b/*", "team-c/*"]);
    let (ids, _) = all_pages(&mut c, 100, Some(&publisher_only)).await;
    assert!(ids.is_empty(), "publish alone does not list: {ids:?}");
}

/// A session's title is the first line of its first user message, its cwd its latest session
/// start: in `GetSession` and `ListSessions`, kept over a restart of the embedded store.
#[tokio::test]
async fn sessions_carry_their_title_and_cwd() {
    let dir = tempfile::tempdir().unwrap();
    let input = support::cli::repo_file("examples/conversation.jsonl");
    let title = "The tests fail since the port change. Can you fix them?";
    for restart in [false, true] {
        let server = ServerProcess::spawn(dir.path(), &["--store", "embedded"]);
        if !restart {
            support::cli::publish_jsonl(&server.url, "chat", &input);
        }
        let mut c = client(&server.url).await;
        let got = c
            .get_session(pb::GetSessionRequest {
                session_id: "chat".into(),
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(
            (got.title.as_str(), got.cwd.as_str()),
            (title, "/work/proj")
        );
        let listed = list(&mut c, 10, "", None).await.unwrap();
        assert_eq!(listed.sessions[0].title, title, "restarted: {restart}");
        drop(server);
    }
}
