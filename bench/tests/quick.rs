//! `toolview-bench --quick`: every scenario of the load generator runs against real servers
//! (`toolview serve` as child processes, and a real nats-server when one is installed) and the
//! table has a row for each. Figures are not asserted: they are measurements, and a
//! quick run measures nothing useful.

use std::process::Command;

#[test]
fn every_scenario_runs_and_prints_its_row() {
    let bench = std::path::Path::new(env!("CARGO_BIN_EXE_toolview-bench"));
    // cargo builds the workspace's binaries into one directory (`cargo test --workspace`).
    let server = bench.with_file_name("toolview");
    assert!(
        server.exists(),
        "no toolview binary at {} (run cargo test --workspace)",
        server.display()
    );
    let mut cmd = Command::new(bench);
    cmd.arg("--quick").arg("--toolview").arg(&server);
    // The test tools' venv holds a nats-server (scripts/test.sh installs it).
    let nats = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/.venv/bin/nats-server"
    );
    let have_nats = std::path::Path::new(nats).exists();
    if have_nats {
        cmd.env("TOOLVIEW_NATS_SERVER", nats);
    }
    let out = cmd.output().expect("run toolview-bench");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "bench failed:\n{stdout}\n{stderr}");
    println!("{stdout}");

    let rows: Vec<&str> = stdout.lines().filter(|l| l.starts_with("| ")).collect();
    let expect = [
        "bare unary RPC (`Render`, no events), 1 caller",
        "publish, memory store, 1 publisher",
        "publish, memory store, 4 publishers",
        "publish, embedded store, 4 publishers, 8 events per `Publish`",
        "fan-out via toolview (ACP, terminal on): 20 subscribers",
        "replay of a 2,000 event session",
        "server memory, 100 idle subscribers, 1 per connection",
        "server memory, 100 idle subscribers, 10 per connection",
        "startup of a server with 2,000 stored sessions (embedded)",
        "first publish after that startup (2,000 stored sessions)",
        "server memory, 100 loaded idle sessions",
        "ACP renders, one core",
    ];
    for scenario in expect {
        assert!(
            rows.iter().any(|r| r.starts_with(&format!("| {scenario}"))),
            "no row for {scenario:?} in:\n{stdout}"
        );
    }
    // A toolview built without the `jetstream` feature has no JetStream rows; scripts/test.sh
    // builds it with the feature.
    let jetstream = have_nats && !stderr.contains("no JetStream rows");
    if have_nats {
        for scenario in [
            "fan-out via NATS core (peer): 20 subscribers",
            "bare JetStream publish (durable peer: file storage, `sync_interval: always`), 4 publishers",
        ] {
            assert!(
                rows.iter().any(|r| r.starts_with(&format!("| {scenario}"))),
                "no row for {scenario:?} in:\n{stdout}"
            );
        }
    }
    if jetstream {
        for scenario in [
            "publish, JetStream R1 store, 1 publisher",
            "bare JetStream publish (peer), R1, 4 publishers",
            "publish, JetStream R3 store, 4 publishers, 8 events per `Publish`",
            "bare JetStream publish (peer), R3, 4 publishers, 8 messages awaited together",
            "fan-out across replicas (JetStream R3; ACP, terminal on): publisher on A, 20 subscribers on B",
        ] {
            assert!(
                rows.iter().any(|r| r.starts_with(&format!("| {scenario}"))),
                "no row for {scenario:?} in:\n{stdout}"
            );
        }
    }
    // Every delivery arrived, in both fan-outs, and no request failed.
    for row in &rows {
        assert!(!row.contains("not delivered"), "{row}");
        assert!(!row.contains("errors"), "{row}");
    }
}

#[test]
fn growth_curves_run_and_state_their_slopes() {
    let bench = std::path::Path::new(env!("CARGO_BIN_EXE_toolview-bench"));
    let server = bench.with_file_name("toolview");
    let out = Command::new(bench)
        .args(["--quick", "--scale", "--toolview"])
        .arg(&server)
        .env(
            "TOOLVIEW_NATS_SERVER",
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../tests/.venv/bin/nats-server"
            ),
        )
        .output()
        .expect("run toolview-bench --scale");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "bench failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    println!("{stdout}");
    let rows: Vec<&str> = stdout.lines().filter(|l| l.starts_with("| ")).collect();
    for scenario in [
        "growth: 100 stored sessions (embedded)",
        "growth: 1,000 stored sessions (embedded)",
        "growth: 2 live subscribers on one session",
        "growth: 10 live subscribers on one session",
        "growth: a session of 10 events (embedded)",
        "growth: a session of 100 events (embedded)",
        "growth: slopes over stored sessions (embedded) (100 → 1,000)",
        "growth: slopes over live subscribers (one session, embedded) (2 → 10)",
        "growth: slopes over events per session (embedded) (10 → 100)",
    ] {
        assert!(
            rows.iter().any(|r| r.starts_with(&format!("| {scenario}"))),
            "no row for {scenario:?} in:\n{stdout}"
        );
    }
    // Every growth row is the growth scenario's (`--scale` runs nothing else), and every
    // delivery of the live runs arrived.
    for row in rows.iter().filter(|r| !r.starts_with("| scenario |")) {
        assert!(
            row.starts_with("| growth: ") || row.starts_with("| the feed: "),
            "{row}"
        );
        assert!(!row.contains("missing"), "{row}");
    }
}
