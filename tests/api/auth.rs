//! Authentication and authorization against the real binary (`serve --auth jwt`): every way a
//! token can be wrong, grants that do not cover a request, subscriptions that end with their
//! token and resume losslessly, JWKS keys of three algorithms and their rotation by SIGHUP,
//! and the same answers over gRPC-Web.

use std::path::Path;

use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::json;
use support::auth::*;
use support::process::ServerProcess;
use support::sessions::*;
use tonic::Code;
use toolview::grpc::pb::{self, presentation_service_client::PresentationServiceClient};

fn secret_server(dir: &Path) -> ServerProcess {
    support::auth::secret_server(dir, &["--jwt-leeway-secs", "0"])
}

async fn publish_with(
    c: &mut Client,
    token: &str,
    events: Vec<pb::ToolEvent>,
) -> Result<Vec<pb::PublishAck>, tonic::Status> {
    c.publish(with_token(pb::PublishRequest { events }, token))
        .await
        .map(|r| r.into_inner().acks)
}

async fn get_with(
    c: &mut Client,
    token: &str,
    id: &str,
) -> Result<pb::GetSessionResponse, tonic::Status> {
    c.get_session(with_token(
        pb::GetSessionRequest {
            session_id: id.into(),
        },
        token,
    ))
    .await
    .map(tonic::Response::into_inner)
}

async fn subscribe_with(
    c: &mut Client,
    token: &str,
    session: &str,
    start: pb::subscribe_request::Start,
) -> Result<tonic::Streaming<pb::SubscribeResponse>, tonic::Status> {
    c.subscribe(with_token(
        request(session, pb::Target::View, true, start),
        token,
    ))
    .await
    .map(tonic::Response::into_inner)
}

fn code<T: std::fmt::Debug>(r: Result<T, tonic::Status>) -> Code {
    r.expect_err("the call was expected to fail").code()
}

#[tokio::test]
async fn every_bad_token_is_unauthenticated() {
    let dir = tempfile::tempdir().unwrap();
    let server = secret_server(dir.path());
    let mut c = client(&server.url).await;
    let all = ["publish", "subscribe", "read"];
    let events = || vec![bash_call("team-a/x", "e1", "c1")];

    // No token at all, on every session RPC and on Present.
    let e = publish(&mut c, events()).await.unwrap_err();
    assert_eq!(e.code(), Code::Unauthenticated);
    assert!(
        e.message().contains("authorization: Bearer"),
        "{}",
        e.message()
    );
    // A CLI user is told the flag and the variable, not only the metadata.
    for words in ["--token", "TOOLVIEW_TOKEN", "#token="] {
        assert!(e.message().contains(words), "{}", e.message());
    }
    assert_eq!(
        code(get_session(&mut c, "team-a/x").await),
        Code::Unauthenticated
    );
    assert_eq!(
        code(
            c.subscribe(request(
                "team-a/x",
                pb::Target::View,
                true,
                from_beginning()
            ))
            .await
        ),
        Code::Unauthenticated
    );
    let mut presentation = PresentationServiceClient::connect(server.url.clone())
        .await
        .unwrap();
    let present = || pb::PresentRequest {
        tool_name: "bash".into(),
        arguments_json: r#"{"command":"ls"}"#.into(),
        ..Default::default()
    };
    assert_eq!(
        code(presentation.present(present()).await),
        Code::Unauthenticated
    );

    let bad = [
        ("not a JWT", "not-a-jwt".to_owned()),
        (
            "another secret",
            hs256(
                &claims(&all, &["**"], 3600),
                "another-secret-0123456789abcdef0123456789",
            ),
        ),
        ("alg none", unsigned(&claims(&all, &["**"], 3600))),
        ("expired", hs256(&claims(&all, &["**"], -10), SECRET)),
        ("wrong audience", {
            let mut cl = claims(&all, &["**"], 3600);
            cl["aud"] = json!("someone-else");
            hs256(&cl, SECRET)
        }),
        ("no exp", {
            let mut cl = claims(&all, &["**"], 3600);
            cl.as_object_mut().unwrap().remove("exp");
            hs256(&cl, SECRET)
        }),
        (
            "a bad glob",
            hs256(&claims(&all, &["team-a/["], 3600), SECRET),
        ),
    ];
    for (why, token) in &bad {
        let e = publish_with(&mut c, token, events()).await.unwrap_err();
        assert_eq!(e.code(), Code::Unauthenticated, "{why}: {}", e.message());
        assert_eq!(
            code(get_with(&mut c, token, "team-a/x").await),
            Code::Unauthenticated,
            "{why}"
        );
        assert_eq!(
            code(subscribe_with(&mut c, token, "team-a/x", from_beginning()).await),
            Code::Unauthenticated,
            "{why}"
        );
    }
    // A bare token without the scheme is not accepted either.
    let mut req = tonic::Request::new(pb::GetSessionRequest {
        session_id: "team-a/x".into(),
    });
    req.metadata_mut()
        .insert("authorization", token(&all, &["**"]).parse().unwrap());
    assert_eq!(code(c.get_session(req).await), Code::Unauthenticated);

    // Any valid token may present; health needs none.
    let good = token(&["read"], &["nothing/*"]);
    presentation
        .present(with_token(present(), &good))
        .await
        .expect("a valid token presents");
    let channel = tonic::transport::Endpoint::from_shared(server.url.clone())
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut health = tonic_health::pb::health_client::HealthClient::new(channel);
    health
        .check(tonic_health::pb::HealthCheckRequest::default())
        .await
        .expect("health is open");
}

#[tokio::test]
async fn grants_decide_and_tell_nothing_about_existence() {
    let dir = tempfile::tempdir().unwrap();
    let server = secret_server(dir.path());
    let mut c = client(&server.url).await;
    let admin = token(&["publish", "subscribe", "read"], &["**"]);
    publish_with(&mut c, &admin, vec![bash_call("team-b/exists", "e1", "c1")])
        .await
        .unwrap();

    let team_a = token(&["publish", "subscribe"], &["team-a/*"]);
    publish_with(&mut c, &team_a, vec![bash_call("team-a/run-1", "e1", "c1")])
        .await
        .expect("team-a/* covers team-a/run-1");
    // Another session, a nested one, and a batch with one session not covered.
    for (session, events) in [
        ("team-b/x", vec![bash_call("team-b/x", "e1", "c1")]),
        (
            "team-a/run-1/sub",
            vec![bash_call("team-a/run-1/sub", "e1", "c1")],
        ),
        (
            "team-b/y",
            vec![
                bash_call("team-a/run-2", "e1", "c1"),
                bash_call("team-b/y", "e2", "c2"),
            ],
        ),
    ] {
        let e = publish_with(&mut c, &team_a, events).await.unwrap_err();
        assert_eq!(
            e.code(),
            Code::PermissionDenied,
            "{session}: {}",
            e.message()
        );
        assert!(e.message().contains(session), "{}", e.message());
    }
    // Nothing of the refused batch was appended.
    assert_eq!(
        code(get_with(&mut c, &admin, "team-a/run-2").await),
        Code::NotFound
    );

    // Subscribing or reading a session outside the grant: the same answer whether the
    // session exists or not.
    for session in ["team-b/exists", "team-b/missing"] {
        let e = subscribe_with(&mut c, &team_a, session, from_beginning())
            .await
            .unwrap_err();
        assert_eq!(e.code(), Code::PermissionDenied, "{session}");
        assert_eq!(
            e.message(),
            format!("the token does not grant subscribe on session \"{session}\"")
        );
        let e = get_with(&mut c, &team_a, session).await.unwrap_err();
        assert_eq!(e.code(), Code::PermissionDenied, "{session}");
        assert_eq!(
            e.message(),
            format!("the token does not grant read or subscribe on session \"{session}\"")
        );
    }

    // A read-only token reads, but neither publishes nor subscribes.
    let reader = token(&["read"], &["team-b/*"]);
    let info = get_with(&mut c, &reader, "team-b/exists").await.unwrap();
    assert_eq!(info.head_offset, 1);
    assert_eq!(
        code(get_with(&mut c, &reader, "team-b/missing").await),
        Code::NotFound
    );
    assert_eq!(
        code(
            publish_with(
                &mut c,
                &reader,
                vec![output("team-b/exists", "e2", "c1", "x")]
            )
            .await
        ),
        Code::PermissionDenied
    );
    assert_eq!(
        code(subscribe_with(&mut c, &reader, "team-b/exists", from_beginning()).await),
        Code::PermissionDenied
    );
    assert_eq!(
        get_with(&mut c, &admin, "team-b/exists")
            .await
            .unwrap()
            .head_offset,
        1
    );
}

#[tokio::test]
async fn a_subscription_ends_with_its_token_and_resumes_without_loss() {
    let dir = tempfile::tempdir().unwrap();
    let server = secret_server(dir.path());
    let mut c = client(&server.url).await;
    let admin = token(&["publish"], &["**"]);
    let s = "team-a/live";
    let event = |n: usize| output(s, &format!("e{n}"), "c1", &format!("line {n}\n"));
    let mut first = vec![bash_call(s, "e1", "c1")];
    first.extend((2..=3).map(event));
    publish_with(&mut c, &admin, first).await.unwrap();

    // A token valid for 3 more seconds (the server allows no leeway here).
    let short = hs256(&claims(&["subscribe"], &["team-a/*"], 3), SECRET);
    let mut stream = subscribe_with(&mut c, &short, s, from_beginning())
        .await
        .unwrap();
    let mut got = offsets(&updates_until(&mut stream, 3).await);
    publish_with(&mut c, &admin, vec![event(4)]).await.unwrap();
    got.extend(offsets(&updates_until(&mut stream, 4).await));
    let epoch = get_with(&mut c, &token(&["read"], &["**"]), s)
        .await
        .unwrap()
        .epoch;

    // The stream ends with UNAUTHENTICATED when the token expires (bounded by PATIENCE).
    let end = loop {
        match next_item(&mut stream).await {
            Ok(Some(pb::subscribe_response::Item::Update(u))) => {
                got.push(u.cursor.unwrap().offset);
            }
            Ok(other) => panic!("expected the stream to end with an error, got {other:?}"),
            Err(status) => break status,
        }
    };
    assert_eq!(end.code(), Code::Unauthenticated, "{}", end.message());
    assert!(end.message().contains("expired"), "{}", end.message());
    // The expired token is refused for a new subscription too.
    assert_eq!(
        code(subscribe_with(&mut c, &short, s, after(4, &epoch)).await),
        Code::Unauthenticated
    );

    // Events published meanwhile arrive once the client resumes with a fresh token.
    publish_with(&mut c, &admin, (5..=6).map(event).collect())
        .await
        .unwrap();
    let fresh = token(&["subscribe"], &["team-a/*"]);
    let last = *got.last().unwrap();
    let mut resumed = subscribe_with(&mut c, &fresh, s, after(last, &epoch))
        .await
        .unwrap();
    got.extend(offsets(&updates_until(&mut resumed, 6).await));
    assert_eq!(got, (1..=6).collect::<Vec<_>>(), "no gap, no duplicate");
}

/// A fresh Ed25519 key. jsonwebtoken reads PKCS#8 v1 (seed only); rcgen writes v2 (seed and
/// public key) with the same 16-byte header before the seed.
fn ed25519() -> EncodingKey {
    let v2 = rcgen::KeyPair::generate_for(&rcgen::PKCS_ED25519)
        .unwrap()
        .serialize_der();
    let mut v1 = vec![
        0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04,
        0x20,
    ];
    v1.extend_from_slice(&v2[16..48]);
    EncodingKey::from_ed_der(&v1)
}

/// A JWKS key from a PKCS#8 private key, with its `kid`.
fn jwk(key: &EncodingKey, alg: Algorithm, kid: &str) -> Jwk {
    let mut jwk = Jwk::from_encoding_key(key, alg).unwrap();
    jwk.common.key_id = Some(kid.into());
    jwk
}

fn signed(key: &EncodingKey, alg: Algorithm, kid: Option<&str>) -> String {
    let mut header = Header::new(alg);
    header.kid = kid.map(Into::into);
    jsonwebtoken::encode(&header, &claims(&["read"], &["**"], 3600), key).unwrap()
}

#[tokio::test]
async fn jwks_keys_are_chosen_by_kid_and_rotate_on_sighup() {
    let dir = tempfile::tempdir().unwrap();
    let pem = |alg| rcgen::KeyPair::generate_for(alg).unwrap().serialize_pem();
    let es = EncodingKey::from_ec_pem(pem(&rcgen::PKCS_ECDSA_P256_SHA256).as_bytes()).unwrap();
    let ed = ed25519();
    let es_new = EncodingKey::from_ec_pem(pem(&rcgen::PKCS_ECDSA_P256_SHA256).as_bytes()).unwrap();
    let rsa_pem =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/test-rsa-key.pem"))
            .unwrap();
    let rs = EncodingKey::from_rsa_pem(&rsa_pem).unwrap();
    let jwks = dir.path().join("jwks.json");
    let write = |keys: Vec<Jwk>| {
        std::fs::write(&jwks, serde_json::to_vec(&JwkSet { keys }).unwrap()).unwrap();
    };
    write(vec![
        jwk(&es, Algorithm::ES256, "es-1"),
        jwk(&ed, Algorithm::EdDSA, "ed-1"),
        jwk(&rs, Algorithm::RS256, "rs-1"),
    ]);
    let server = ServerProcess::spawn(
        dir.path(),
        &[
            "--metrics-listen",
            "127.0.0.1:0",
            "--store",
            "memory",
            "--auth",
            "jwt",
            "--jwt-jwks-file",
            jwks.to_str().unwrap(),
        ],
    );
    let mut c = client(&server.url).await;
    let status = |r: Result<pb::GetSessionResponse, tonic::Status>| match r {
        Ok(_) => Code::Ok,
        Err(e) => e.code(),
    };
    // Each key verifies its own algorithm (NOT_FOUND: accepted, and no such session).
    for (name, token) in [
        ("ES256", signed(&es, Algorithm::ES256, Some("es-1"))),
        ("EdDSA", signed(&ed, Algorithm::EdDSA, Some("ed-1"))),
        ("RS256", signed(&rs, Algorithm::RS256, Some("rs-1"))),
    ] {
        assert_eq!(
            status(get_with(&mut c, &token, "s").await),
            Code::NotFound,
            "{name}"
        );
    }
    // Refused: no kid with several keys, an unknown kid, a key's kid with another algorithm
    // (the token cannot choose), an HS256 token keyed with a public key's text.
    let hs_confusion = {
        let mut header = Header::new(Algorithm::HS256);
        header.kid = Some("es-1".into());
        let public = serde_json::to_vec(&jwk(&es, Algorithm::ES256, "es-1")).unwrap();
        jsonwebtoken::encode(
            &header,
            &claims(&["read"], &["**"], 3600),
            &EncodingKey::from_secret(&public).unwrap(),
        )
        .unwrap()
    };
    for (why, token) in [
        ("no kid", signed(&es, Algorithm::ES256, None)),
        ("unknown kid", signed(&es, Algorithm::ES256, Some("nope"))),
        (
            "wrong key for the kid",
            signed(&es, Algorithm::ES256, Some("ed-1")),
        ),
        (
            "RS384 on an RS256 key",
            signed(&rs, Algorithm::RS384, Some("rs-1")),
        ),
        ("HS256 confusion", hs_confusion),
    ] {
        assert_eq!(
            status(get_with(&mut c, &token, "s").await),
            Code::Unauthenticated,
            "{why}"
        );
    }

    // Rotation: es-1 retires, es-2 arrives, ed-1 stays; SIGHUP reloads the file.
    write(vec![
        jwk(&ed, Algorithm::EdDSA, "ed-1"),
        jwk(&es_new, Algorithm::ES256, "es-2"),
    ]);
    // SAFETY: a signal to our own child.
    #[expect(unsafe_code, reason = "see the SAFETY note")]
    unsafe {
        libc::kill(server.pid() as libc::pid_t, libc::SIGHUP);
    }
    let new_token = signed(&es_new, Algorithm::ES256, Some("es-2"));
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while status(get_with(&mut c, &new_token, "s").await) != Code::NotFound {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the reload was not picked up"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let old = signed(&es, Algorithm::ES256, Some("es-1"));
    assert_eq!(
        status(get_with(&mut c, &old, "s").await),
        Code::Unauthenticated
    );
    // The same keys decide over gRPC-Web.
    let web_get = |token: String| {
        let message = pb::GetSessionRequest {
            session_id: "s".into(),
        };
        web_call(server.addr().to_owned(), "GetSession", message, Some(token))
    };
    assert_eq!(web_get(old.clone()).await, 16);
    assert_eq!(web_get(new_token.clone()).await, 5);
    let kept = signed(&ed, Algorithm::EdDSA, Some("ed-1"));
    assert_eq!(status(get_with(&mut c, &kept, "s").await), Code::NotFound);

    // A broken file on reload keeps the keys in use.
    std::fs::write(&jwks, b"{not json").unwrap();
    // SAFETY: as above.
    #[expect(unsafe_code, reason = "see the SAFETY note")]
    unsafe {
        libc::kill(server.pid() as libc::pid_t, libc::SIGHUP);
    }
    server
        .metric_reaches(
            r#"toolview_reloads_total{file="token_keys",result="kept_old"}"#,
            1.0,
        )
        .await;
    assert_eq!(
        status(get_with(&mut c, &new_token, "s").await),
        Code::NotFound
    );
}

#[tokio::test]
async fn grpc_web_gets_the_same_answers() {
    let dir = tempfile::tempdir().unwrap();
    let server = secret_server(dir.path());
    let mut c = client(&server.url).await;
    let admin = token(&["publish", "read"], &["**"]);
    publish_with(&mut c, &admin, vec![bash_call("team-b/exists", "e1", "c1")])
        .await
        .unwrap();
    let addr = server.addr().to_owned();
    let get = |token: Option<String>, session: &str| {
        let message = pb::GetSessionRequest {
            session_id: session.into(),
        };
        web_call(addr.clone(), "GetSession", message, token)
    };
    // UNAUTHENTICATED = 16, PERMISSION_DENIED = 7, NOT_FOUND = 5, OK = 0.
    assert_eq!(get(None, "team-b/exists").await, 16);
    let all = ["publish", "subscribe", "read"];
    let mut wrong_audience = claims(&all, &["**"], 3600);
    wrong_audience["aud"] = json!("someone-else");
    for (why, bad) in [
        ("garbage", "garbage".to_owned()),
        ("expired", hs256(&claims(&all, &["**"], -10), SECRET)),
        ("alg none", unsigned(&claims(&all, &["**"], 3600))),
        (
            "another secret",
            hs256(
                &claims(&all, &["**"], 3600),
                "another-secret-0123456789abcdef0123456789",
            ),
        ),
        ("wrong audience", hs256(&wrong_audience, SECRET)),
    ] {
        assert_eq!(get(Some(bad), "team-b/exists").await, 16, "{why}");
    }
    let team_a = token(&["read"], &["team-a/*"]);
    assert_eq!(get(Some(team_a.clone()), "team-b/exists").await, 7);
    assert_eq!(get(Some(team_a.clone()), "team-b/missing").await, 7);
    assert_eq!(get(Some(team_a), "team-a/missing").await, 5);
    assert_eq!(get(Some(admin), "team-b/exists").await, 0);
    // A read-only token publishing over gRPC-Web.
    let publish = |token: String| {
        let message = pb::PublishRequest {
            events: vec![output("team-b/exists", "e2", "c1", "x")],
        };
        web_call(addr.clone(), "Publish", message, Some(token))
    };
    assert_eq!(publish(token(&["read"], &["**"])).await, 7);
    assert_eq!(publish(token(&["publish"], &["team-b/*"])).await, 0);
    // A subscription over gRPC-Web (the viewer's) ends with UNAUTHENTICATED when its token
    // expires: its trailers carry status 16 after the updates.
    let short = hs256(&claims(&["subscribe"], &["team-b/*"], 2), SECRET);
    let subscribe = request("team-b/exists", pb::Target::View, true, from_beginning());
    let io = tokio::net::TcpStream::connect(&addr).await.unwrap();
    let path = "/toolview.v1.SessionService/Subscribe";
    let (ended, body) = tokio::time::timeout(
        PATIENCE,
        grpc_web_exchange(io, &addr, path, &subscribe, Some(&short)),
    )
    .await
    .expect("the stream ended when its token expired");
    assert_eq!(ended, 16);
    // It was a live stream that delivered the session's call before it ended, not a refusal.
    let delivered = String::from_utf8_lossy(&body);
    let (_head, frames) = delivered.split_once("\r\n\r\n").unwrap();
    assert!(frames.contains("c1"), "{delivered}");
}

/// One unary `SessionService` call over gRPC-Web (HTTP/1.1); its `grpc-status`.
async fn web_call(
    addr: String,
    method: &str,
    message: impl prost::Message,
    token: Option<String>,
) -> u32 {
    let io = tokio::net::TcpStream::connect(&addr).await.unwrap();
    let path = format!("/toolview.v1.SessionService/{method}");
    grpc_web_status(io, &addr, &path, &message, token.as_deref()).await
}

#[test]
fn a_public_address_without_auth_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = support::cli::command(&["serve", "--store", "memory", "--listen", "0.0.0.0:0"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("without authentication") && err.contains("--insecure-no-auth"),
        "{err}"
    );
    // With the explicit opt-out it starts.
    let mut server = ServerProcess::spawn(
        dir.path(),
        &[
            "--store",
            "memory",
            "--listen",
            "0.0.0.0:0",
            "--insecure-no-auth",
        ],
    );
    server.stop();
}
