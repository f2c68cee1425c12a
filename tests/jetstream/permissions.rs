//! Permission requests over JetStream replicas on a three-node cluster: fifty answers through
//! two replicas leave exactly one resolution in the log, and a request nobody answers expires to
//! its reject option on another replica after the one that took it is gone.

use std::time::Duration;

use support::nats::Nats;
use support::permissions::*;
use support::sessions::*;
use toolview::grpc::pb::{self, permission_resolved::Outcome};

use super::replica;

/// A request about no call that expires after `timeout_ms`.
fn ask(session: &str, request_id: &str, timeout_ms: u64) -> pb::ToolEvent {
    asking(
        session,
        pb::PermissionRequested {
            timeout_ms,
            ..requested(request_id, "", "Deploy?")
        },
    )
}

#[tokio::test]
async fn fifty_answers_through_two_replicas_leave_one_resolution() {
    let nats = Nats::cluster(3);
    let (a, _da) = replica(&nats);
    let (b, _db) = replica(&nats);
    let mut ca = client(&a.url).await;
    super::publish_acked(&mut ca, ask("race", "perm-1", 60_000)).await;
    let mut answers = Vec::new();
    for k in 0..10 {
        let url = if k % 2 == 0 {
            a.url.clone()
        } else {
            b.url.clone()
        };
        answers.push(tokio::spawn(async move {
            let mut p = permissions(&url).await;
            let mut out = Vec::new();
            for n in 0..5 {
                let option = if (k + n) % 2 == 0 { "allow" } else { "reject" };
                let answer = p
                    .respond_permission(pb::RespondPermissionRequest {
                        via: format!("client-{k}"),
                        ..respond("race", "perm-1", option)
                    })
                    .await
                    .unwrap()
                    .into_inner();
                out.push(answer);
            }
            out
        }));
    }
    let mut all = Vec::new();
    for a in answers {
        all.extend(a.await.unwrap());
    }
    assert_eq!(all.len(), 50);
    assert_eq!(
        all.iter().filter(|a| a.won).count(),
        1,
        "exactly one answer decides"
    );
    let winner = all.iter().find(|a| a.won).unwrap().resolution.clone();
    assert!(all.iter().all(|a| a.resolution == winner));
    // One request and one resolution, as both replicas read the log (the one that did not
    // append the resolution reads it from NATS a moment later: waited for, within the patience).
    for url in [&a.url, &b.url] {
        let mut c = client(url).await;
        let deadline = tokio::time::Instant::now() + PATIENCE;
        let head = loop {
            let head = get_session(&mut c, "race").await.unwrap().head_offset;
            if head >= 2 || tokio::time::Instant::now() > deadline {
                break head;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        assert_eq!(head, 2);
    }
}

#[tokio::test]
async fn a_request_expires_on_another_replica_when_its_own_is_gone() {
    let nats = Nats::cluster(3);
    let (a, _da) = replica(&nats);
    let (b, _db) = replica(&nats);
    let mut ca = client(&a.url).await;
    super::publish_acked(&mut ca, ask("expiry", "perm-1", 800)).await;
    // The replica that took the request, and its timer, go before the expiry.
    drop(a);
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let resolution = resolution(&b.url, "expiry", "perm-1").await;
    assert_eq!(
        resolution.outcome,
        Some(Outcome::Expired(pb::PermissionExpired {
            option_id: "reject".into()
        }))
    );
    let mut cb = client(&b.url).await;
    assert_eq!(get_session(&mut cb, "expiry").await.unwrap().head_offset, 2);
}
