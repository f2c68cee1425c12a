//! Logs in the wild must outlive the code that wrote them. `tests/data/store-v2/` is a data
//! directory written by the embedded store's checksummed JSON format (`events_v2`,
//! `sessions_v2`; made at commit `eef5931` by publishing `examples/sample-session.jsonl` to the
//! sessions `fixture` and `team-a/fixture`), and `replay.txt` is every update a subscriber got
//! from it then, per target. Whatever the current format is, that directory must open (migrating
//! if need be) and replay byte-identically.
//!
//! `TOOLVIEW_WRITE_FIXTURE=1` rewrites `replay.txt` from the current build: only when the fixture
//! itself is replaced or a target's rendering changes on purpose, never to make a difference go
//! away. Rewritten three times so far: when AG-UI cards became activity messages too (24 AG-UI lines,
//! each only gaining its `ACTIVITY_*` events; every other line byte-identical, checked then);
//! when VIEW's status of a command that exited unclean became `failed` (4 lines: the VIEW
//! update of `bash-1`'s finish, status 2 → 3, and the AG-UI activity carrying that card, in each
//! session; every other line byte-identical, checked then); when diffs began carrying their
//! line runs (8 lines: the VIEW and AG-UI updates of `edit-1`'s start and finish in each session,
//! equal but for the new `runs`; every other line byte-identical, checked then).

use std::path::Path;

use base64::Engine as _;
use prost::Message as _;
use support::process::ServerProcess;
use support::sessions::*;
use toolview::grpc::pb;

const TARGETS: [(pb::Target, &str); 5] = [
    (pb::Target::View, "view"),
    (pb::Target::Acp, "acp"),
    (pb::Target::AgUi, "ag-ui"),
    (pb::Target::Markdown, "markdown"),
    (pb::Target::Ansi, "ansi"),
];

/// Every update of every session and target, one line each: `session target base64(update)`.
async fn replay(url: &str) -> String {
    let mut c = client(url).await;
    let mut out = String::new();
    for session in ["fixture", "team-a/fixture"] {
        let head = get_session(&mut c, session).await.unwrap().head_offset;
        assert_eq!(head, 13, "{session}");
        for (target, name) in TARGETS {
            let mut s = subscribe(&mut c, request(session, target, true, from_beginning())).await;
            for update in updates_until(&mut s, head).await {
                let bytes =
                    base64::engine::general_purpose::STANDARD.encode(update.encode_to_vec());
                out.push_str(&format!("{session} {name} {bytes}\n"));
            }
        }
    }
    out
}

#[tokio::test]
async fn the_v2_data_directory_replays_byte_identically() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/store-v2");
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        fixture.join("toolview.redb"),
        dir.path().join("toolview.redb"),
    )
    .unwrap();
    let server = ServerProcess::spawn(dir.path(), &[]);
    let got = replay(&server.url).await;
    let golden = fixture.join("replay.txt");
    if std::env::var_os("TOOLVIEW_WRITE_FIXTURE").is_some() {
        std::fs::write(&golden, &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&golden).unwrap();
    assert_eq!(got.lines().count(), 2 * 5 * 13);
    for (i, (g, w)) in got.lines().zip(want.lines()).enumerate() {
        assert_eq!(g, w, "line {}", i + 1);
    }
    assert_eq!(got, want);
}
