//! Webhooks over three JetStream replicas and a real receiver: every replica can send every
//! delivery, and each is sent by one (each delivery id arrives once); a replica killed while
//! its attempt is in flight leaves the delivery to another, which sends it.

use std::time::Duration;

use support::nats::Nats;
use support::permissions::{asking, requested};
use support::process::{ServerProcess, sample, scrape};
use support::sessions::*;
use support::webhooks::{Receiver, hooks_file, ids, new_secret};
use toolview::grpc::pb;
use toolview::grpc::pb::tool_event::Event;

use super::{publish_acked, replica_with};

const PROMPTS: usize = 5;

fn metric(server: &ServerProcess, series: &str) -> f64 {
    sample(&scrape(server.metrics.as_deref().unwrap()), series)
}

fn failed_turn(s: &str) -> [pb::ToolEvent; 2] {
    let start = Event::TurnStarted(pb::TurnStarted {
        turn_id: "t1".into(),
    });
    let end = Event::TurnFinished(pb::TurnFinished {
        turn_id: "t1".into(),
        stop_reason: pb::StopReason::MaxTokens as i32,
        usage: None,
    });
    [ev(s, "e1", start), ev(s, "e2", end)]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_delivery_is_sent_by_one_replica_and_still_sent_when_its_sender_dies() {
    let nats = Nats::cluster(3);
    let dir = tempfile::tempdir().unwrap();
    let secret = new_secret();
    let receiver = Receiver::start(0, &secret, dir.path());
    let hooks = hooks_file(
        dir.path(),
        receiver.port,
        &secret,
        &["requires_action", "failed"],
    );
    let extra = [
        "--webhooks-file",
        hooks.to_str().unwrap(),
        "--webhook-timeout-ms",
        "3000",
        "--webhook-retry-max-ms",
        "1000",
        "--metrics-listen",
        "127.0.0.1:0",
    ];
    let mut replicas: Vec<_> = (0..3).map(|_| replica_with(&nats, &extra)).collect();
    // Prompts published through each replica in turn: two hooks want each.
    for i in 0..PROMPTS {
        let mut c = client(&replicas[i % 3].0.url).await;
        let ask = asking(&format!("s{i}"), requested("p1", "", "Deploy?"));
        publish_acked(&mut c, ask).await;
    }
    receiver.wait_for(Duration::from_secs(60), |a| {
        ids(a, "/ops", |_| true).len() >= PROMPTS
            && a.iter().filter(|x| x["path"] == "/slack").count() >= PROMPTS
    });
    tokio::time::sleep(Duration::from_secs(3)).await;
    let arrivals = receiver.arrivals();
    let ops = ids(&arrivals, "/ops", |a| a["verified"] == true);
    assert_eq!(ops.len(), PROMPTS, "{arrivals:#?}");
    let distinct: std::collections::BTreeSet<&String> = ops.iter().collect();
    assert_eq!(
        distinct.len(),
        PROMPTS,
        "each delivery id once: {arrivals:#?}"
    );
    let slack = arrivals.iter().filter(|a| a["path"] == "/slack").count();
    assert_eq!(slack, PROMPTS, "{arrivals:#?}");
    let delivered = "toolview_webhook_deliveries_total{outcome=\"delivered\"}";
    let sent: Vec<f64> = replicas.iter().map(|(r, _)| metric(r, delivered)).collect();
    println!("deliveries sent by each replica: {sent:?}");
    assert_eq!(sent.iter().sum::<f64>(), (2 * PROMPTS) as f64);

    // The next attempt is held open by the receiver; the replica making it is killed.
    receiver.set_mode("hold");
    let mut c = client(&replicas[0].0.url).await;
    for event in failed_turn("held") {
        publish_acked(&mut c, event).await;
    }
    let deadline = std::time::Instant::now() + PATIENCE;
    let held_by = loop {
        let sending: Vec<f64> = replicas
            .iter()
            .map(|(r, _)| metric(r, "toolview_webhook_sending"))
            .collect();
        if let Some(i) = sending.iter().position(|&n| n > 0.0) {
            break i;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no replica took the delivery"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    replicas[held_by].0.kill();
    receiver.set_mode("ok");
    let arrivals = receiver.wait_for(Duration::from_secs(60), |a| {
        a.iter()
            .any(|x| x["body"]["data"]["sessionId"] == "held" && x["mode"] == "ok")
    });
    let held: Vec<_> = arrivals
        .iter()
        .filter(|x| x["body"]["data"]["sessionId"] == "held")
        .collect();
    println!("replica {held_by} was killed holding the delivery; attempts: {held:#?}");
    assert!(
        held.iter()
            .all(|x| x["verified"] == true && x["id"] == held[0]["id"])
    );
    assert_eq!(
        held[0]["mode"], "hold",
        "the killed replica's attempt came first"
    );
}
