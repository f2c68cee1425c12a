//! PermissionService against real servers: the first answer wins and later ones learn the
//! winner, a harness awaits its decision, expiry resolves to the reject option (also after a
//! restart), fifty concurrent answers leave exactly one resolution, a harness cannot publish a
//! resolution nor take its event id, answering needs the `approve` right, and the HTTP endpoint answers 200, 409 or 410.

use std::time::Duration;

use support::auth::{token, with_token};
use support::permissions::*;
use support::server::Server;
use support::sessions::*;
use tonic::Code;
use toolview::app::ServeConfig;
use toolview::grpc::pb::{self, permission_resolved::Outcome};

fn embedded(dir: &std::path::Path) -> ServeConfig {
    ServeConfig {
        data_dir: dir.to_owned(),
        ..ServeConfig::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_answer_wins_and_late_ones_learn_the_winner() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_with(embedded(dir.path())).await;
    let mut c = client(&server.url).await;
    let mut p = permissions(&server.url).await;
    publish(
        &mut c,
        vec![bash_call("s", "e1", "c1"), ask("s", "perm-1", "c1", 60_000)],
    )
    .await
    .unwrap();

    // The harness waits; a person rejects; the harness gets the decision.
    let url = server.url.clone();
    let waiter = tokio::spawn(async move {
        let mut p = permissions(&url).await;
        p.await_permission(awaiting("s", "perm-1")).await
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(!waiter.is_finished(), "the await returns only when decided");
    let mut reject = respond("s", "perm-1", "reject");
    reject.reason = "not now".into();
    reject.via = "acp".into();
    let first = p.respond_permission(reject).await.unwrap().into_inner();
    assert!(first.won);
    let winner = first.resolution.unwrap();
    assert_eq!(
        winner.outcome,
        Some(Outcome::SelectedOptionId("reject".into()))
    );
    assert_eq!(winner.reason, "not now");
    assert_eq!(winner.resolved_by.as_ref().unwrap().via, "acp");
    let awaited = waiter.await.unwrap().unwrap().into_inner();
    assert_eq!(awaited.resolution.as_ref(), Some(&winner));

    // A later answer, and a withdrawal, are told who won.
    let late = p
        .respond_permission(respond("s", "perm-1", "allow"))
        .await
        .unwrap()
        .into_inner();
    assert!(!late.won);
    assert_eq!(late.resolution.as_ref(), Some(&winner));
    let withdrawn = p
        .withdraw_permission(pb::WithdrawPermissionRequest {
            session_id: "s".into(),
            request_id: "perm-1".into(),
            reason: String::new(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(!withdrawn.won);
    assert_eq!(withdrawn.resolution.as_ref(), Some(&winner));

    // The log holds the request and exactly one resolution, replayed as VIEW updates.
    let info = get_session(&mut c, "s").await.unwrap();
    assert_eq!(info.head_offset, 3);
    let mut stream = subscribe(
        &mut c,
        request("s", pb::Target::View, true, from_beginning()),
    )
    .await;
    let updates = updates_until(&mut stream, 3).await;
    let shown: Vec<_> = updates
        .iter()
        .filter_map(|u| match u.body.as_ref()? {
            pb::rendered_update::Body::View(pb::ViewUpdate {
                update: Some(pb::view_update::Update::Permission(p)),
            }) => Some((u.request_id.clone(), p.resolution.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        shown,
        vec![
            ("perm-1".to_owned(), None),
            ("perm-1".to_owned(), Some(winner))
        ]
    );
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_answers_and_harness_resolutions_are_refused_by_field() {
    let server = Server::start().await;
    let mut c = client(&server.url).await;
    let mut p = permissions(&server.url).await;
    publish(&mut c, vec![ask("s", "perm-1", "", 60_000)])
        .await
        .unwrap();
    let e = p
        .respond_permission(respond("s", "perm-1", "maybe"))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().starts_with("option_id: "), "{}", e.message());
    let e = p
        .respond_permission(respond("s", "perm-9", "allow"))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::NotFound, "{}", e.message());

    // Only the server appends a resolution.
    let forged = ev(
        "s",
        "forged",
        pb::tool_event::Event::PermissionResolved(pb::PermissionResolved {
            request_id: "perm-1".into(),
            outcome: Some(Outcome::SelectedOptionId("allow".into())),
            ..Default::default()
        }),
    );
    let e = publish(&mut c, vec![forged]).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(
        e.message()
            .starts_with("events[0].permission_resolved: only the server"),
        "{}",
        e.message()
    );
    // A timeout past the limit, an expiry option that allows, one-sided options.
    let mut long = ask("s", "perm-2", "", 25 * 3600 * 1000);
    let e = publish(&mut c, vec![long.clone()]).await.unwrap_err();
    assert!(
        e.message()
            .starts_with("events[0].permission_requested.timeout_ms: at most"),
        "{}",
        e.message()
    );
    if let Some(pb::tool_event::Event::PermissionRequested(r)) = &mut long.event {
        r.timeout_ms = 1000;
        r.expiry_option_id = "allow".into();
    }
    let e = publish(&mut c, vec![long.clone()]).await.unwrap_err();
    assert!(
        e.message().starts_with(
            "events[0].permission_requested.expiry_option_id: \"allow\" must be a reject"
        ),
        "{}",
        e.message()
    );
    if let Some(pb::tool_event::Event::PermissionRequested(r)) = &mut long.event {
        r.options.truncate(2);
        r.expiry_option_id = "always".into();
    }
    let e = publish(&mut c, vec![long]).await.unwrap_err();
    assert!(
        e.message()
            .starts_with("events[0].permission_requested.options: needs at least one allow kind"),
        "{}",
        e.message()
    );
    server.shutdown().await;
}

/// The request expired, and its reject option applied.
fn assert_expired_to_reject(awaited: &pb::PermissionResolved) {
    assert_eq!(
        awaited.outcome,
        Some(Outcome::Expired(pb::PermissionExpired {
            option_id: "reject".into()
        }))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nobody_answering_in_time_is_the_reject_option() {
    let server = Server::start().await;
    let mut c = client(&server.url).await;
    publish(&mut c, vec![ask("s", "perm-1", "", 300)])
        .await
        .unwrap();
    let awaited = resolution(&server.url, "s", "perm-1").await;
    assert_expired_to_reject(&awaited);
    let by = awaited.resolved_by.as_ref().unwrap();
    assert_eq!(
        (by.subject.as_str(), by.via.as_str()),
        ("toolview", "server")
    );
    // An answer after it is told it came too late.
    let late = permissions(&server.url)
        .await
        .respond_permission(respond("s", "perm-1", "allow"))
        .await
        .unwrap()
        .into_inner();
    assert!(!late.won);
    assert_eq!(late.resolution, Some(awaited));
    server.shutdown().await;
}

/// A harness cannot take a request's resolution id (`resolved:<request id>`) before the server
/// does: the request would stay pending forever, its expiry never applied.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_harness_cannot_squat_a_resolution_id() {
    let server = Server::start().await;
    let mut c = client(&server.url).await;
    let squat = bash_call("s", "resolved:perm-1", "c1");
    let e = publish(&mut c, vec![bash_call("s", "e0", "c0"), squat])
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(
        e.message()
            .starts_with("events[1].event_id: \"resolved:perm-1\" is reserved"),
        "{}",
        e.message()
    );
    publish(&mut c, vec![ask("s", "perm-1", "", 300)])
        .await
        .unwrap();
    let awaited = resolution(&server.url, "s", "perm-1").await;
    assert_expired_to_reject(&awaited);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_await_after_a_restart_gets_the_expiry() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_with(embedded(dir.path())).await;
    let mut c = client(&server.url).await;
    publish(&mut c, vec![ask("s", "perm-1", "", 400)])
        .await
        .unwrap();
    // Gone before the expiry: its timer goes with it.
    server.shutdown().await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let server = Server::start_with(embedded(dir.path())).await;
    let awaited = resolution(&server.url, "s", "perm-1").await;
    assert!(
        matches!(awaited.outcome, Some(Outcome::Expired(_))),
        "{awaited:?}"
    );
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_answers_from_ten_clients_leave_one_resolution() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_with(embedded(dir.path())).await;
    let mut c = client(&server.url).await;
    publish(&mut c, vec![ask("s", "perm-1", "", 60_000)])
        .await
        .unwrap();
    let mut answers = Vec::new();
    for k in 0..10 {
        let url = server.url.clone();
        answers.push(tokio::spawn(async move {
            let mut p = permissions(&url).await;
            let mut out = Vec::new();
            for n in 0..5 {
                let choice = ["allow", "always", "reject"][(k + n) % 3];
                let r = p.respond_permission(respond("s", "perm-1", choice));
                out.push(r.await.unwrap().into_inner());
            }
            out
        }));
    }
    let mut all = Vec::new();
    for a in answers {
        all.extend(a.await.unwrap());
    }
    assert_eq!(all.len(), 50);
    let won: Vec<_> = all.iter().filter(|a| a.won).collect();
    assert_eq!(won.len(), 1, "exactly one answer decides");
    let winner = won[0].resolution.clone();
    assert!(all.iter().all(|a| a.resolution == winner));
    // One request and one resolution in the log.
    assert_eq!(get_session(&mut c, "s").await.unwrap().head_offset, 2);
    server.shutdown().await;
}

#[tokio::test]
async fn answering_needs_the_approve_right() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::auth::secret_server(dir.path(), &[]);
    let mut c = client(&server.url).await;
    let publisher = token(&["publish", "subscribe"], &["team-a/*"]);
    c.publish(with_token(
        pb::PublishRequest {
            events: vec![ask("team-a/x", "perm-1", "", 60_000)],
        },
        &publisher,
    ))
    .await
    .unwrap();
    let mut p = permissions(&server.url).await;
    // A subscriber sees the prompt but may not answer; nor may a token for other sessions.
    for t in [
        token(&["subscribe", "read"], &["team-a/*"]),
        token(&["approve"], &["team-b/*"]),
    ] {
        let e = p
            .respond_permission(with_token(respond("team-a/x", "perm-1", "allow"), &t))
            .await
            .unwrap_err();
        assert_eq!(e.code(), Code::PermissionDenied, "{}", e.message());
    }
    let approver = token(&["approve"], &["team-a/*"]);
    let answer = p
        .respond_permission(with_token(
            respond("team-a/x", "perm-1", "allow"),
            &approver,
        ))
        .await
        .unwrap()
        .into_inner();
    assert!(answer.won);
    let by = answer.resolution.unwrap().resolved_by.unwrap();
    assert_eq!(by.subject, "test");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_http_endpoint_answers_with_200_409_and_410() {
    use support::http::exchange as http;
    let dir = tempfile::tempdir().unwrap();
    let server = support::process::ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    let mut c = client(&server.url).await;
    publish(
        &mut c,
        vec![
            ask("team/x", "perm-1", "", 60_000),
            ask("team/x", "perm-2", "", 200),
        ],
    )
    .await
    .unwrap();
    let post = |request: &str, body: &str| {
        let (head, body) = http(
            server.addr(),
            &format!("POST /permissions/team/x/{request} HTTP/1.1\r\n"),
            body,
        );
        let status: u16 = head.split(' ').nth(1).unwrap().parse().unwrap();
        (
            status,
            serde_json::from_str::<serde_json::Value>(&body).unwrap(),
        )
    };
    let (status, first) = post("perm-1", r#"{"optionId":"allow","via":"viewer"}"#);
    assert_eq!(status, 200, "{first}");
    assert_eq!(first["won"], true);
    assert_eq!(first["resolution"]["outcome"]["type"], "selected");
    assert_eq!(first["resolution"]["resolvedBy"]["via"], "viewer");
    let (status, late) = post("perm-1", r#"{"optionId":"reject"}"#);
    assert_eq!(status, 409, "{late}");
    assert_eq!(late["resolution"], first["resolution"]);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (status, expired) = post("perm-2", r#"{"optionId":"allow"}"#);
    assert_eq!(status, 410, "{expired}");
    assert_eq!(expired["resolution"]["outcome"]["type"], "expired");
    let (status, bad) = post("perm-1", r#"{"option":"allow"}"#);
    assert_eq!(
        (status, bad["code"].as_str()),
        (400, Some("INVALID_ARGUMENT"))
    );
    let (status, unknown) = post("perm-9", r#"{"optionId":"allow"}"#);
    assert_eq!((status, unknown["code"].as_str()), (404, Some("NOT_FOUND")));
}
