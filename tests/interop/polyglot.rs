//! Harnesses and subscribers in other languages, on the client packages: the Python (`toolview`,
//! clients/python) and Node.js (`@toolview/client`, clients/typescript) examples against a real
//! server, in the clear and over TLS with tokens (`--auth jwt`; a token by flag for the harness,
//! by `TOOLVIEW_TOKEN` for the subscriber). `scripts/test.sh` installs the packages
//! (`tests/.venv`, `examples/node/node_modules`); the packages' own tests are in `clients/`.

use std::path::{Path, PathBuf};
use std::process::Command;

use support::auth::token;
use support::pki::SecureServer;
use support::server::Server;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn run(program: &Path, args: &[&str], envs: &[(&str, &str)]) -> String {
    let out = Command::new(program)
        .args(args)
        .envs(envs.iter().copied())
        .current_dir(root())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{program:?} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Events the harness examples publish (one turn around five calls).
const HARNESS_EVENTS: u64 = 25;

/// What the Markdown subscriber must have printed for the examples' session.
fn assert_received(markdown: &str) {
    let offsets: Vec<u64> = markdown
        .lines()
        .filter_map(|l| l.strip_prefix("--- offset "))
        .map(|n| n.parse().unwrap())
        .collect();
    // The session start renders no Markdown, nor does reasoning (offsets 5–7: the subscriber
    // does not ask for it); every turn, message and call update does, in order.
    let want: Vec<u64> = (2..=HARNESS_EVENTS)
        .filter(|o| !(5..=7).contains(o))
        .collect();
    assert_eq!(offsets, want, "{markdown}");
    for expected in [
        "---\n\n*turn turn-1*",
        "**User:**\n\nMake the port configurable and check the tests.",
        "**Assistant:**\n\nI'll read the config and run the tests.",
        "**Assistant:**\n\nDone: the port comes from PORT; one test still fails.",
        "*turn turn-1 ended (end\\_turn) · tokens: 1200 in, 340 out · context 5400/200000*",
        "**Tool Call: Read src/app.ts**\nStatus: Completed\n\n```ts\nexport const port = 8080\n// TODO: read from env\n```",
        "-export const port = 8080\n+export const port = Number(process.env.PORT)",
        "**Tool Call: npm test**\nStatus: In Progress",
        "```console\n$ npm test\n> vitest run\n FAIL  src/app.test.ts\nTests  1 failed\n```\n\nexit code 2",
        "`src/app.ts`\n```\n2: // TODO: read from env\n```",
        // The Markdown target escapes `://` in tool text.
        "Fetched https\\://vitest.dev/guide/ (HTTP 200)",
    ] {
        assert!(
            markdown.contains(expected),
            "missing {expected:?} in:\n{markdown}"
        );
    }
}

/// The harness's last words: every event was acknowledged.
fn assert_published(out: &str) {
    assert_eq!(out.trim(), format!("published {HARNESS_EVENTS} events"));
}

/// Runs a harness example, then its subscriber, against a fresh server; returns what the
/// subscriber printed.
async fn harness_then_subscriber(program: PathBuf, dir: &'static str, ext: &'static str) -> String {
    let server = Server::start().await;
    let addr = server.url.trim_start_matches("http://").to_owned();
    let markdown = tokio::task::spawn_blocking(move || {
        let (harness, subscriber) = (
            format!("{dir}/harness.{ext}"),
            format!("{dir}/subscriber.{ext}"),
        );
        let published = run(
            &program,
            &[&harness, "--server", &addr, "--session", "demo"],
            &[],
        );
        assert_published(&published);
        run(
            &program,
            &[
                &subscriber,
                "--server",
                &addr,
                "--session",
                "demo",
                "--count",
                "25",
            ],
            &[],
        )
    })
    .await
    .unwrap();
    server.shutdown().await;
    markdown
}

/// The same over TLS (a CA made here) with `--auth jwt`: the harness gets a publish token by
/// `--token`, the subscriber a subscribe token by `TOOLVIEW_TOKEN`, each the CA by its own means.
fn secure_harness_then_subscriber(program: &Path, dir: &str, ext: &str) -> String {
    let secure = SecureServer::start();
    let (addr, ca_file) = (secure.host_port(), secure.ca_file.clone());
    let session = "team-a/demo";
    let published = run(
        program,
        &[
            &format!("{dir}/harness.{ext}"),
            "--server",
            &addr,
            "--session",
            session,
            "--token",
            &token(&["publish"], &["team-a/*"]),
            "--tls-ca",
            &ca_file,
        ],
        &[],
    );
    assert_published(&published);
    run(
        program,
        &[
            &format!("{dir}/subscriber.{ext}"),
            "--server",
            &addr,
            "--session",
            session,
            "--count",
            "25",
        ],
        &[
            ("TOOLVIEW_TOKEN", &token(&["subscribe"], &["team-a/*"])),
            ("TOOLVIEW_TLS_CA", &ca_file),
        ],
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_harness_and_subscriber() {
    let python = root().join("tests/.venv/bin/python");
    assert!(
        python.exists(),
        "tests/.venv is missing: run scripts/test.sh"
    );
    assert_received(&harness_then_subscriber(python.clone(), "examples/python", "py").await);
    assert_received(&secure_harness_then_subscriber(
        &python,
        "examples/python",
        "py",
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn node_harness_and_subscriber() {
    let modules = root().join("examples/node/node_modules/@toolview/client/dist");
    assert!(
        modules.exists(),
        "run scripts/test.sh (npm ci --prefix examples/node)"
    );
    assert_received(&harness_then_subscriber(PathBuf::from("node"), "examples/node", "js").await);
    assert_received(&secure_harness_then_subscriber(
        Path::new("node"),
        "examples/node",
        "js",
    ));
}
