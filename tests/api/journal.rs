//! The embedded store's journal, in a real server process: with the applier held (the
//! `store-apply` fail point paused), nothing reaches the database, yet every publish is
//! acknowledged, readable, deduplicated and trimmed from the journal and its overlay; a crash
//! (SIGKILL) then loses none of it — the restart applies the journal and serves the same bytes.

use support::process::{ServerProcess, serve_command};
use support::sessions::*;
use toolview::grpc::pb;

/// Whether the database file holds `text` (stored values are protobuf with their text as is).
fn in_database(data: &std::path::Path, text: &str) -> bool {
    let bytes = std::fs::read(data.join("toolview.redb")).unwrap();
    bytes.windows(text.len()).any(|w| w == text.as_bytes())
}

/// Whether a journal segment holds `text`.
fn in_journal(data: &std::path::Path, text: &str) -> bool {
    std::fs::read_dir(data.join("journal")).unwrap().any(|e| {
        let bytes = std::fs::read(e.unwrap().path()).unwrap();
        bytes.windows(text.len()).any(|w| w == text.as_bytes())
    })
}

/// Every update of `session` from the beginning up to its head, encoded: the bytes a client
/// gets.
async fn replay(url: &str, session: &str) -> (Vec<u64>, Vec<Vec<u8>>) {
    use prost::Message;
    let mut c = client(url).await;
    let head = get_session(&mut c, session).await.unwrap().head_offset;
    let mut stream = subscribe(
        &mut c,
        request(session, pb::Target::Acp, true, from_beginning()),
    )
    .await;
    let updates = updates_until(&mut stream, head).await;
    (
        offsets(&updates),
        updates.iter().map(|u| u.encode_to_vec()).collect(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acked_events_need_only_the_journal() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let mut cmd = serve_command(&data, &["--max-events-per-session", "40"]);
    cmd.env("FAILPOINTS", "store-apply=pause");
    let mut server = ServerProcess::from_command(cmd);
    let mut c = client(&server.url).await;
    // Three sessions; "long" gets more events than it keeps, so trims happen in the overlay.
    for s in ["a", "b"] {
        publish(&mut c, sample_session(s)).await.unwrap();
    }
    for n in 0..60 {
        let id = format!("o{n}");
        publish(
            &mut c,
            vec![output("long", &id, "c1", &format!("line {n}\n"))],
        )
        .await
        .unwrap();
    }
    let before = [
        replay(&server.url, "a").await,
        replay(&server.url, "b").await,
        replay(&server.url, "long").await,
    ];
    assert_eq!(
        before[2].0,
        (21..=60).collect::<Vec<_>>(),
        "retention trimmed the overlay"
    );
    // Retries are recognised from the overlay: kept ids at their offsets, trimmed ones new.
    let acks = publish(&mut c, vec![output("long", "o59", "c1", "again")])
        .await
        .unwrap();
    assert!(acks[0].duplicate);
    assert_eq!(acks[0].cursor.as_ref().unwrap().offset, 60);
    assert!(
        in_journal(&data, "line 59"),
        "the groups are in the journal"
    );
    assert!(!in_database(&data, "line 59"), "nothing was applied");

    server.kill(); // SIGKILL, with nothing applied to the database
    let server = ServerProcess::spawn(&data, &[]);
    let after = [
        replay(&server.url, "a").await,
        replay(&server.url, "b").await,
        replay(&server.url, "long").await,
    ];
    assert_eq!(before, after, "the same bytes after the restart");
    assert!(
        in_database(&data, "line 59"),
        "the journal was applied on open"
    );
    let mut c = client(&server.url).await;
    let acks = publish(
        &mut c,
        vec![
            output("long", "o59", "c1", "again"),
            output("long", "o0", "c1", "trimmed, so new"),
        ],
    )
    .await
    .unwrap();
    assert!(acks[0].duplicate);
    assert_eq!(acks[0].cursor.as_ref().unwrap().offset, 60);
    assert!(!acks[1].duplicate);
    assert_eq!(acks[1].cursor.as_ref().unwrap().offset, 61);
    // The applied journal was deleted on open; the new one holds only what came since.
    assert!(!in_journal(&data, "line 59"));
    assert!(in_journal(&data, "trimmed, so new"));
}
