//! A hostile or careless client against the real binary: no accepted request may poison a
//! session, stall the server or grow its memory without bound (one test per finding of the
//! robust-core issue; the store, status and connection findings have their own files).

use support::process::ServerProcess;
use support::sessions::*;
use tonic::Code;
use toolview::grpc::pb::{
    self, presentation_service_client::PresentationServiceClient, rendered_update::Body,
};

const MIB: usize = 1 << 20;
/// The default message limit, and the default output cap ceiling (an eighth of it).
const LIMIT: usize = 4 * MIB;
const CEILING: usize = LIMIT / 8;

const TARGETS: [pb::Target; 6] = [
    pb::Target::View,
    pb::Target::Acp,
    pb::Target::AgUi,
    pb::Target::Markdown,
    pb::Target::Ansi,
    pb::Target::AiSdk,
];

/// The bytes of an update's body (what the 4 MiB message must hold).
fn body_bytes(u: &pb::RenderedUpdate) -> usize {
    use prost::Message;
    u.encoded_len()
}

fn acp_messages(u: &pb::RenderedUpdate) -> Vec<String> {
    match &u.body {
        Some(Body::Acp(a)) => a.json.clone(),
        _ => Vec::new(),
    }
}

/// Finding 1: events whose renderings would be larger than a message (control bytes that JSON
/// escapes six-fold, output chunks that snapshots accumulate, arguments that escape past the
/// limit) are delivered to every target, from the start and on resume, on both stores.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_accepted_event_is_deliverable_to_every_target() {
    for store in ["embedded", "memory"] {
        let dir = tempfile::tempdir().unwrap();
        let server = ServerProcess::spawn(dir.path(), &["--store", store]);
        let mut c = client(&server.url).await;
        let s = "poison";
        let control = "\u{1}".repeat(3 * MIB + MIB / 2);
        let mut events = vec![bash_call(s, "e1", "c1")];
        events.push(output(s, "e2", "c1", &control));
        for k in 0..6u8 {
            let chunk = char::from(b'a' + k).to_string().repeat(MIB);
            events.push(output(s, &format!("e{}", 3 + k), "c1", &chunk));
        }
        // Arguments that are fine as a request but escape to 21 MiB of JSON.
        events.push(start_call(s, "e9", "c2", "custom_tool", &control));
        events.push(finish(s, "e10", "c2", &control, ""));
        events.push(finish(s, "e11", "c1", "done", ""));
        for e in events {
            publish(&mut c, vec![e])
                .await
                .expect("each event is accepted");
        }
        // A session cwd that escapes past the limit: in the session update and in every
        // terminal card that shows it.
        let cwd = format!("/{control}");
        let started = ev(
            "cwd",
            "w1",
            pb::tool_event::Event::SessionStarted(pb::SessionStarted { cwd }),
        );
        for e in [
            started,
            bash_call("cwd", "w2", "c1"),
            finish("cwd", "w3", "c1", "ok", ""),
        ] {
            publish(&mut c, vec![e])
                .await
                .expect("each event is accepted");
        }

        for target in TARGETS {
            for terminal in [false, true] {
                let label = format!("{store} {target:?} terminal={terminal}");
                let mut sub =
                    subscribe(&mut c, request(s, target, terminal, from_beginning())).await;
                let updates = updates_until(&mut sub, 11).await;
                assert_eq!(offsets(&updates), (1..=11).collect::<Vec<_>>(), "{label}");
                for u in &updates {
                    assert!(body_bytes(u) <= LIMIT, "{label}: {} bytes", body_bytes(u));
                    for m in acp_messages(u) {
                        support::acp::validate(&m).unwrap_or_else(|e| panic!("{label}: {e}"));
                    }
                }
                // The card whose arguments escape past the limit in JSON is shown as a
                // stand-in that says so (Markdown and ANSI carry the text unescaped).
                let stand_in = format!("{:?}", updates[8].body);
                let json = !matches!(target, pb::Target::Markdown | pb::Target::Ansi);
                assert!(
                    !json || stand_in.contains("update limit"),
                    "{label}: {}",
                    &stand_in[..200.min(stand_in.len())]
                );

                let mut sub =
                    subscribe(&mut c, request("cwd", target, terminal, from_beginning())).await;
                for u in updates_until(&mut sub, 3).await {
                    assert!(
                        body_bytes(&u) <= LIMIT,
                        "{label}, cwd: {} bytes",
                        body_bytes(&u)
                    );
                }

                // Resuming inside the call works too.
                let epoch = updates[0].cursor.as_ref().unwrap().epoch.clone();
                let mut sub =
                    subscribe(&mut c, request(s, target, terminal, after(2, &epoch))).await;
                assert_eq!(
                    offsets(&updates_until(&mut sub, 11).await),
                    (3..=11).collect::<Vec<_>>(),
                    "{label}"
                );
            }
        }
    }
}

fn render_request(
    target: pb::Target,
    terminal: bool,
    events: Vec<pb::ToolEvent>,
) -> pb::RenderRequest {
    let r = request("r", target, terminal, from_beginning());
    pb::RenderRequest {
        session_cwd: String::new(),
        target: r.target,
        capabilities: r.capabilities,
        events,
    }
}

/// Finding 2: `Render` of a long live call answers within the message limit (or refuses with
/// RESOURCE_EXHAUSTED naming it), and the server's memory does not follow the size of the
/// rendering it refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn render_responses_are_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    let mut c = PresentationServiceClient::connect(server.url.clone())
        .await
        .unwrap();
    let mut events = vec![bash_call("r", "e0", "c1")];
    let kib = "y".repeat(1023) + "\n";
    events.extend((1..=1024).map(|i| output("r", &format!("e{i}"), "c1", &kib)));
    let rss_before = server.rss_kib();

    for target in [pb::Target::View, pb::Target::Markdown, pb::Target::Ansi] {
        let err = c
            .render(render_request(target, true, events.clone()))
            .await
            .expect_err("a 500 MB rendering is refused");
        assert_eq!(err.code(), Code::ResourceExhausted, "{target:?}: {err:?}");
        assert!(
            err.message().contains("4194304-byte message limit"),
            "{}",
            err.message()
        );
    }
    // Append-only forms stay small, and are answered in full.
    for target in [pb::Target::Acp, pb::Target::AgUi] {
        let updates = c
            .render(render_request(target, true, events.clone()))
            .await
            .unwrap()
            .into_inner()
            .updates;
        assert_eq!(updates.len(), 1025, "{target:?}");
    }
    let grown = server.rss_kib().saturating_sub(rss_before);
    println!("render: RSS grew {grown} KiB over five 1,025-event renders");
    assert!(grown < 64 * 1024, "RSS grew {grown} KiB");
}

/// Finding 2 (issue 24): replaying a long live call costs O(chunk) per chunk, and nothing past
/// the output cap. One call of 2,500 × 1 KiB chunks, no cap asked (so the 512 KiB ceiling),
/// replayed once per target: with appends (VIEW `output_appends`, ACP terminals, AG-UI) each
/// chunk is sent once; without them (VIEW, Markdown, ANSI, ACP's console) snapshots grow to the
/// cap and then stop. Server CPU per replay is printed and bounded (before: 2.1–2.8 s, the same
/// capped snapshot sent again for every chunk).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replaying_a_long_live_call_costs_per_chunk_and_nothing_past_the_cap() {
    const CHUNKS: usize = 2_500;
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &[]);
    let mut c = client(&server.url).await;
    let s = "long";
    publish(&mut c, vec![bash_call(s, "e0", "c1")])
        .await
        .unwrap();
    let kib = "y".repeat(1023) + "\n";
    for batch in 0..CHUNKS / 100 {
        let events = (0..100)
            .map(|i| output(s, &format!("e{}", 1 + batch * 100 + i), "c1", &kib))
            .collect();
        publish(&mut c, events).await.unwrap();
    }
    // (target, terminal, output_appends, whether chunks arrive as appends, CPU bound in ms)
    let rows = [
        (pb::Target::View, true, true, true, 200),
        (pb::Target::Acp, true, false, true, 200),
        (pb::Target::AgUi, true, false, true, 200),
        // Snapshots up to the cap are O(cap) each (135 MB for this call): 0.37–0.42 s in this
        // unoptimized test build, so the bound here is twice the 0.4 s goal.
        (pb::Target::View, true, false, false, 800),
        (pb::Target::Markdown, true, false, false, 800),
        (pb::Target::Ansi, true, false, false, 800),
        // ACP without terminals replaces the call's content with everything streamed so far
        // (the spec's console form): JSON-escaped snapshots, printed here and not bounded.
        (pb::Target::Acp, false, false, false, u64::MAX),
    ];
    let cap_chunk = CEILING / 1024;
    for (target, terminal, output_appends, appends, bound_ms) in rows {
        let mut req = request(s, target, terminal, from_beginning());
        req.capabilities.as_mut().unwrap().output_appends = output_appends;
        let cpu = server.cpu_ms();
        let mut sub = subscribe(&mut c, req).await;
        let updates = updates_until(&mut sub, 1 + CHUNKS as u64).await;
        let used = server.cpu_ms() - cpu;
        let sizes: Vec<usize> = updates.iter().map(body_bytes).collect();
        let total: usize = sizes.iter().sum();
        println!(
            "replay of {CHUNKS} × 1 KiB chunks, {target:?} (terminal {terminal}, appends {output_appends}): \
             {used} ms of server CPU, {total} bytes sent"
        );
        // The capped text, plus the card around it (ANSI styles each line).
        assert!(
            sizes.iter().all(|&n| n <= CEILING + CEILING / 8),
            "{target:?}: {:?}",
            sizes.iter().max()
        );
        // Past the chunk that crosses the cap, updates carry nothing: no snapshot again.
        let past = &sizes[cap_chunk + 3..];
        assert!(
            past.iter().all(|&n| n < 256),
            "{target:?}: updates past the cap carry {:?} bytes",
            past.iter().max()
        );
        if appends {
            // Each chunk sent once — AG-UI twice: its `CUSTOM` output event and its activity
            // message's append — : about the output's size up to the cap, never a snapshot
            // per chunk.
            let copies = if target == pb::Target::AgUi { 2 } else { 1 };
            assert!(total < (copies + 1) * CEILING, "{target:?}: {total} bytes");
        }
        assert!(
            used <= bound_ms,
            "{target:?} (appends {output_appends}): {used} ms of server CPU, over {bound_ms}"
        );
    }
}

fn write_finished(s: &str, before: &str, after: &str) -> Vec<pb::ToolEvent> {
    let args = serde_json::json!({"file_path": "/w/big.txt", "content": after}).to_string();
    let meta = serde_json::json!({"before": before, "after": after}).to_string();
    vec![
        start_call(s, "e1", "c1", "write", &args),
        finish(s, "e2", "c1", "ok", &meta),
    ]
}

/// Finding 2: hunks of two 234 KB files with no common lines are bounded work: the diff falls
/// back to the whole-file form, and the server's CPU for two such cards is printed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hunks_of_unrelated_files_are_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &[]);
    let mut c = client(&server.url).await;
    let before: String = (0..8000).map(|i| format!("old {i:024}\n")).collect();
    let after: String = (0..8000).map(|i| format!("new {i:024}\n")).collect();
    assert!(before.len() > 230_000 && after.len() > 230_000);
    let cpu = server.cpu_ms();
    for s in ["h1", "h2"] {
        publish(&mut c, write_finished(s, &before, &after))
            .await
            .unwrap();
    }
    let mut subs = Vec::new();
    for s in ["h1", "h2"] {
        subs.push(subscribe(&mut c, request(s, pb::Target::View, true, from_beginning())).await);
    }
    for sub in &mut subs {
        let updates = updates_until(sub, 2).await;
        let Some(Body::View(pb::ViewUpdate {
            update: Some(pb::view_update::Update::Card(card)),
        })) = &updates[1].body
        else {
            panic!("a card update")
        };
        let Some(pb::tool_result_view::Card::Diff(diff)) =
            card.result.as_ref().and_then(|r| r.card.as_ref())
        else {
            panic!("a diff result card")
        };
        // One hunk: the whole old file against the whole new one, located at line 1.
        assert_eq!(diff.diffs.len(), 1);
        assert_eq!(diff.diffs[0].old_text.as_deref(), Some(before.trim_end()));
        assert_eq!(diff.diffs[0].new_text, after.trim_end());
        let lines: Vec<Option<u32>> = diff.locations.iter().map(|l| l.line).collect();
        assert_eq!(lines, vec![Some(1)]);
    }
    println!(
        "two 234 KB before/after cards: {} ms of server CPU",
        server.cpu_ms() - cpu
    );
    // The server answers other requests meanwhile and after.
    assert_eq!(get_session(&mut c, "h1").await.unwrap().head_offset, 2);
}
