//! toolview over NATS JetStream, against real `nats-server`s on loopback: the store on one
//! server, and `toolview serve` replicas over a three-node cluster (R3), permission requests
//! across replicas included (`jetstream/permissions.rs`), the fleet watch
//! (`jetstream/fleet.rs`) and webhooks sent by one replica each (`jetstream/webhooks.rs`). Every wait is bounded;
//! nothing here measures speed. Built with the `jetstream` feature (`scripts/test.sh` turns it
//! on).
#![cfg(feature = "jetstream")]

#[path = "jetstream/directory.rs"]
mod directory;
#[path = "jetstream/faults.rs"]
mod faults;
#[path = "jetstream/fleet.rs"]
mod fleet;
#[path = "jetstream/interest.rs"]
mod interest;
#[path = "jetstream/permissions.rs"]
mod permissions;
#[path = "jetstream/webhooks.rs"]
mod webhooks;

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use prost::Message as _;
use tonic::Code;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use toolview::domain::{EventId, SessionId};
use toolview::grpc::StorageCodec;
use toolview::grpc::pb;
use toolview::session::{Sessions, SessionsConfig};
use toolview::store::{JetStreamStore, Store, StoreError};

use support::nats::{Nats, store_options};
use support::process::ServerProcess;
use support::sessions::*;

const STREAM: &str = "TOOLVIEW";

async fn store(nats: &Nats) -> Arc<dyn Store> {
    Arc::new(
        JetStreamStore::open(store_options(nats, 1), Arc::new(StorageCodec))
            .await
            .unwrap(),
    )
}

/// A `toolview serve` replica on the cluster's stream (as many copies as nodes).
fn replica(nats: &Nats) -> (ServerProcess, tempfile::TempDir) {
    replica_with(nats, &[])
}

fn replica_with(nats: &Nats, extra: &[&str]) -> (ServerProcess, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let (urls, replicas) = (nats.urls(), nats.nodes.len().to_string());
    let mut args = vec![
        "--store",
        "jetstream",
        "--nats-url",
        &urls,
        "--nats-replicas",
        &replicas,
    ];
    args.extend_from_slice(extra);
    (ServerProcess::spawn(dir.path(), &args), dir)
}

fn domain(event: pb::ToolEvent) -> toolview::domain::ToolEvent {
    toolview::domain::ToolEvent::try_from(event).unwrap()
}

/// Publishes one event until it is acknowledged: `UNAVAILABLE` (a leader election) and
/// `ABORTED` (writers kept colliding) are retryable, and the same event id makes a retry of an
/// event that was stored after all a duplicate.
async fn publish_acked(c: &mut Client, event: pb::ToolEvent) -> pb::PublishAck {
    for _ in 0..600 {
        match publish(c, vec![event.clone()]).await {
            Ok(acks) => return acks.into_iter().next().unwrap(),
            Err(s) if matches!(s.code(), Code::Unavailable | Code::Aborted) => {
                eprintln!("publish {}: {:?}, retrying", event.event_id, s.code());
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(s) => panic!("publish {}: {s:?}", event.event_id),
        }
    }
    panic!("publish {} was never acknowledged", event.event_id)
}

/// A stored message that is not a record is reported as corrupt for its session, and other
/// sessions are served.
#[tokio::test]
async fn a_message_that_is_not_a_record_is_corrupt_for_its_session_only() {
    let nats = Nats::single();
    let store = store(&nats).await;
    let sessions = Sessions::new(store.clone(), SessionsConfig::default());
    for s in ["x", "y"] {
        let mut e = domain(bash_call(s, "e1", "c1"));
        e.session_id = SessionId::new(s).unwrap();
        sessions.publish(vec![e]).await.unwrap();
    }
    let client = async_nats::connect(nats.nodes[0].url()).await.unwrap();
    let js = async_nats::jetstream::new(client);
    js.publish("toolview.s.x", "not a record".into())
        .await
        .unwrap()
        .await
        .unwrap();
    match store.read(&SessionId::new("x").unwrap(), 0, 10).await {
        Err(StoreError::Corrupt(why)) => assert!(why.contains("toolview.s.x"), "{why}"),
        other => panic!("expected Corrupt, got {other:?}"),
    }
    let y = store
        .read(&SessionId::new("y").unwrap(), 0, 10)
        .await
        .unwrap();
    assert_eq!(y.len(), 1);
}

/// Idempotency is the log's, not the dedup window's: an event id published again after the
/// window (1 s here) is a duplicate with its original cursor, on this replica and another.
#[tokio::test]
async fn idempotency_outlasts_the_dedup_window() {
    let nats = Nats::single();
    let first = Sessions::new(store(&nats).await, SessionsConfig::default());
    let event = domain(bash_call("s", "e1", "c1"));
    let original = first.publish(vec![event.clone()]).await.unwrap().remove(0);
    assert!(!original.duplicate);
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let again = first.publish(vec![event.clone()]).await.unwrap().remove(0);
    assert!(again.duplicate);
    assert_eq!(again.cursor, original.cursor);
    let other = Sessions::new(store(&nats).await, SessionsConfig::default());
    let there = other.publish(vec![event]).await.unwrap().remove(0);
    assert!(there.duplicate);
    assert_eq!(there.cursor, original.cursor);
    // The lifecycle holds across replicas too: a second start of c1 is refused.
    let mut restart = domain(bash_call("s", "e2", "c1"));
    restart.event_id = EventId::new("e2").unwrap();
    assert!(other.publish(vec![restart]).await.is_err());
}

/// A publisher on replica A; subscribers on A and B get every update, in offset order, with
/// the same bytes; so does a late subscriber on B.
#[tokio::test]
async fn replicas_deliver_the_same_updates() {
    let nats = Nats::cluster(3);
    let (a, _da) = replica(&nats);
    let (b, _db) = replica(&nats);
    let (mut ca, mut cb) = (client(&a.url).await, client(&b.url).await);
    let req = || request("r", pb::Target::Acp, true, from_beginning());
    let mut on_a = subscribe(&mut ca, req()).await;
    let mut on_b = subscribe(&mut cb, req()).await;
    let events = sample_session("r");
    let n = events.len() as u64;
    for e in events {
        publish_acked(&mut ca, e).await;
    }
    let bytes = |u: Vec<pb::RenderedUpdate>| -> Vec<Vec<u8>> {
        u.iter().map(|u| u.encode_to_vec()).collect()
    };
    let got_a = updates_until(&mut on_a, n).await;
    let got_b = updates_until(&mut on_b, n).await;
    assert_eq!(offsets(&got_a), (1..=n).collect::<Vec<_>>());
    assert_eq!(bytes(got_a.clone()), bytes(got_b));
    let mut late = subscribe(&mut cb, req()).await;
    assert_eq!(bytes(updates_until(&mut late, n).await), bytes(got_a));
}

/// Publishers on A and B write one session at once: every event is stored once, at dense
/// offsets; the same event id through both is one append and one duplicate ack.
#[tokio::test]
async fn concurrent_publishers_on_two_replicas_append_each_event_once() {
    let nats = Nats::cluster(3);
    let (a, _da) = replica(&nats);
    let (b, _db) = replica(&nats);
    let (mut ca, mut cb) = (client(&a.url).await, client(&b.url).await);
    publish_acked(&mut ca, bash_call("c", "start", "c1")).await;
    const EACH: usize = 40;
    let run = |mut c: Client, side: &'static str| async move {
        let mut acks = Vec::new();
        for i in 0..EACH {
            let id = format!("{side}{i}");
            acks.push(publish_acked(&mut c, output("c", &id, "c1", &format!("{id}\n"))).await);
        }
        acks
    };
    let (from_a, from_b) = tokio::join!(run(ca.clone(), "a"), run(cb.clone(), "b"));
    let mut seen = BTreeMap::new();
    for ack in from_a.iter().chain(&from_b) {
        assert!(!ack.duplicate, "{ack:?}");
        let offset = ack.cursor.as_ref().unwrap().offset;
        assert!(
            seen.insert(offset, ack.event_id.clone()).is_none(),
            "{offset} twice"
        );
    }
    let total = 1 + 2 * EACH as u64;
    assert_eq!(
        seen.keys().copied().collect::<Vec<_>>(),
        (2..=total).collect::<Vec<_>>()
    );
    let head = get_session(&mut cb, "c").await.unwrap();
    assert_eq!(head.head_offset, total);

    let dup = output("c", "same", "c1", "once\n");
    let (x, y) = tokio::join!(
        publish_acked(&mut ca, dup.clone()),
        publish_acked(&mut cb, dup)
    );
    assert_eq!(
        [x.duplicate, y.duplicate].iter().filter(|d| !**d).count(),
        1,
        "{x:?} {y:?}"
    );
    assert_eq!(x.cursor, y.cursor);
    assert_eq!(x.cursor.unwrap().offset, total + 1);
    let mut all = subscribe(
        &mut ca,
        request("c", pb::Target::View, false, from_beginning()),
    )
    .await;
    assert_eq!(
        offsets(&updates_until(&mut all, total + 1).await),
        (1..=total + 1).collect::<Vec<_>>()
    );
}

/// SIGKILL of the stream leader under publish load: publishing goes on after the election,
/// every acknowledged event is in the log once at its acknowledged offset, and a subscriber
/// resuming from a cursor sees no gap and no duplicate.
#[tokio::test]
async fn a_killed_stream_leader_loses_no_acknowledged_event() {
    let mut nats = Nats::cluster(3);
    let (a, _da) = replica(&nats);
    let mut ca = client(&a.url).await;
    publish_acked(&mut ca, bash_call("k", "start", "c1")).await;
    const EVENTS: usize = 200;
    let mut acked = BTreeMap::new();
    let mut killed = None;
    for i in 0..EVENTS {
        if i == EVENTS / 4 {
            let leader = nats.stream_leader(STREAM).expect("the stream has a leader");
            nats.kill(leader);
            killed = Some(leader);
        }
        let id = format!("o{i}");
        let ack = publish_acked(&mut ca, output("k", &id, "c1", &format!("{id}\n"))).await;
        let offset = ack.cursor.unwrap().offset;
        assert!(
            acked.insert(offset, id).is_none(),
            "offset {offset} acknowledged twice"
        );
    }
    let killed = killed.unwrap();
    let now = nats
        .stream_leader(STREAM)
        .expect("a leader after the election");
    assert_ne!(now, killed, "another server leads the stream");
    eprintln!(
        "stream leader n{} killed; n{} leads now",
        killed + 1,
        now + 1
    );
    let total = 1 + EVENTS as u64;
    assert_eq!(
        acked.keys().copied().collect::<Vec<_>>(),
        (2..=total).collect::<Vec<_>>()
    );

    // Read back through a subscription: the first half, then resume from its cursor.
    let req = |start| request("k", pb::Target::View, false, start);
    let mut first = subscribe(&mut ca, req(from_beginning())).await;
    let head = updates_until(&mut first, total / 2).await;
    drop(first);
    let cursor = head.last().unwrap().cursor.clone().unwrap();
    let mut rest = subscribe(&mut ca, req(after(cursor.offset, &cursor.epoch))).await;
    let tail = updates_until(&mut rest, total).await;
    let mut all = offsets(&head);
    all.extend(offsets(&tail));
    assert_eq!(all, (1..=total).collect::<Vec<_>>(), "no gap, no duplicate");
    let stored = get_session(&mut ca, "k").await.unwrap();
    assert_eq!(stored.head_offset, total, "nothing stored twice");
}

/// SIGKILL of replica A while its subscriber reads: the subscriber resumes on B with its
/// cursor and loses nothing.
#[tokio::test]
async fn subscribers_of_a_killed_replica_resume_on_another() {
    let nats = Nats::cluster(3);
    let (mut a, _da) = replica(&nats);
    let (b, _db) = replica(&nats);
    let (mut ca, mut cb) = (client(&a.url).await, client(&b.url).await);
    publish_acked(&mut cb, bash_call("m", "start", "c1")).await;
    for i in 0..49 {
        publish_acked(&mut cb, output("m", &format!("o{i}"), "c1", "x\n")).await;
    }
    let req = |start| request("m", pb::Target::Acp, true, start);
    let mut on_a = subscribe(&mut ca, req(from_beginning())).await;
    let seen = updates_until(&mut on_a, 20).await;
    a.kill();
    for i in 49..99 {
        publish_acked(&mut cb, output("m", &format!("o{i}"), "c1", "y\n")).await;
    }
    let cursor = seen.last().unwrap().cursor.clone().unwrap();
    let mut on_b = subscribe(&mut cb, req(after(cursor.offset, &cursor.epoch))).await;
    let rest = updates_until(&mut on_b, 100).await;
    assert_eq!(
        offsets(&rest),
        (cursor.offset + 1..=100).collect::<Vec<_>>()
    );
    // The same bytes a subscriber of B from the beginning gets after that cursor.
    let mut whole = subscribe(&mut cb, req(from_beginning())).await;
    let whole = updates_until(&mut whole, 100).await;
    let tail: Vec<Vec<u8>> = whole[cursor.offset as usize..]
        .iter()
        .map(|u| u.encode_to_vec())
        .collect();
    let resumed: Vec<Vec<u8>> = rest.iter().map(|u| u.encode_to_vec()).collect();
    assert_eq!(resumed, tail);
}

/// 2,000 subscribers on one replica leave the stream with that replica's one consumer.
#[tokio::test]
async fn subscribers_do_not_make_consumers() {
    let nats = Nats::single();
    let (a, _da) = replica(&nats);
    const SESSIONS: usize = 40;
    const SUBSCRIBERS: usize = 2000;
    let mut c = client(&a.url).await;
    for s in 0..SESSIONS {
        publish_acked(&mut c, bash_call(&format!("s{s}"), "e1", "c1")).await;
    }
    // Ten connections, each multiplexing 200 streams (under the per-connection limit).
    let mut streams = Vec::with_capacity(SUBSCRIBERS);
    let mut clients = Vec::new();
    for _ in 0..10 {
        clients.push(client(&a.url).await);
    }
    for i in 0..SUBSCRIBERS {
        let n = clients.len();
        let c = &mut clients[i % n];
        let req = request(
            &format!("s{}", i % SESSIONS),
            pb::Target::Acp,
            true,
            from_beginning(),
        );
        streams.push(subscribe(c, req).await);
    }
    for s in &mut streams {
        assert_eq!(offsets(&updates_until(s, 1).await), [1]);
    }
    // The feed is a core NATS subscription per session held (the stream republishes).
    assert_eq!(nats.consumer_count(STREAM), Some(0));
    // Subscribers keep getting live updates through it.
    publish_acked(&mut c, output("s0", "e2", "c1", "more\n")).await;
    let distinct: HashSet<u64> = (0..SUBSCRIBERS)
        .step_by(SESSIONS)
        .map(|i| i as u64)
        .collect();
    for i in distinct {
        assert_eq!(
            offsets(&updates_until(&mut streams[i as usize], 2).await),
            [2]
        );
    }
    assert_eq!(nats.consumer_count(STREAM), Some(0));
}

async fn health(url: &str) -> Option<ServingStatus> {
    let channel = tonic::transport::Endpoint::from_shared(url.to_owned())
        .unwrap()
        .connect()
        .await
        .ok()?;
    let mut h = tonic_health::pb::health_client::HealthClient::new(channel);
    let request = HealthCheckRequest {
        service: "toolview.v1.SessionService".into(),
    };
    let status = h.check(request).await.ok()?.into_inner().status;
    ServingStatus::try_from(status).ok()
}

/// Waits (up to `PATIENCE`) for the health status.
async fn health_becomes(url: &str, want: ServingStatus) {
    let waited = tokio::time::timeout(PATIENCE, async {
        while health(url).await != Some(want) {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    assert!(waited.is_ok(), "health never became {want:?}");
}

/// Health is NOT_SERVING while NATS is unreachable and SERVING again once it is back; live
/// updates resume; SIGTERM drains and exits cleanly.
#[tokio::test]
async fn health_follows_nats_and_recovers_by_itself() {
    let mut nats = Nats::single();
    let (mut a, _da) = replica(&nats);
    health_becomes(&a.url, ServingStatus::Serving).await;
    let mut c = client(&a.url).await;
    publish_acked(&mut c, bash_call("h", "e1", "c1")).await;
    let mut live = subscribe(
        &mut c,
        request("h", pb::Target::View, false, from_beginning()),
    )
    .await;
    assert_eq!(offsets(&updates_until(&mut live, 1).await), [1]);

    nats.kill(0);
    health_becomes(&a.url, ServingStatus::NotServing).await;
    // The probe containers run says so too, and fails.
    let probe = support::cli::command(&["health", "--server", &a.url])
        .output()
        .unwrap();
    assert!(!probe.status.success());
    assert_eq!(String::from_utf8_lossy(&probe.stdout).trim(), "NOT_SERVING");
    nats.restart(0);
    nats.wait_ready();
    health_becomes(&a.url, ServingStatus::Serving).await;
    publish_acked(&mut c, output("h", "e2", "c1", "back\n")).await;
    assert_eq!(offsets(&updates_until(&mut live, 2).await), [2]);

    // SAFETY: a signal to our own child, which has not been reaped (we wait below).
    #[expect(unsafe_code, reason = "see the SAFETY note")]
    unsafe {
        libc::kill(a.pid() as libc::pid_t, libc::SIGTERM);
    }
    let status = a.child.wait().unwrap();
    assert!(status.success(), "{status:?}");
}

/// Retention by the stream (`max_msgs_per_subject` = --max-events-per-session) and a purged
/// log both reach subscribers as a `Reset`: a cursor older than what is kept restarts at the
/// first kept event; a log made again after a purge starts a new epoch at offset 1.
#[tokio::test]
async fn trimmed_and_purged_logs_are_resets() {
    use pb::subscribe_response::Item;
    let nats = Nats::single();
    let (a, _da) = replica_with(&nats, &["--max-events-per-session", "5"]);
    let mut c = client(&a.url).await;
    let first = publish_acked(&mut c, bash_call("t", "e0", "c1")).await;
    let epoch = first.cursor.unwrap().epoch;
    for i in 1..10 {
        publish_acked(&mut c, output("t", &format!("e{i}"), "c1", "x\n")).await;
    }
    let req = |start| request("t", pb::Target::View, false, start);
    let mut old = subscribe(&mut c, req(after(2, &epoch))).await;
    match next_item(&mut old).await.unwrap() {
        Some(Item::Reset(r)) => assert_eq!((r.epoch.as_str(), r.head_offset), (epoch.as_str(), 10)),
        other => panic!("expected a reset, got {other:?}"),
    }
    assert_eq!(
        offsets(&updates_until(&mut old, 10).await),
        [6, 7, 8, 9, 10]
    );

    // The log is purged behind toolview's back; the next publish makes a new one.
    let client = async_nats::connect(nats.nodes[0].url()).await.unwrap();
    let js = async_nats::jetstream::new(client);
    let stream = js.get_stream(STREAM).await.unwrap();
    stream.purge().filter("toolview.s.t").await.unwrap();
    let again = publish_acked(&mut c, bash_call("t", "n0", "c9")).await;
    let cursor = again.cursor.unwrap();
    assert_eq!(cursor.offset, 1);
    assert_ne!(cursor.epoch, epoch);
    match next_item(&mut old).await.unwrap() {
        Some(Item::Reset(r)) => assert_eq!(r.epoch, cursor.epoch),
        other => panic!("expected a reset to the new log, got {other:?}"),
    }
    assert_eq!(offsets(&updates_until(&mut old, 1).await), [1]);
}

/// An existing stream that would break the guarantees stops the server at start, saying what
/// is wrong.
#[tokio::test]
async fn a_stream_that_breaks_the_guarantees_is_refused_at_start() {
    let nats = Nats::single();
    let client = async_nats::connect(nats.nodes[0].url()).await.unwrap();
    let js = async_nats::jetstream::new(client);
    js.create_stream(async_nats::jetstream::stream::Config {
        name: STREAM.into(),
        subjects: vec!["toolview.s.>".into()],
        max_messages_per_subject: 5,
        discard: async_nats::jetstream::stream::DiscardPolicy::New,
        ..Default::default()
    })
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let urls = nats.urls();
    let out = support::process::serve_command(
        dir.path(),
        &[
            "--store",
            "jetstream",
            "--nats-url",
            &urls,
            "--nats-replicas",
            "1",
        ],
    )
    .stderr(std::process::Stdio::piped())
    .output()
    .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    for problem in [
        "max_msgs_per_subject is 5",
        "discard policy",
        "allow_atomic",
        "allow_direct",
    ] {
        assert!(stderr.contains(problem), "{problem}: {stderr}");
    }
}

/// No NATS at the URL: `serve` says where it waits and for how long (a line every 10 s, not
/// one per attempt), then exits naming the URL; `--nats-startup-wait-ms` sets the wait.
#[test]
fn an_unreachable_nats_is_named_with_its_deadline() {
    // Port 1: nothing listens there, and no parallel test's nats-server can take it (a port
    // freed here could become another test's node, and the replica would make its stream there).
    let url = "nats://127.0.0.1:1".to_owned();
    let dir = tempfile::tempdir().unwrap();
    let out = support::process::serve_command(
        dir.path(),
        &[
            "--store",
            "jetstream",
            "--nats-url",
            &url,
            "--nats-startup-wait-ms",
            "2500",
        ],
    )
    .stderr(std::process::Stdio::piped())
    .output()
    .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let waiting: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("waiting for NATS"))
        .collect();
    assert_eq!(waiting.len(), 1, "one line for a 2.5 s wait: {stderr}");
    assert!(waiting[0].contains(&url), "names the URL: {stderr}");
    assert!(
        waiting[0].contains("giving up in 3 s"),
        "says the deadline: {stderr}"
    );
    let last = stderr.lines().last().unwrap_or_default();
    assert!(
        last.contains(&url) && last.contains("unreachable after 2.5 s"),
        "the error names the URL and the wait: {stderr}"
    );
}

/// NATS with a user and password, over TLS with a CA made here: the replica connects with
/// --nats-user/--nats-password and --nats-tls-ca; without the password, or without the CA, it
/// refuses to start and says why.
#[tokio::test]
async fn nats_credentials_and_tls() {
    let ca = support::pki::Ca::generate();
    let leaf = ca.server_leaf();
    let nats = Nats::single_with(|dir| {
        let (cert, key) = (dir.join("nats.pem"), dir.join("nats.key"));
        std::fs::write(&cert, &leaf.cert).unwrap();
        std::fs::write(&key, &leaf.key).unwrap();
        format!(
            "authorization {{ user: toolview, password: \"pw-0123456789\" }}\n\
             tls {{ cert_file: \"{}\", key_file: \"{}\" }}",
            cert.display(),
            key.display()
        )
    });
    let files = tempfile::tempdir().unwrap();
    let ca_file = files.path().join("ca.pem");
    std::fs::write(&ca_file, &ca.pem).unwrap();
    let ca_path = ca_file.to_str().unwrap();
    let url = nats.nodes[0].tls_url();
    let base = [
        "--store",
        "jetstream",
        "--nats-url",
        &url,
        "--nats-replicas",
        "1",
    ];
    let refused = |extra: &[&str]| {
        let dir = tempfile::tempdir().unwrap();
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        let out = support::process::serve_command(dir.path(), &args)
            .stderr(std::process::Stdio::piped())
            .output()
            .unwrap();
        assert!(!out.status.success(), "{extra:?} started");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let no_password = refused(&["--nats-tls-ca", ca_path]);
    assert!(no_password.contains("NATS"), "{no_password}");
    let no_ca = refused(&[
        "--nats-user",
        "toolview",
        "--nats-password",
        "pw-0123456789",
    ]);
    assert!(no_ca.contains("NATS"), "{no_ca}");

    let dir = tempfile::tempdir().unwrap();
    let mut args = base.to_vec();
    args.extend_from_slice(&[
        "--nats-tls-ca",
        ca_path,
        "--nats-user",
        "toolview",
        "--nats-password",
        "pw-0123456789",
    ]);
    let a = ServerProcess::spawn(dir.path(), &args);
    let mut c = client(&a.url).await;
    let ack = publish_acked(&mut c, bash_call("secure", "e1", "c1")).await;
    assert_eq!(ack.cursor.unwrap().offset, 1);
}

/// Every stored append is reported by a replica's feed, also when that replica has already read
/// it (a read catches a session's index up to the stream's end): the session layer's head must
/// still move, or its subscribers wait for an update they never get.
#[tokio::test]
async fn appends_a_replica_has_read_are_still_reported() {
    let nats = Nats::single();
    let writer = Sessions::new(store(&nats).await, SessionsConfig::default());
    let reader = store(&nats).await;
    let feed = reader.feed().expect("a JetStream store has a feed");
    let mut changes = feed
        .changes()
        .expect("the feed's first taker gets the reports");
    // The reader holds the session (as the session layer says of every session it loads).
    feed.interest(&SessionId::new("f").unwrap(), true);
    feed.following(&SessionId::new("f").unwrap()).await;
    let mut events = vec![domain(bash_call("f", "e1", "c1"))];
    for i in 2..=5 {
        events.push(domain(output("f", &format!("e{i}"), "c1", "x\n")));
    }
    writer.publish(events).await.unwrap();
    // Read at once: the index now holds all five, likely before the feed has them.
    let read = reader
        .read(&SessionId::new("f").unwrap(), 0, 10)
        .await
        .unwrap();
    assert_eq!(read.len(), 5);
    let saw_head = tokio::time::timeout(PATIENCE, async {
        while let Some(change) = changes.recv().await {
            if change.session.as_str() == "f" && change.head == 5 {
                return true;
            }
        }
        false
    })
    .await;
    assert_eq!(saw_head, Ok(true), "the append to offset 5 was reported");
}

/// With retention trimming and the store's feed moving heads (it may move one before the
/// publish that made it does), a subscriber resuming before the first kept event gets one
/// `Reset`, then the kept events — not a reset after reset.
#[tokio::test]
async fn a_trimmed_log_resets_once_with_the_feed_running() {
    use tokio_stream::StreamExt as _;
    use toolview::domain::Cursor;
    use toolview::session::{Start, SubscribeItem};
    let nats = Nats::single();
    let mut o = store_options(&nats, 1);
    o.max_events_per_session = 5;
    let store: Arc<dyn Store> = Arc::new(
        JetStreamStore::open(o, Arc::new(StorageCodec))
            .await
            .unwrap(),
    );
    let config = SessionsConfig {
        max_events_per_session: 5,
        ..SessionsConfig::default()
    };
    let sessions = Sessions::new(store, config);
    let follow = tokio::spawn(sessions.clone().follow_appends());
    for round in 0..3 {
        let s = format!("t{round}");
        let first = sessions
            .publish(vec![domain(bash_call(&s, "e0", "c1"))])
            .await
            .unwrap()
            .remove(0);
        for i in 1..10 {
            let e = output(&s, &format!("e{i}"), "c1", "x\n");
            sessions.publish(vec![domain(e)]).await.unwrap();
        }
        let id = SessionId::new(s).unwrap();
        let start = Start::After(Cursor {
            offset: 2,
            epoch: first.cursor.epoch.clone(),
        });
        let caps = toolview::render::Capabilities::default();
        let mut sub = sessions.subscribe(&id, toolview::render::Target::View, caps, start);
        let mut next = async || {
            tokio::time::timeout(PATIENCE, sub.next())
                .await
                .expect("the subscription stalled")
                .expect("an item")
                .expect("no error")
        };
        assert!(matches!(
            next().await,
            SubscribeItem::Reset { head: 10, .. }
        ));
        for want in 6..=10 {
            match next().await {
                SubscribeItem::Update { cursor, .. } => assert_eq!(cursor.offset, want),
                other => panic!("round {round}: expected update {want}, got {other:?}"),
            }
        }
    }
    follow.abort();
}

/// An append whose answer is lost (the `jetstream-ack-lost` fail point: stored, then the
/// answer dropped) is sent again; the repeat meets the compare-and-set, and the store tells its
/// own earlier attempt from another writer's: the events are acknowledged once each as new
/// (`duplicate: false`), at dense offsets — for an atomic batch and for a single event.
#[tokio::test]
async fn an_append_retried_after_a_lost_answer_is_not_a_duplicate() {
    let nats = Nats::single();
    let dir = tempfile::tempdir().unwrap();
    let urls = nats.urls();
    let mut cmd = support::process::serve_command(
        dir.path(),
        &[
            "--store",
            "jetstream",
            "--nats-url",
            &urls,
            "--nats-replicas",
            "1",
        ],
    );
    cmd.env("FAILPOINTS", "jetstream-ack-lost=2*return");
    let a = ServerProcess::from_command(cmd);
    let mut c = client(&a.url).await;
    let mut batch = vec![bash_call("l", "e1", "c1")];
    for i in 2..=5 {
        batch.push(output("l", &format!("e{i}"), "c1", "x\n"));
    }
    let acks = publish(&mut c, batch).await.unwrap();
    let single = publish(&mut c, vec![output("l", "e6", "c1", "y\n")])
        .await
        .unwrap();
    let got: Vec<(u64, bool)> = acks
        .iter()
        .chain(&single)
        .map(|a| (a.cursor.as_ref().unwrap().offset, a.duplicate))
        .collect();
    assert_eq!(got, (1..=6).map(|o| (o, false)).collect::<Vec<_>>());
    assert_eq!(get_session(&mut c, "l").await.unwrap().head_offset, 6);
}

/// `ListSessions` on the JetStream store: replica B lists, a page at a time in id order, the
/// sessions published through replica A, scoped by the caller's grants.
#[tokio::test]
async fn a_replica_lists_the_sessions_another_published() {
    let nats = Nats::single();
    let dir = tempfile::tempdir().unwrap();
    let secret = dir.path().join("secret");
    std::fs::write(&secret, format!("{}\n", support::auth::SECRET)).unwrap();
    let auth = [
        "--auth",
        "jwt",
        "--jwt-secret-file",
        secret.to_str().unwrap(),
    ];
    let (a, _da) = replica_with(&nats, &auth);
    let (b, _db) = replica_with(&nats, &auth);
    let publisher = support::auth::token(&["publish"], &["team-a/*", "other/*"]);
    let mut ca = client(&a.url).await;
    let mut want: Vec<String> = Vec::new();
    for n in 0..12 {
        let id = if n % 3 == 0 {
            format!("team-a/s{n:02}")
        } else {
            format!("other/s{n:02}")
        };
        let request = pb::PublishRequest {
            events: vec![bash_call(&id, "e1", "c1"), output(&id, "e2", "c1", "x\n")],
        };
        ca.publish(support::auth::with_token(request, &publisher))
            .await
            .unwrap();
        if id.starts_with("team-a/") {
            want.push(id);
        }
    }
    want.sort();
    let reader = support::auth::token(&["read"], &["team-a/*"]);
    let mut cb = client(&b.url).await;
    let (mut ids, mut token) = (Vec::new(), String::new());
    loop {
        let request = pb::ListSessionsRequest {
            page_size: 2,
            page_token: token.clone(),
            ..pb::ListSessionsRequest::default()
        };
        let page = cb
            .list_sessions(support::auth::with_token(request, &reader))
            .await
            .unwrap()
            .into_inner();
        assert!(page.sessions.len() <= 2);
        for s in &page.sessions {
            assert_eq!((s.head_offset, s.calls), (2, 1), "{s:?}");
            assert!(s.created_at.is_some() && s.updated_at.is_some(), "{s:?}");
        }
        ids.extend(page.sessions.into_iter().map(|s| s.session_id));
        if page.next_page_token.is_empty() {
            break;
        }
        token = page.next_page_token;
    }
    assert_eq!(
        ids, want,
        "exactly the granted sessions, in id order, through replica B"
    );
}
