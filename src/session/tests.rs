//! Unit tests of the session layer: panics, expiry, eviction, lane lifetimes.

use tokio_stream::StreamExt;

use super::*;
use crate::domain::{CallId, CallStarted, EventBody, ToolEvent};
use crate::store::MemoryStore;
use crate::store::{Record, SessionAppend};
use lane::{Bounds, LaneRead};

fn started(n: u32) -> ToolEvent {
    ToolEvent {
        session_id: SessionId::new("s").unwrap(),
        event_id: EventId::new(format!("e{n}")).unwrap(),
        body: EventBody::CallStarted(CallStarted {
            parent: None,
            input_streaming: false,
            call_id: CallId::new(format!("c{n}")).unwrap(),
            tool_name: "job_list".into(),
            arguments_json: "{}".into(),
            view: None,
        }),
    }
}

fn live_lanes(sessions: &Sessions) -> usize {
    let entry = sessions.entry(&SessionId::new("s").unwrap());
    let lanes = entry.lanes.lock();
    lanes.values().filter(|l| l.strong_count() > 0).count()
}

/// A memory store that shows each read it serves to `watch` (which may panic, as a damaged
/// database might): where the read started and what it found.
struct WatchedReads<F>(MemoryStore, F);

#[async_trait::async_trait]
impl<F: Fn(u64, &[Record]) + Send + Sync + 'static> Store for WatchedReads<F> {
    fn name(&self) -> &'static str {
        "watched"
    }
    async fn append(&self, batch: Vec<SessionAppend>) -> Result<crate::store::Durable, StoreError> {
        self.0.append(batch).await
    }
    async fn meta(&self, session: &SessionId) -> Result<Option<SessionMeta>, StoreError> {
        self.0.meta(session).await
    }
    async fn known(
        &self,
        session: &SessionId,
        events: Vec<EventId>,
        subjects: Vec<Subject>,
    ) -> Result<crate::store::Known, StoreError> {
        self.0.known(session, events, subjects).await
    }
    async fn read(&self, s: &SessionId, after: u64, max: usize) -> Result<Vec<Record>, StoreError> {
        let read = self.0.read(s, after, max).await?;
        (self.1)(after, &read);
        Ok(read)
    }
    async fn sessions(&self) -> Result<Vec<(SessionId, SessionMeta)>, StoreError> {
        self.0.sessions().await
    }
    async fn list(
        &self,
        after: Option<SessionId>,
        limit: usize,
    ) -> Result<Vec<(SessionId, SessionMeta)>, StoreError> {
        self.0.list(after, limit).await
    }
    async fn delete(&self, session: Vec<SessionId>) -> Result<(), StoreError> {
        self.0.delete(session).await
    }
    async fn close(&self) {}

    async fn outbox(
        &self,
        max: usize,
        lease: Duration,
    ) -> Result<Arc<dyn crate::store::outbox::Outbox>, StoreError> {
        self.0.outbox(max, lease).await
    }
}

/// A panicking subscription ends its stream with INTERNAL, not as a clean end, and the
/// session goes on serving others.
#[tokio::test]
async fn a_panicking_subscription_reports_an_error() {
    let store = Arc::new(WatchedReads(MemoryStore::new(), |_, _: &[Record]| {
        panic!("page 7 is damaged")
    }));
    let sessions = Sessions::new(store, SessionsConfig::default());
    sessions.publish(vec![started(1)]).await.unwrap();
    let id = SessionId::new("s").unwrap();
    let mut sub = sessions.subscribe(
        &id,
        Target::Acp,
        Capabilities::default(),
        Start::FromBeginning,
    );
    let end = sub.next().await.expect("an item, not a clean end");
    let error = crate::error::Error::from(end.expect_err("an error"));
    assert!(
        matches!(error, crate::error::Error::Internal(_)),
        "{error:?}"
    );
    assert!(sub.next().await.is_none());
    sessions.publish(vec![started(2)]).await.unwrap();
    assert_eq!(sessions.info(&id).await.unwrap().meta.head_offset, 2);
}

/// Expired sessions leave nothing in memory, and lookups add nothing.
#[tokio::test]
async fn expired_and_looked_up_sessions_are_not_kept() {
    let config = SessionsConfig {
        session_ttl: Some(Duration::from_millis(1)),
        ..SessionsConfig::default()
    };
    let sessions = Sessions::new(Arc::new(MemoryStore::new()), config);
    for n in 0..100 {
        let mut e = started(n);
        e.session_id = SessionId::new(format!("s{n}")).unwrap();
        sessions.publish(vec![e]).await.unwrap();
    }
    assert_eq!(sessions.loaded_sessions(), 100);
    tokio::time::sleep(Duration::from_millis(5)).await;
    assert_eq!(sessions.expire().await.unwrap(), 100);
    assert_eq!(sessions.loaded_sessions(), 0);
    let unknown = SessionId::new("unknown").unwrap();
    assert!(matches!(
        sessions.info(&unknown).await,
        Err(SessionError::NotFound(_))
    ));
    assert_eq!(sessions.loaded_sessions(), 0);
}

/// Idle sessions beyond the limit are evicted, least recently used first.
#[tokio::test]
async fn idle_sessions_are_evicted() {
    let config = SessionsConfig {
        max_loaded_sessions: 100,
        ..SessionsConfig::default()
    };
    let sessions = Sessions::new(Arc::new(MemoryStore::new()), config);
    for n in 0..1000 {
        let mut e = started(n);
        e.session_id = SessionId::new(format!("s{n}")).unwrap();
        sessions.publish(vec![e]).await.unwrap();
    }
    assert!(
        sessions.loaded_sessions() <= 110,
        "{}",
        sessions.loaded_sessions()
    );
    // An evicted session reloads from the store with its rules intact.
    let mut again = started(0);
    again.session_id = SessionId::new("s0").unwrap();
    again.event_id = EventId::new("other").unwrap();
    assert!(matches!(
        sessions.publish(vec![again]).await,
        Err(SessionError::Lifecycle(_))
    ));
}

/// A lane (its fold and cache) lives only while a subscriber holds it.
#[tokio::test]
async fn lanes_go_away_with_their_last_subscriber() {
    let sessions = Sessions::new(Arc::new(MemoryStore::new()), SessionsConfig::default());
    sessions.publish(vec![started(1)]).await.unwrap();
    let mut a = sessions.subscribe(
        &SessionId::new("s").unwrap(),
        Target::Acp,
        Capabilities::default(),
        Start::FromBeginning,
    );
    let mut b = sessions.subscribe(
        &SessionId::new("s").unwrap(),
        Target::Acp,
        Capabilities::default(),
        Start::FromBeginning,
    );
    assert!(matches!(
        a.next().await,
        Some(Ok(SubscribeItem::Update { .. }))
    ));
    assert!(matches!(
        b.next().await,
        Some(Ok(SubscribeItem::Update { .. }))
    ));
    assert_eq!(live_lanes(&sessions), 1, "both subscribers share one lane");
    drop(a);
    drop(b);
    // The subscription tasks notice the closed streams and end.
    for _ in 0..200 {
        if live_lanes(&sessions) == 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("the lane outlived its subscribers");
}

/// A lane reads the next events while it renders: each read past the first is made while
/// the events before it render (so a later read finds them read), and what the lane serves,
/// in reads of any size, is every event once, in order, rendered as one fold renders them.
#[tokio::test]
async fn a_lane_reads_ahead_and_serves_every_event_once() {
    const EVENTS: u32 = 3_000;
    let reads: Arc<parking_lot::Mutex<Vec<(u64, usize)>>> = Arc::default();
    let seen = reads.clone();
    let store = Arc::new(WatchedReads(
        MemoryStore::new(),
        move |after, read: &[Record]| {
            seen.lock().push((after, read.len()));
        },
    ));
    let sessions = Sessions::new(store.clone(), SessionsConfig::default());
    let events: Vec<ToolEvent> = (1..=EVENTS).map(started).collect();
    for chunk in events.chunks(100) {
        sessions.publish(chunk.to_vec()).await.unwrap();
    }
    reads.lock().clear();
    let caps = Capabilities::default();
    let lane = Lane::new(
        SessionId::new("s").unwrap(),
        Target::Acp,
        caps,
        1,
        Bounds {
            count: 1024,
            bytes: usize::MAX,
        },
        usize::MAX,
        sessions.lane_metrics(),
    );
    let mut served = Vec::new();
    let mut first_call_reads = None;
    for want in [700, 1, 1024, 333, 1024, 1024].iter().cycle() {
        let after = served.last().map_or(0, |d: &Arc<Delivered>| d.offset);
        if after == u64::from(EVENTS) {
            break;
        }
        let bounds = Bounds {
            count: *want,
            bytes: usize::MAX,
        };
        let LaneRead::Updates(updates) = lane
            .read(&*store, after, u64::from(EVENTS), bounds)
            .await
            .unwrap()
        else {
            panic!("a complete log reads as updates");
        };
        assert!(!updates.is_empty() && updates.len() <= *want);
        served.extend(updates);
        first_call_reads.get_or_insert_with(|| reads.lock().clone());
    }
    let first_call_reads = first_call_reads.unwrap();
    assert!(
        first_call_reads.iter().any(|&(after, _)| after >= 700),
        "the first read of 700 read past them: {first_call_reads:?}"
    );
    let offsets: Vec<u64> = served.iter().map(|d| d.offset).collect();
    assert_eq!(offsets, (1..=u64::from(EVENTS)).collect::<Vec<_>>());
    let mut fold = crate::render::Renderer::new("", Target::Acp, caps, usize::MAX);
    for (event, delivered) in events.iter().zip(&served) {
        assert_eq!(delivered.rendered, fold.step(event).0);
    }
    // Each event was read once: reads ahead are used, not read again.
    let reads = reads.lock().clone();
    let read_events: usize = reads.iter().map(|&(_, n)| n).sum();
    assert_eq!(read_events, EVENTS as usize, "{reads:?}");
}

/// A session in five batches: a turn, two calls, output and a message, a prompt, a failed call
/// and the turn's end at the model's limit.
fn varied_session() -> Vec<Vec<ToolEvent>> {
    use crate::domain::permission::{OptionKind, PermissionOption, PermissionRequested, RequestId};
    use crate::domain::{
        CallFinished, CallOutput, MessageId, MessageRole, MessageStarted, StopReason, TurnFinished,
        TurnId, TurnStarted,
    };
    let ev = |id: &str, body: EventBody| ToolEvent {
        session_id: SessionId::new("s").unwrap(),
        event_id: EventId::new(id).unwrap(),
        body,
    };
    let turn = || TurnId::new("t1").unwrap();
    let option = |id: &str, kind| PermissionOption {
        option_id: id.into(),
        name: id.into(),
        kind,
    };
    vec![
        vec![ev(
            "e1",
            EventBody::TurnStarted(TurnStarted { turn_id: turn() }),
        )],
        vec![started(2), started(3)],
        vec![
            ev(
                "o1",
                EventBody::CallOutput(CallOutput {
                    call_id: CallId::new("c2").unwrap(),
                    data: "x".into(),
                }),
            ),
            ev(
                "m1",
                EventBody::MessageStarted(MessageStarted {
                    message_id: MessageId::new("m1").unwrap(),
                    role: MessageRole::Assistant,
                    text: "Checking the jobs.".into(),
                    parent: None,
                }),
            ),
        ],
        vec![ev(
            "p1",
            EventBody::PermissionRequested(PermissionRequested {
                request_id: RequestId::new("p1").unwrap(),
                call_id: Some(CallId::new("c3").unwrap()),
                title: "Cancel job 7?".into(),
                description: String::new(),
                options: vec![
                    option("allow", OptionKind::AllowOnce),
                    option("reject", OptionKind::RejectOnce),
                ],
                expiry_option_id: "reject".into(),
                timeout_ms: 0,
                expires_at_ms: 0,
            }),
        )],
        vec![
            ev(
                "f2",
                EventBody::CallFinished(CallFinished {
                    call_id: CallId::new("c2").unwrap(),
                    content: Vec::new(),
                    is_error: true,
                    meta_json: String::new(),
                    view: None,
                }),
            ),
            ev(
                "t1e",
                EventBody::TurnFinished(TurnFinished {
                    turn_id: turn(),
                    stop_reason: StopReason::MaxTokens,
                    usage: None,
                }),
            ),
        ],
    ]
}

/// The summary kept with a log is the fold of that log: a replay of the log gives the same
/// summary, and so does deriving one for a log written before summaries.
#[tokio::test]
async fn a_replayed_log_gives_the_summary_kept_with_it() {
    use crate::domain::SessionSummary;
    let batches = varied_session();
    let store = Arc::new(MemoryStore::new());
    let config = SessionsConfig {
        clock: Clock::new(|| 1_000),
        ..SessionsConfig::default()
    };
    let sessions = Sessions::new(store.clone(), config);
    for batch in batches {
        sessions.publish(batch).await.unwrap();
    }
    let id = SessionId::new("s").unwrap();
    let kept = sessions.info(&id).await.unwrap().meta.summary.unwrap();
    assert_eq!(kept.state(), crate::domain::SessionState::RequiresAction);
    assert_eq!((kept.open_calls, kept.failed_calls, kept.turns), (1, 1, 1));
    assert_eq!(kept.activity, "Checking the jobs.");
    let mut replayed = SessionSummary::default();
    for r in store.read(&id, 0, 100).await.unwrap() {
        replayed.apply(&r.event, 1_000, &summary::call_title);
    }
    assert_eq!(replayed, kept);
    let mut old = store.meta(&id).await.unwrap().unwrap();
    old.summary = None;
    summary::backfill(&*store, &id, &mut old).await.unwrap();
    assert_eq!(old.summary, Some(kept));
}
