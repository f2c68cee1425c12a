//! The session directory (`src/store/jetstream/directory.rs`): listings read O(page) from a KV
//! bucket kept in step with the logs — whichever replica made them, under concurrent creation
//! (chunks splitting), after a log is gone, and after the bucket itself was deleted.

use super::*;
use toolview::domain::ToolEvent;

/// Every id a store lists, a page of `page` at a time.
async fn all_listed(store: &Arc<dyn Store>, page: usize) -> Vec<String> {
    let (mut ids, mut after) = (Vec::new(), None);
    loop {
        let got = store.list(after.clone(), page).await.unwrap();
        assert!(got.len() <= page);
        let Some((last, _)) = got.last() else {
            return ids;
        };
        after = Some(last.clone());
        let full = got.len() == page;
        ids.extend(got.into_iter().map(|(id, _)| id.as_str().to_owned()));
        if !full {
            return ids;
        }
    }
}

fn first_event(session: &str) -> ToolEvent {
    domain(bash_call(session, "e1", "c1"))
}

/// Two stores (as two replicas) create 2,500 sessions at once — enough to split chunks of 1,024
/// while both write — and each lists all of them, in order, once; a log removed from the
/// stream is no longer listed and leaves the directory.
#[tokio::test]
async fn two_writers_at_once_list_every_session_once_in_order() {
    let nats = Nats::single();
    let (a, b) = (store(&nats).await, store(&nats).await);
    let writers = [
        Sessions::new(a.clone(), SessionsConfig::default()),
        Sessions::new(b.clone(), SessionsConfig::default()),
    ];
    const N: usize = 2_500;
    let mut want: Vec<String> = (0..N).map(|i| format!("s{:05}", (i * 7919) % N)).collect();
    let mut tasks = Vec::new();
    for (w, writer) in writers.into_iter().enumerate() {
        let ids: Vec<String> = want.iter().skip(w).step_by(2).cloned().collect();
        tasks.push(tokio::spawn(async move {
            // Ten sessions per publish: one atomic batch making ten logs.
            for chunk in ids.chunks(10) {
                writer
                    .publish(chunk.iter().map(|s| first_event(s)).collect())
                    .await
                    .unwrap();
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    want.sort();
    assert_eq!(all_listed(&a, 1000).await, want, "through A");
    assert_eq!(all_listed(&b, 333).await, want, "through B");
    // A log gone from the stream (aged out, purged) is not listed, and leaves the directory.
    let gone = SessionId::new("s00042").unwrap();
    a.delete(vec![gone.clone()]).await.unwrap();
    want.retain(|s| s != "s00042");
    assert_eq!(all_listed(&b, 1000).await, want);
}

/// The directory's bucket deleted (an operator, a lost volume): the next listing makes it again
/// from the stream, and lists every session; new sessions go on entering it.
#[tokio::test]
async fn a_deleted_directory_is_rebuilt_from_the_stream() {
    let nats = Nats::single();
    let store = store(&nats).await;
    let sessions = Sessions::new(store.clone(), SessionsConfig::default());
    let mut want: Vec<String> = (0..40).map(|i| format!("r{i:02}")).collect();
    for id in &want {
        sessions.publish(vec![first_event(id)]).await.unwrap();
    }
    assert_eq!(all_listed(&store, 7).await, want);
    let js = async_nats::jetstream::new(async_nats::connect(nats.urls()).await.unwrap());
    js.delete_key_value(format!("{STREAM}_DIR")).await.unwrap();
    assert_eq!(all_listed(&store, 7).await, want, "rebuilt from the stream");
    assert!(
        js.get_key_value(format!("{STREAM}_DIR")).await.is_ok(),
        "the bucket is back"
    );
    sessions.publish(vec![first_event("r99")]).await.unwrap();
    want.push("r99".into());
    assert_eq!(all_listed(&store, 1000).await, want);
}
