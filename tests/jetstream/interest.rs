//! Replicas whose feed follows their own sessions: a replica is sent the appends of the sessions
//! it holds, and no other (`src/store/jetstream/feed.rs`), and a subscriber that makes it hold
//! one while appends land still gets every event once.

use super::*;
use support::process::{sample, scrape};

/// Appends the feed of the replica at `admin` reported (`toolview_store_changes_total`).
async fn changes(admin: &str) -> f64 {
    let admin = admin.to_owned();
    let text = tokio::task::spawn_blocking(move || scrape(&admin))
        .await
        .unwrap();
    sample(&text, "toolview_store_changes_total")
}

/// A replica that never held session `x` reads none of the appends another replica makes to it;
/// a subscriber joining it there while appends land gets every event once, in order, byte for
/// byte what a replay gives; from then on the replica reads `x`'s appends.
#[tokio::test]
async fn a_replica_reads_only_its_own_sessions_appends() {
    let nats = Nats::cluster(3);
    let metrics = ["--metrics-listen", "127.0.0.1:0"];
    let (a, _da) = replica_with(&nats, &metrics);
    let (b, _db) = replica_with(&nats, &metrics);
    let b_admin = b.metrics.clone().unwrap();
    let mut ca = client(&a.url).await;
    const BEFORE: u64 = 60;
    const DURING: u64 = 140;
    let events: Vec<pb::ToolEvent> = (1..=BEFORE + DURING)
        .map(|i| {
            if i == 1 {
                bash_call("x", "e1", "c1")
            } else {
                output("x", &format!("e{i}"), "c1", &format!("line {i}\n"))
            }
        })
        .collect();
    for e in &events[..BEFORE as usize] {
        publish_acked(&mut ca, e.clone()).await;
    }
    // A session B does hold, so its feed is running: B reads those appends, not x's.
    let mut cb = client(&b.url).await;
    publish_acked(&mut cb, bash_call("own", "o1", "c1")).await;
    publish_acked(&mut ca, output("own", "o2", "c1", "from A\n")).await;
    b.metric_reaches("toolview_store_changes_total", 2.0).await;
    let before = changes(&b_admin).await;
    assert!(
        before <= 2.0,
        "B read {before} appends for its one session's 2 (x's {BEFORE} too?)"
    );

    // Appends to x land while a subscriber joins it on B.
    let rest = events[BEFORE as usize..].to_vec();
    let mut publisher = client(&a.url).await;
    let publishing = tokio::spawn(async move {
        for e in rest {
            publish_acked(&mut publisher, e).await;
        }
    });
    let req = || request("x", pb::Target::Acp, true, from_beginning());
    let mut on_b = subscribe(&mut cb, req()).await;
    let got = updates_until(&mut on_b, BEFORE + DURING).await;
    publishing.await.unwrap();
    assert_eq!(
        offsets(&got),
        (1..=BEFORE + DURING).collect::<Vec<_>>(),
        "every event once, in order"
    );
    let mut replay = subscribe(&mut ca, req()).await;
    let bytes = |u: &[pb::RenderedUpdate]| -> Vec<Vec<u8>> {
        u.iter().map(|u| u.encode_to_vec()).collect()
    };
    assert_eq!(
        bytes(&got),
        bytes(&updates_until(&mut replay, BEFORE + DURING).await)
    );
    // B now reads x's appends: at most each one published since it joined, and its catch-up.
    let after = changes(&b_admin).await - before;
    assert!(
        after <= (DURING + 1) as f64,
        "B read {after} appends for {DURING}"
    );
    // A new append reaches B's subscriber through B's own feed.
    publish_acked(&mut ca, output("x", "late", "c1", "late\n")).await;
    assert_eq!(
        offsets(&updates_until(&mut on_b, 1).await),
        [BEFORE + DURING + 1]
    );
}
