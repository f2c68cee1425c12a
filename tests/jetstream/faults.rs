//! The fault run: three `toolview serve` replicas on a three-node NATS cluster (R3), publishers
//! writing each session through rotating replicas, a live follower of every session on every
//! replica, while the stream leader is SIGKILLed twice (and restarted), NATS is wholly down for
//! a few seconds, and a replica is SIGKILLed. What must hold: every acknowledged event is in the
//! log once, at its acknowledged offset; no first publish is acknowledged as a duplicate;
//! followers see no `Reset` (nothing is trimmed) and get every offset once, in order; health is
//! NOT_SERVING while NATS is down and SERVING again only when a publish is taken. How long
//! after each fault the first acknowledgement came is printed, not asserted: a figure, not a
//! timeout (a SIGKILLed stream leader costs NATS's own Raft election, 4-9 s, whatever the
//! client does; see docs/operations.md).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use tonic::Code;
use tonic_health::pb::health_check_response::ServingStatus;
use toolview::grpc::pb;
use toolview::grpc::pb::subscribe_response::Item;

use super::{STREAM, replica};
use support::nats::Nats;
use support::sessions::*;

const SESSIONS: usize = 8;
/// Events each publisher writes (bounded: the run ends when they are all acknowledged).
const EVENTS: usize = 250;
/// Between two publishes of one publisher.
const PACE: Duration = Duration::from_millis(40);

/// What the publishers saw: acknowledgements by session and offset, false duplicates, and the
/// times of every acknowledgement (for the longest window without one).
#[derive(Default)]
struct Acks {
    by_session: BTreeMap<usize, BTreeMap<u64, String>>,
    false_duplicates: Vec<String>,
    times: Vec<Instant>,
}

/// One publisher: its session's events in order, each through the next live replica, retried
/// (same event id) on the codes a client retries.
async fn publisher(session: usize, urls: Arc<Mutex<Vec<Option<String>>>>, acks: Arc<Mutex<Acks>>) {
    let s = format!("f{session}");
    let mut turn = session;
    for i in 0..EVENTS {
        let event = if i == 0 {
            bash_call(&s, "e0", "c1")
        } else {
            output(&s, &format!("e{i}"), "c1", &format!("line {i}\n"))
        };
        let started = Instant::now();
        let mut failed = false;
        let ack = loop {
            assert!(
                started.elapsed() < PATIENCE,
                "{s}/e{i} was never acknowledged"
            );
            turn += 1;
            let live: Vec<String> = urls.lock().iter().flatten().cloned().collect();
            let url = &live[turn % live.len()];
            let Ok(mut c) = Client::connect(url.clone()).await else {
                continue;
            };
            match publish(&mut c, vec![event.clone()]).await {
                Ok(mut acks) => break acks.remove(0),
                Err(e) if matches!(e.code(), Code::Unavailable | Code::Aborted | Code::Unknown) => {
                    failed = true;
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                Err(e) => panic!("{s}/e{i}: {e:?}"),
            }
        };
        {
            let mut a = acks.lock();
            a.times.push(Instant::now());
            // Each id is sent again only after a failed attempt (which may have been stored): a
            // duplicate flag on an id's first attempt is false.
            let offset = ack.cursor.as_ref().unwrap().offset;
            let before = a
                .by_session
                .entry(session)
                .or_default()
                .insert(offset, ack.event_id.clone());
            if ack.duplicate && !failed {
                a.false_duplicates.push(format!("{s}/{}", ack.event_id));
            }
            if let Some(other) = before {
                assert_eq!(
                    other, ack.event_id,
                    "{s}: offset {offset} acknowledged for two events"
                );
            }
        }
        tokio::time::sleep(PACE).await;
    }
}

/// What a follower saw: offsets in order, resets, and how often its stream ended.
#[derive(Debug, Default)]
struct Seen {
    offsets: Vec<u64>,
    resets: Vec<String>,
    ends: Vec<String>,
}

/// A live follower of one session, on replica `home` while it lives (then on the others),
/// resuming after its cursor whenever its stream ends; stops at offset `EVENTS`.
async fn follower(session: usize, home: usize, urls: Arc<Mutex<Vec<Option<String>>>>) -> Seen {
    let s = format!("f{session}");
    let mut seen = Seen::default();
    let mut cursor: Option<pb::Cursor> = None;
    let mut turn = home;
    let started = Instant::now();
    while seen.offsets.last() != Some(&(EVENTS as u64)) {
        assert!(
            started.elapsed() < PATIENCE * 3,
            "{s}: follower stalled: {seen:?}"
        );
        let url = {
            let urls = urls.lock();
            match &urls[home] {
                Some(u) => u.clone(),
                None => {
                    turn += 1;
                    let live: Vec<&String> = urls.iter().flatten().collect();
                    live[turn % live.len()].clone()
                }
            }
        };
        let start = match &cursor {
            Some(c) => after(c.offset, &c.epoch),
            None => from_beginning(),
        };
        let Ok(mut c) = Client::connect(url).await else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        let mut stream = match c
            .subscribe(request(&s, pb::Target::View, false, start))
            .await
        {
            Ok(r) => r.into_inner(),
            Err(e) => {
                seen.ends.push(format!("{:?}", e.code()));
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        loop {
            match next_item(&mut stream).await {
                Ok(Some(Item::Update(u))) => {
                    let at = u.cursor.clone().unwrap();
                    seen.offsets.push(at.offset);
                    cursor = Some(at);
                    if seen.offsets.last() == Some(&(EVENTS as u64)) {
                        break;
                    }
                }
                Ok(Some(Item::Reset(r))) => {
                    seen.resets.push(format!("{r:?} after {cursor:?}"));
                    cursor = None;
                    seen.offsets.clear();
                }
                Ok(Some(_)) => {}
                Ok(None) => {
                    seen.ends.push("end".into());
                    break;
                }
                Err(e) => {
                    seen.ends.push(format!("{:?}", e.code()));
                    break;
                }
            }
        }
    }
    seen
}

#[tokio::test]
async fn replicas_ride_out_leader_and_replica_kills() {
    let mut nats = Nats::cluster(3);
    let mut replicas: Vec<_> = (0..3).map(|_| replica(&nats)).collect();
    let urls = Arc::new(Mutex::new(
        replicas
            .iter()
            .map(|(r, _)| Some(r.url.clone()))
            .collect::<Vec<_>>(),
    ));
    // Every replica serves before the run starts.
    let listed: Vec<String> = urls.lock().iter().flatten().cloned().collect();
    for u in listed {
        let mut c = client(&u).await;
        while get_session(&mut c, "warmup").await.map_err(|e| e.code()) != Err(Code::NotFound) {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    let acks = Arc::new(Mutex::new(Acks::default()));
    let mut followers = Vec::new();
    for session in 0..SESSIONS {
        for home in 0..3 {
            followers.push(tokio::spawn(follower(session, home, urls.clone())));
        }
    }
    let publishers: Vec<_> = (0..SESSIONS)
        .map(|s| tokio::spawn(publisher(s, urls.clone(), acks.clone())))
        .collect();

    // (what, when): the first acknowledgement after each is measured below.
    let mut faults: Vec<(String, Instant)> = Vec::new();
    for round in 1..=2 {
        tokio::time::sleep(Duration::from_secs(2)).await;
        let leader = nats.stream_leader(STREAM).expect("the stream has a leader");
        nats.kill(leader);
        faults.push((format!("stream leader killed ({round})"), Instant::now()));
        // Back once another node leads.
        while nats.stream_leader(STREAM).is_none_or(|l| l == leader) {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        nats.restart(leader);
        nats.wait_ready();
    }
    // NATS wholly down: every replica says NOT_SERVING, and SERVING again only once a publish
    // would be taken (checked by publishing through it at once).
    tokio::time::sleep(Duration::from_secs(1)).await;
    for i in 0..3 {
        nats.kill(i);
    }
    let live: Vec<String> = urls.lock().iter().flatten().cloned().collect();
    // Sent while NATS is down: it waits (up to 15 s) and is taken once NATS is back.
    let mut c = client(&live[1]).await;
    let sent = Instant::now();
    let during = tokio::spawn(async move {
        let ack = publish(&mut c, vec![bash_call("outage", "e1", "c1")]).await;
        (ack.map(|_| ()).map_err(|e| e.code()), sent.elapsed())
    });
    for u in &live {
        super::health_becomes(u, ServingStatus::NotServing).await;
    }
    tokio::time::sleep(Duration::from_secs(3)).await;
    for i in 0..3 {
        nats.restart(i);
    }
    faults.push(("NATS back after an outage".into(), Instant::now()));
    super::health_becomes(&live[0], ServingStatus::Serving).await;
    let mut c = client(&live[0]).await;
    let probe = bash_call("serving", "e1", "c1");
    let ack = publish(&mut c, vec![probe]).await;
    assert!(ack.is_ok(), "SERVING, but a publish was refused: {ack:?}");
    let (outcome, waited) = during.await.unwrap();
    let outage_publish = format!("{outcome:?} after {:.2} s", waited.as_secs_f64());
    nats.wait_ready();
    tokio::time::sleep(Duration::from_secs(1)).await;
    urls.lock()[2] = None;
    replicas[2].0.kill();
    faults.push(("replica 3 killed".into(), Instant::now()));

    for p in publishers {
        p.await.unwrap();
    }
    let mut all_resets = Vec::new();
    let mut ends = 0;
    for (i, f) in followers.into_iter().enumerate() {
        let seen = f.await.unwrap();
        let (session, home) = (i / 3, i % 3);
        assert!(
            seen.resets.is_empty(),
            "f{session} on replica {}: {:#?}",
            home + 1,
            seen.resets
        );
        assert_eq!(
            seen.offsets,
            (1..=EVENTS as u64).collect::<Vec<_>>(),
            "f{session} on replica {}: every offset once, in order",
            home + 1
        );
        ends += seen.ends.len();
        all_resets.extend(seen.resets);
    }
    let acks = acks.lock();
    for (session, acked) in &acks.by_session {
        assert_eq!(
            acked.keys().copied().collect::<Vec<_>>(),
            (1..=EVENTS as u64).collect::<Vec<_>>(),
            "f{session}: dense acknowledged offsets"
        );
    }
    let mut times = acks.times.clone();
    times.sort();
    let longest = times
        .windows(2)
        .map(|w| w[1] - w[0])
        .max()
        .unwrap_or_default();
    // Per fault: the longest window without an ack from the fault to the next one (the end).
    let after: Vec<String> = faults
        .iter()
        .enumerate()
        .map(|(i, (what, at))| {
            let until = faults.get(i + 1).map(|(_, t)| *t);
            let mut last = *at;
            let mut longest = Duration::ZERO;
            for t in times
                .iter()
                .filter(|t| *t > at && until.is_none_or(|u| **t < u))
            {
                longest = longest.max(*t - last);
                last = *t;
            }
            format!("{what}: {:.2} s", longest.as_secs_f64())
        })
        .collect();
    eprintln!(
        "fault run: longest window without an ack after each fault: {}; {} acks, longest \
         window overall {:.2} s; a publish sent while NATS was down: {outage_publish}; \
         follower streams ended {ends} times; {} resets; {} false duplicates",
        after.join(", "),
        times.len(),
        longest.as_secs_f64(),
        all_resets.len(),
        acks.false_duplicates.len()
    );
    assert!(all_resets.is_empty(), "resets: {all_resets:#?}");
    assert!(
        acks.false_duplicates.is_empty(),
        "{:?}",
        acks.false_duplicates
    );
}
