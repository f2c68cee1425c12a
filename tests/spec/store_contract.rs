//! The store contract: one suite every backend passes (memory, embedded, and JetStream on a real
//! `nats-server`). Each contract is a function over a [`Backend`], which opens the store (again,
//! for durable backends) and, where it can, damages a stored record.

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use toolview::domain::{CallId, EventId, MessageId, Phase, SessionId, SessionSummary, Subject};
use toolview::grpc::StorageCodec;
#[cfg(feature = "jetstream")]
use toolview::store::JetStreamStore;
use toolview::store::outbox::{Delivery, Enqueued};
use toolview::store::{
    EmbeddedStore, MemoryStore, Record, SessionAppend, SessionMeta, Store, StoreError, new_epoch,
    now_ms,
};

type Opened<'a> = Pin<Box<dyn Future<Output = Arc<dyn Store>> + 'a>>;

/// A store implementation under test.
trait Backend {
    fn name(&self) -> &'static str;
    /// Opens the store; a durable backend opens the same data again after a close.
    fn open(&self) -> Opened<'_>;
    /// Whether a closed and reopened store still holds what it acknowledged.
    fn durable(&self) -> bool;
    /// Whether `sessions()` lists the sessions (JetStream leaves expiry to the stream's
    /// `max_age` and lists none).
    fn lists_sessions(&self) -> bool {
        true
    }
    /// Damages the stored bytes of the event whose text contains `marker` (the store is
    /// closed); `false` if the backend keeps no bytes to damage.
    fn damage(&self, marker: &[u8]) -> bool;
}

struct Memory(Arc<MemoryStore>);

impl Backend for Memory {
    fn name(&self) -> &'static str {
        "memory"
    }
    fn open(&self) -> Opened<'_> {
        Box::pin(async { self.0.clone() as Arc<dyn Store> })
    }
    fn durable(&self) -> bool {
        false
    }
    fn damage(&self, _marker: &[u8]) -> bool {
        false
    }
}

struct Embedded {
    dir: tempfile::TempDir,
}

impl Embedded {
    fn file(&self) -> PathBuf {
        let entries = std::fs::read_dir(self.dir.path()).unwrap();
        entries
            .map(|e| e.unwrap().path())
            .find(|p| p.is_file())
            .expect("the database file")
    }
}

impl Backend for Embedded {
    fn name(&self) -> &'static str {
        "embedded"
    }
    fn open(&self) -> Opened<'_> {
        Box::pin(async {
            Arc::new(EmbeddedStore::open(self.dir.path(), 4 << 20, Arc::new(StorageCodec)).unwrap())
                as Arc<dyn Store>
        })
    }
    fn durable(&self) -> bool {
        true
    }
    fn damage(&self, marker: &[u8]) -> bool {
        let path = self.file();
        let mut bytes = std::fs::read(&path).unwrap();
        let at = bytes
            .windows(marker.len())
            .position(|w| w == marker)
            .expect("the marker is in the file");
        bytes[at] ^= 0x20;
        std::fs::write(&path, bytes).unwrap();
        true
    }
}

/// A real `nats-server` (one node, JetStream on), and the stream in it.
#[cfg(feature = "jetstream")]
struct JetStream {
    nats: support::nats::Nats,
}

#[cfg(feature = "jetstream")]
impl Backend for JetStream {
    fn name(&self) -> &'static str {
        "jetstream"
    }
    fn open(&self) -> Opened<'_> {
        Box::pin(async {
            let options = support::nats::store_options(&self.nats, 1);
            Arc::new(
                JetStreamStore::open(options, Arc::new(StorageCodec))
                    .await
                    .unwrap(),
            ) as Arc<dyn Store>
        })
    }
    fn durable(&self) -> bool {
        true
    }
    fn lists_sessions(&self) -> bool {
        false
    }
    fn damage(&self, _marker: &[u8]) -> bool {
        // Stored messages cannot be changed in place; tests/jetstream.rs stores a message that
        // is not a record instead.
        false
    }
}

/// Memory, embedded, and (with the `jetstream` feature, as `scripts/test.sh` builds) JetStream.
fn backends() -> Vec<Box<dyn Backend>> {
    let backends: Vec<Box<dyn Backend>> = vec![
        Box::new(Memory(Arc::new(MemoryStore::new()))),
        Box::new(Embedded {
            dir: tempfile::tempdir().unwrap(),
        }),
    ];
    #[cfg(feature = "jetstream")]
    let backends = {
        let mut all = backends;
        all.push(Box::new(JetStream {
            nats: support::nats::Nats::single(),
        }));
        all
    };
    backends
}

fn sid(s: &str) -> SessionId {
    SessionId::new(s).unwrap()
}

/// The events `from..=to` of session `s` (call `c` started at 1, output after).
fn records(s: &str, from: u64, to: u64) -> Vec<Record> {
    (from..=to)
        .map(|n| {
            let body = if n == 1 {
                support::started(
                    n as usize,
                    "c",
                    "bash",
                    &serde_json::json!({"command": "ls"}),
                    None,
                )
                .body
            } else {
                toolview::domain::EventBody::CallOutput(toolview::domain::CallOutput {
                    call_id: CallId::new("c").unwrap(),
                    data: format!("line {n} of {s}\n"),
                })
            };
            Record {
                offset: n,
                event: Arc::new(toolview::domain::ToolEvent {
                    session_id: sid(s),
                    event_id: EventId::new(format!("e{n}")).unwrap(),
                    body,
                }),
            }
        })
        .collect()
}

fn meta(prev: Option<&SessionMeta>, first: u64, head: u64) -> SessionMeta {
    SessionMeta {
        epoch: prev.map_or_else(new_epoch, |m| m.epoch.clone()),
        first_offset: first,
        head_offset: head,
        created_ms: prev.map_or(1, |m| m.created_ms),
        updated_ms: head,
        calls: 1,
        title: prev.map_or_else(String::new, |m| m.title.clone()),
        cwd: prev.map_or_else(String::new, |m| m.cwd.clone()),
        // Every store keeps the summary beside the log (here a stand-in that changes with each
        // append, so a store that kept an older one fails).
        summary: Some(SessionSummary {
            turns: head,
            activity: format!("step {head}"),
            activity_ms: head,
            ..SessionSummary::default()
        }),
    }
}

fn call() -> Subject {
    Subject::call(&CallId::new("c").unwrap())
}

fn message() -> Subject {
    Subject::message(&MessageId::new("c").unwrap())
}

fn append(s: &str, meta: SessionMeta, records: Vec<Record>, trim: Option<u64>) -> SessionAppend {
    let phase = Phase {
        started: true,
        finished: false,
        input_open: false,
    };
    // Call `c` starts with its input streaming when its start is a streaming one (`k1`).
    let streaming = records.iter().any(|r| {
        matches!(&r.event.body, toolview::domain::EventBody::CallStarted(s) if s.input_streaming)
    });
    let call_phase = Phase {
        input_open: streaming,
        ..phase
    };
    SessionAppend {
        session: sid(s),
        meta,
        records,
        trim_before: trim,
        phases: vec![(call(), call_phase), (message(), phase)],
        loaded_at: 0,
    }
}

/// Appends and waits until it is durable.
async fn committed(store: &dyn Store, batch: Vec<SessionAppend>) {
    store.append(batch).await.unwrap().await.unwrap();
}

async fn offsets(store: &dyn Store, s: &str, after: u64, max: usize) -> Vec<u64> {
    let read = store.read(&sid(s), after, max).await.unwrap();
    read.iter().map(|r| r.offset).collect()
}

/// Appends enqueued back to back apply in order; each resolves durable; reads see them.
async fn appends_apply_in_order(b: &dyn Backend) {
    let store = b.open().await;
    let m1 = meta(None, 1, 3);
    let first = store
        .append(vec![append("a", m1.clone(), records("a", 1, 3), None)])
        .await
        .unwrap();
    let second = store
        .append(vec![append(
            "a",
            meta(Some(&m1), 1, 5),
            records("a", 4, 5),
            None,
        )])
        .await
        .unwrap();
    second.await.unwrap();
    first.await.unwrap();
    assert_eq!(
        offsets(&*store, "a", 0, 100).await,
        [1, 2, 3, 4, 5],
        "{}",
        b.name()
    );
    let read = store.read(&sid("a"), 0, 100).await.unwrap();
    assert_eq!(*read[3].event, *records("a", 4, 4)[0].event, "{}", b.name());
    assert_eq!(
        store.meta(&sid("a")).await.unwrap().map(|m| m.head_offset),
        Some(5)
    );
    // The summary is the last append's.
    assert_eq!(
        store.meta(&sid("a")).await.unwrap().and_then(|m| m.summary),
        meta(Some(&m1), 1, 5).summary,
        "{}",
        b.name()
    );
    store.close().await;
}

/// `read(after, max)` returns at most `max` events after `after`, in order; nothing for an
/// unknown session or past the head.
async fn reads_take_ranges(b: &dyn Backend) {
    let store = b.open().await;
    let done = store
        .append(vec![append(
            "r",
            meta(None, 1, 6),
            records("r", 1, 6),
            None,
        )])
        .await
        .unwrap();
    done.await.unwrap();
    let name = b.name();
    assert_eq!(offsets(&*store, "r", 0, 2).await, [1, 2], "{name}");
    assert_eq!(offsets(&*store, "r", 2, 100).await, [3, 4, 5, 6], "{name}");
    assert_eq!(offsets(&*store, "r", 5, 1).await, [6], "{name}");
    assert!(offsets(&*store, "r", 6, 10).await.is_empty(), "{name}");
    assert!(offsets(&*store, "nobody", 0, 10).await.is_empty(), "{name}");
    assert!(
        store.meta(&sid("nobody")).await.unwrap().is_none(),
        "{name}"
    );
    store.close().await;
}

/// Several sessions in one append are applied together; `known` answers for ids and calls.
async fn known_ids_and_calls(b: &dyn Backend) {
    let store = b.open().await;
    // Event 2 starts message `c`: a store that rebuilds phases from its log (JetStream) must
    // keep it apart from call `c`, as the others keep the phases they are given.
    let mut k1 = records("k1", 1, 2);
    let started = toolview::domain::EventBody::MessageStarted(toolview::domain::MessageStarted {
        parent: None,
        message_id: MessageId::new("c").unwrap(),
        role: toolview::domain::MessageRole::Assistant,
        text: "hi".into(),
    });
    k1[1].event = Arc::new(toolview::domain::ToolEvent {
        body: started,
        ..(*k1[1].event).clone()
    });
    // Call `c`'s input streams: every store keeps that its input is open.
    if let toolview::domain::EventBody::CallStarted(s) = &mut Arc::make_mut(&mut k1[0].event).body {
        s.input_streaming = true;
    }
    let done = store
        .append(vec![
            append("k1", meta(None, 1, 2), k1, None),
            append("k2", meta(None, 1, 1), records("k2", 1, 1), None),
        ])
        .await
        .unwrap();
    done.await.unwrap();
    let ids = |v: &[&str]| v.iter().map(|i| EventId::new(*i).unwrap()).collect();
    let known = store
        .known(
            &sid("k1"),
            ids(&["e1", "e2", "e9"]),
            vec![
                call(),
                message(),
                Subject::turn(&toolview::domain::TurnId::new("c").unwrap()),
            ],
        )
        .await
        .unwrap();
    assert_eq!(known.events.len(), 2, "{}", b.name());
    assert_eq!(known.events[&EventId::new("e2").unwrap()], 2);
    assert!(known.phases[&call()].started, "{}", b.name());
    assert!(known.phases[&call()].input_open, "{}", b.name());
    // A message's phase is kept apart from the call with the same id; the turn was never seen.
    assert!(known.phases[&message()].started, "{}", b.name());
    assert_eq!(known.phases.len(), 2, "{}", b.name());
    let other = store.known(&sid("k3"), ids(&["e1"]), vec![]).await.unwrap();
    assert!(other.events.is_empty() && other.phases.is_empty());
    if b.lists_sessions() {
        let mut listed: Vec<String> = store
            .sessions()
            .await
            .unwrap()
            .into_iter()
            .map(|(s, _)| s.to_string())
            .collect();
        listed.sort();
        assert_eq!(listed, ["k1", "k2"], "{}", b.name());
    }
    store.close().await;
}

/// `list` pages through the sessions in id order after a page token, each with its metadata,
/// on every backend (JetStream reads the stream's subjects); a deleted session is not listed.
async fn lists_a_page_at_a_time(b: &dyn Backend) {
    let store = b.open().await;
    let names = ["team-a/s.1", "b", "a", "team-a/s:2", "c"];
    let batch = names
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let head = i as u64 + 1;
            let mut m = meta(None, 1, head);
            if *s == "a" {
                // Kept as given, whatever the text (JetStream carries it in headers).
                m.title = "Fix the tests: ünïcode, 'quotes' and \"more\"".into();
                m.cwd = "/work/proj".into();
            }
            append(s, m, records(s, 1, head), None)
        })
        .collect();
    committed(&*store, batch).await;
    let page = |after: Option<&str>, limit| {
        let store = store.clone();
        let after = after.map(sid);
        async move { store.list(after, limit).await.unwrap() }
    };
    let first = page(None, 2).await;
    let ids: Vec<&str> = first.iter().map(|(s, _)| s.as_str()).collect();
    assert_eq!(ids, ["a", "b"], "{}", b.name());
    assert_eq!(
        (first[0].1.first_offset, first[0].1.head_offset),
        (1, 3),
        "{}",
        b.name()
    );
    assert_eq!(
        (first[0].1.title.as_str(), first[0].1.cwd.as_str()),
        (
            "Fix the tests: ünïcode, 'quotes' and \"more\"",
            "/work/proj"
        ),
        "{}",
        b.name()
    );
    assert_eq!(first[1].1.title, "", "{}", b.name());
    let rest = page(Some("b"), 10).await;
    let ids: Vec<&str> = rest.iter().map(|(s, _)| s.as_str()).collect();
    assert_eq!(ids, ["c", "team-a/s.1", "team-a/s:2"], "{}", b.name());
    assert_eq!(rest[1].1.head_offset, 1, "{}", b.name());
    assert!(
        page(Some("team-a/s:2"), 10).await.is_empty(),
        "{}",
        b.name()
    );
    store.delete(vec![sid("c")]).await.unwrap();
    let ids: Vec<String> = page(Some("b"), 1)
        .await
        .into_iter()
        .map(|(s, _)| s.to_string())
        .collect();
    assert_eq!(ids, ["team-a/s.1"], "{}", b.name());
    store.close().await;
}

/// Retention deletes the events before `trim_before` and forgets their ids.
async fn trims_forget_old_events(b: &dyn Backend) {
    let store = b.open().await;
    let m = meta(None, 1, 4);
    committed(
        &*store,
        vec![append("t", m.clone(), records("t", 1, 4), None)],
    )
    .await;
    committed(
        &*store,
        vec![append(
            "t",
            meta(Some(&m), 4, 6),
            records("t", 5, 6),
            Some(4),
        )],
    )
    .await;
    assert_eq!(
        offsets(&*store, "t", 0, 100).await,
        [4, 5, 6],
        "{}",
        b.name()
    );
    assert_eq!(
        store.meta(&sid("t")).await.unwrap().unwrap().first_offset,
        4
    );
    let known = store
        .known(
            &sid("t"),
            vec![EventId::new("e1").unwrap(), EventId::new("e5").unwrap()],
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(
        known.events.keys().map(EventId::as_str).collect::<Vec<_>>(),
        ["e5"],
        "{}",
        b.name()
    );
    store.close().await;
}

/// Deleting a session removes its log, its ids and its calls, and nothing else.
async fn deletes_remove_one_session(b: &dyn Backend) {
    let store = b.open().await;
    committed(
        &*store,
        vec![
            append("d1", meta(None, 1, 2), records("d1", 1, 2), None),
            append("d2", meta(None, 1, 2), records("d2", 1, 2), None),
        ],
    )
    .await;
    store.delete(vec![sid("d1")]).await.unwrap();
    assert!(
        store.meta(&sid("d1")).await.unwrap().is_none(),
        "{}",
        b.name()
    );
    assert!(offsets(&*store, "d1", 0, 10).await.is_empty());
    let known = store
        .known(
            &sid("d1"),
            vec![EventId::new("e1").unwrap()],
            vec![call(), message()],
        )
        .await
        .unwrap();
    assert!(
        known.events.is_empty() && known.phases.is_empty(),
        "{}",
        b.name()
    );
    assert_eq!(offsets(&*store, "d2", 0, 10).await, [1, 2]);
    store.close().await;
}

/// A durable backend holds everything it acknowledged after a close and a reopen.
async fn reopens_with_everything(b: &dyn Backend) {
    if !b.durable() {
        return;
    }
    let store = b.open().await;
    let m = meta(None, 1, 3);
    committed(
        &*store,
        vec![append("p", m.clone(), records("p", 1, 3), None)],
    )
    .await;
    store.close().await;
    drop(store);
    let store = b.open().await;
    assert_eq!(
        store.meta(&sid("p")).await.unwrap(),
        Some(m),
        "{}",
        b.name()
    );
    let read = store.read(&sid("p"), 0, 10).await.unwrap();
    let want = records("p", 1, 3);
    assert_eq!(read.len(), 3);
    for (got, want) in read.iter().zip(&want) {
        assert_eq!((got.offset, &*got.event), (want.offset, &*want.event));
    }
    store.close().await;
}

/// Ids stay known for as long as their events are kept: past JetStream's dedup window (1 s in
/// these tests) and across a reopen, which rebuilds a backend's index from the log.
async fn ids_outlast_the_dedup_window(b: &dyn Backend) {
    let store = b.open().await;
    committed(
        &*store,
        vec![append("w", meta(None, 1, 2), records("w", 1, 2), None)],
    )
    .await;
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let ask = |store: Arc<dyn Store>| async move {
        let known = store
            .known(&sid("w"), vec![EventId::new("e2").unwrap()], vec![])
            .await
            .unwrap();
        known.events.get(&EventId::new("e2").unwrap()).copied()
    };
    assert_eq!(ask(store.clone()).await, Some(2), "{}", b.name());
    if b.durable() {
        store.close().await;
        drop(store);
        assert_eq!(ask(b.open().await).await, Some(2), "{} reopened", b.name());
    }
}

/// A damaged record is reported as corrupt, for its session only; the records before it are
/// still served.
async fn damaged_records_are_corrupt(b: &dyn Backend) {
    let store = b.open().await;
    // A large value of its own (an overflow page written once), so the marker is found in the
    // live record and nowhere else.
    let marker = "DAMAGE-ME-0123456789";
    let mut x = records("x", 1, 2);
    x.push(Record {
        offset: 3,
        event: Arc::new(toolview::domain::ToolEvent {
            session_id: sid("x"),
            event_id: EventId::new("e3").unwrap(),
            body: toolview::domain::EventBody::CallOutput(toolview::domain::CallOutput {
                call_id: CallId::new("c").unwrap(),
                data: format!("{}{marker}{}", "a".repeat(20_000), "b".repeat(20_000)),
            }),
        }),
    });
    committed(
        &*store,
        vec![
            append("x", meta(None, 1, 3), x, None),
            append("y", meta(None, 1, 2), records("y", 1, 2), None),
        ],
    )
    .await;
    store.close().await;
    drop(store);
    if !b.damage(marker.as_bytes()) {
        return;
    }
    let store = b.open().await;
    assert_eq!(offsets(&*store, "x", 0, 2).await, [1, 2], "{}", b.name());
    match store.read(&sid("x"), 2, 10).await {
        Err(StoreError::Corrupt(why)) => assert!(why.contains("offset 3"), "{why}"),
        other => panic!("{}: expected Corrupt, got {other:?}", b.name()),
    }
    assert_eq!(offsets(&*store, "y", 0, 10).await, [1, 2], "{}", b.name());
    store.close().await;
}

/// The webhooks' queue: a delivery queued once per id, up to the limit; taken one at a time;
/// gone once done; back when put back or left unsettled (at once locally, after the lease on
/// JetStream); and, on a durable backend, all of it and the link key kept across a reopen.
async fn outbox_holds_deliveries_until_settled(b: &dyn Backend) {
    const WAIT: Duration = Duration::from_secs(5);
    let store = b.open().await;
    let outbox = store.outbox(3, Duration::from_secs(2)).await.unwrap();
    let key = outbox.link_key().await.unwrap();
    assert_eq!(key.len(), 32);
    let now = now_ms();
    let d = |id: &str| Delivery {
        id: id.into(),
        hook: "h".into(),
        session: "s".into(),
        body: format!(r#"{{"id":"{id}"}}"#),
        created_ms: now,
        due_ms: now,
        only_at_head: None,
    };
    let name = b.name();
    assert_eq!(
        outbox.enqueue(d("a")).await.unwrap(),
        Enqueued::Added,
        "{name}"
    );
    assert_eq!(
        outbox.enqueue(d("a")).await.unwrap(),
        Enqueued::Duplicate,
        "{name}"
    );
    for id in ["b", "c"] {
        assert_eq!(
            outbox.enqueue(d(id)).await.unwrap(),
            Enqueued::Added,
            "{name}"
        );
    }
    assert_eq!(
        outbox.enqueue(d("x")).await.unwrap(),
        Enqueued::Full,
        "{name}"
    );
    let a = outbox.claim(WAIT).await.unwrap().expect("a");
    assert_eq!((a.delivery.id.as_str(), a.attempts), ("a", 0), "{name}");
    a.ticket.again(Duration::from_secs(1), true).await.unwrap();
    let next = outbox.claim(WAIT).await.unwrap().expect("b");
    assert_eq!(next.delivery, d("b"), "{name}");
    next.ticket.done().await.unwrap();
    let c = outbox.claim(WAIT).await.unwrap().expect("c");
    assert_eq!(c.delivery.id, "c", "{name}");
    drop(c);
    assert_eq!(outbox.depth().await.unwrap().queued, 2, "{name}: a and c");
    let (store, outbox) = if b.durable() {
        drop(outbox);
        store.close().await;
        drop(store);
        let store = b.open().await;
        let outbox = store.outbox(3, Duration::from_secs(2)).await.unwrap();
        assert_eq!(
            outbox.link_key().await.unwrap(),
            key,
            "{name}: the same key"
        );
        assert_eq!(outbox.depth().await.unwrap().queued, 2, "{name}: kept");
        (store, outbox)
    } else {
        (store, outbox)
    };
    // Both come back: `a` after its pause, its attempt counted; `c`, left unsettled (which
    // JetStream counts as an attempt too: it cannot tell).
    let mut back = Vec::new();
    for _ in 0..2 {
        let got = outbox.claim(WAIT).await.unwrap().expect("a and c again");
        back.push((got.delivery.id.clone(), got.attempts));
        got.ticket.done().await.unwrap();
    }
    back.sort();
    assert_eq!(
        (back[0].0.as_str(), back[0].1),
        ("a", 1),
        "{name}: {back:?}"
    );
    assert_eq!(back[1].0, "c", "{name}");
    assert_eq!(outbox.depth().await.unwrap().queued, 0, "{name}");
    store.close().await;
}

macro_rules! contract {
    ($($name:ident),* $(,)?) => {$(
        #[tokio::test]
        async fn $name() {
            for backend in super::backends() {
                super::$name(&*backend).await;
            }
        }
    )*};
}

mod every_backend {
    contract!(
        lists_a_page_at_a_time,
        appends_apply_in_order,
        reads_take_ranges,
        known_ids_and_calls,
        trims_forget_old_events,
        deletes_remove_one_session,
        reopens_with_everything,
        damaged_records_are_corrupt,
        ids_outlast_the_dedup_window,
        outbox_holds_deliveries_until_settled,
    );
}
