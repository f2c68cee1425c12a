//! The session layer's timers and limits under tokio's paused clock: heartbeats on an idle
//! subscription come after the interval (and not before), and a subscriber that stops reading
//! while the session moves on is ended at the lag limit. No sleeps: the clock advances only when every task waits.
//! (TTL expiry follows the wall clock of stored timestamps, so it is tested on a real server in
//! `tests/memory.rs`.)

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio_stream::StreamExt as _;
use toolview::domain::{CallId, CallOutput, EventBody, EventId, SessionId, ToolEvent};
use toolview::render::{Capabilities, Target};
use toolview::session::{
    Clock, SessionError, Sessions, SessionsConfig, Start, SubscribeItem, Subscription,
};
use toolview::store::MemoryStore;

fn event(n: usize) -> ToolEvent {
    if n == 1 {
        return support::started(1, "c", "bash", &serde_json::json!({"command": "ls"}), None);
    }
    ToolEvent {
        session_id: SessionId::new("s").unwrap(),
        event_id: EventId::new(format!("e{n}")).unwrap(),
        body: EventBody::CallOutput(CallOutput {
            call_id: CallId::new("c").unwrap(),
            data: format!("line {n}\n"),
        }),
    }
}

fn sessions(config: SessionsConfig) -> Arc<Sessions> {
    Sessions::new(Arc::new(MemoryStore::new()), config)
}

fn session_of(e: ToolEvent) -> ToolEvent {
    ToolEvent {
        session_id: SessionId::new("s").unwrap(),
        ..e
    }
}

/// Session `s` with its first event, and a subscription from its beginning.
async fn published_and_subscribed(s: &Arc<Sessions>) -> Subscription {
    s.publish(vec![session_of(event(1))]).await.unwrap();
    s.subscribe(
        &SessionId::new("s").unwrap(),
        Target::Ansi,
        Capabilities::all(true),
        Start::FromBeginning,
    )
}

#[tokio::test(start_paused = true)]
async fn heartbeats_come_after_the_interval_of_silence() {
    let interval = Duration::from_secs(15);
    let s = sessions(SessionsConfig {
        heartbeat_interval: interval,
        ..SessionsConfig::default()
    });
    let mut sub = published_and_subscribed(&s).await;
    let first = sub.next().await.unwrap().unwrap();
    assert!(matches!(first, SubscribeItem::Update { .. }), "{first:?}");
    let quiet = tokio::time::Instant::now();
    match sub.next().await.unwrap().unwrap() {
        SubscribeItem::Heartbeat { head } => assert_eq!(head, 1),
        other => panic!("expected a heartbeat, got {other:?}"),
    }
    let waited = quiet.elapsed();
    assert!(
        waited >= interval && waited < interval * 2,
        "a heartbeat after {waited:?} of silence"
    );
    // An update resets the silence: the next heartbeat is an interval after it.
    tokio::time::advance(interval / 3).await;
    s.publish(vec![session_of(event(2))]).await.unwrap();
    let update = sub.next().await.unwrap().unwrap();
    let at = tokio::time::Instant::now();
    assert!(matches!(update, SubscribeItem::Update { .. }), "{update:?}");
    assert!(matches!(
        sub.next().await.unwrap().unwrap(),
        SubscribeItem::Heartbeat { head: 2 }
    ));
    assert!(at.elapsed() >= interval, "{:?}", at.elapsed());
    s.close().await;
}

#[tokio::test(start_paused = true)]
async fn a_subscriber_that_stops_reading_ends_at_the_lag_limit() {
    let s = sessions(SessionsConfig {
        subscriber_lag_limit: 50,
        ..SessionsConfig::default()
    });
    let mut sub = published_and_subscribed(&s).await;
    assert!(matches!(
        sub.next().await.unwrap().unwrap(),
        SubscribeItem::Update { .. }
    ));
    // The subscriber stops reading while 1,000 more events arrive, 100 at a time; between
    // publishes its task runs, fills the stream's buffer and waits on it while the head moves.
    for chunk in (2..=1001).collect::<Vec<_>>().chunks(100) {
        let events = chunk.iter().map(|&n| session_of(event(n))).collect();
        s.publish(events).await.unwrap();
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // Blocked on the full buffer, it checks its lag now and then.
    tokio::time::sleep(Duration::from_secs(1)).await;
    // What it reads now: buffered updates, then the end.
    let mut read = 0;
    let end = loop {
        match sub.next().await {
            Some(Ok(SubscribeItem::Update { .. })) => read += 1,
            Some(Ok(other)) => panic!("unexpected {other:?}"),
            Some(Err(e)) => break e,
            None => panic!("the stream ended without an error after {read} updates"),
        }
    };
    assert!(
        matches!(end, SessionError::Lagging { limit: 50, .. }),
        "{end:?}"
    );
    assert!(
        read < 1000,
        "it was ended before it read everything ({read})"
    );
    s.close().await;
}

#[tokio::test(start_paused = true)]
async fn sessions_idle_past_the_ttl_expire_and_others_stay() {
    let now = Arc::new(AtomicU64::new(1_700_000_000_000));
    let clock = {
        let now = now.clone();
        Clock::new(move || now.load(Ordering::Relaxed))
    };
    let s = sessions(SessionsConfig {
        session_ttl: Some(Duration::from_secs(60)),
        clock,
        ..SessionsConfig::default()
    });
    let id = |name: &str| SessionId::new(name).unwrap();
    let in_session = |name: &str, n: usize| ToolEvent {
        session_id: id(name),
        ..event(n)
    };
    s.publish(vec![in_session("old", 1)]).await.unwrap();
    s.publish(vec![in_session("busy", 1)]).await.unwrap();
    // 59 s on, nothing has expired; then "busy" moves.
    now.fetch_add(59_000, Ordering::Relaxed);
    assert_eq!(s.expire().await.unwrap(), 0);
    s.publish(vec![in_session("busy", 2)]).await.unwrap();
    // 2 s more: "old" has been idle 61 s, "busy" 2 s.
    now.fetch_add(2_000, Ordering::Relaxed);
    assert_eq!(s.expire().await.unwrap(), 1);
    assert!(matches!(
        s.info(&id("old")).await,
        Err(SessionError::NotFound(_))
    ));
    assert_eq!(s.info(&id("busy")).await.unwrap().meta.head_offset, 2);
    s.close().await;
}
