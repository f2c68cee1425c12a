//! The fleet over JetStream replicas: a watcher on one replica sees the sessions another
//! publishes to — a prompt waiting, then its answer — and their summaries are the same on both.

use std::time::Instant;

use support::nats::Nats;
use support::permissions::*;
use support::sessions::*;
use toolview::grpc::pb::{self, watch_sessions_response::Item};

use super::replica;

#[tokio::test]
async fn a_watcher_on_one_replica_sees_what_another_publishes() {
    let nats = Nats::cluster(3);
    let (a, _da) = replica(&nats);
    let (b, _db) = replica(&nats);
    let (mut ca, mut cb) = (client(&a.url).await, client(&b.url).await);
    let mut watch = cb
        .watch_sessions(pb::WatchSessionsRequest::default())
        .await
        .unwrap()
        .into_inner();
    assert!(matches!(next_watched(&mut watch).await, Item::Synced(_)));
    let t0 = Instant::now();
    let ask = asking("far", requested("p1", "", "Deploy?"));
    publish(&mut ca, vec![ask]).await.unwrap();
    let Item::Session(s) = next_watched(&mut watch).await else {
        panic!("a session")
    };
    println!(
        "a prompt published on A reached B's watcher in {:?}",
        t0.elapsed()
    );
    assert_eq!(s.session_id, "far");
    let summary = s.summary.unwrap();
    assert_eq!(summary.state(), pb::SessionState::RequiresAction);
    assert_eq!(summary.pending[0].title, "Deploy?");
    // The same summary on A as B read.
    let on_a = get_session(&mut ca, "far").await.unwrap().summary.unwrap();
    assert_eq!(on_a, summary);
    // Answered through A: B's watcher sees it go idle.
    let mut p = permissions(&a.url).await;
    p.respond_permission(respond("far", "p1", "allow"))
        .await
        .unwrap();
    let Item::Session(s) = next_watched(&mut watch).await else {
        panic!("a session")
    };
    assert_eq!(s.summary.unwrap().state(), pb::SessionState::Idle);
}
