//! The browser side of the tests: `tests/js/viewer_browser.cjs` driving headless Chromium on the
//! viewer page, and where its screenshots go.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::Value;
use support::sessions::PATIENCE;

/// Where screenshots go (kept as test artifacts).
pub(crate) fn artifact(name: &str) -> PathBuf {
    let artifacts = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/test-artifacts");
    std::fs::create_dir_all(&artifacts).unwrap();
    artifacts.join(name)
}

/// `tests/js/viewer_browser.cjs` driving headless Chromium on the viewer page.
pub(crate) struct Viewer {
    browser: std::process::Child,
    stdin: std::process::ChildStdin,
    lines: tokio::sync::mpsc::UnboundedReceiver<String>,
}

impl Viewer {
    /// Opens `?session=…` (with `#token=…`) and waits until a first card is shown.
    pub(crate) async fn open(
        base: &str,
        session: &str,
        shot: &std::path::Path,
        last_call: &str,
        token: Option<&str>,
        chromium_args: &str,
    ) -> Viewer {
        Viewer::open_clicking(base, session, shot, last_call, token, chromium_args, "").await
    }

    /// As `open`, pressing the button `click` (a CSS selector) once it is shown.
    pub(crate) async fn open_clicking(
        base: &str,
        session: &str,
        shot: &std::path::Path,
        last_call: &str,
        token: Option<&str>,
        chromium_args: &str,
        click: &str,
    ) -> Viewer {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let mut command = Command::new("node");
        command
            .arg(root.join("tests/js/viewer_browser.cjs"))
            .args([base, session, shot.to_str().unwrap(), last_call])
            .args(token)
            .env("CHROMIUM_ARGS", chromium_args)
            .env("CLICK", click);
        Viewer::start(command).await
    }

    /// Runs another page script of `tests/js` with the same protocol: it prints `ready`, waits
    /// for `published` on its stdin, and prints its summary last.
    pub(crate) async fn script(name: &str, args: &[&str]) -> Viewer {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let mut command = Command::new("node");
        command.arg(root.join("tests/js").join(name)).args(args);
        Viewer::start(command).await
    }

    async fn start(mut command: Command) -> Viewer {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        assert!(
            root.join("tests/js/node_modules/playwright-core").exists(),
            "run scripts/test.sh (npm ci in tests/js)"
        );
        assert!(
            PathBuf::from("/usr/bin/chromium").exists(),
            "Chromium is missing: .ci/run installs it (apt-get install chromium)"
        );
        let mut browser = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("node runs");
        let stdin = browser.stdin.take().unwrap();
        let stdout = browser.stdout.take().unwrap();
        let (tx, mut lines) = tokio::sync::mpsc::unbounded_channel::<String>();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let ready = tokio::time::timeout(PATIENCE, lines.recv())
            .await
            .expect("the browser did not start")
            .unwrap_or_default();
        assert_eq!(ready, "ready");
        Viewer {
            browser,
            stdin,
            lines,
        }
    }

    /// Tells the script everything is published; returns its summary of the page.
    pub(crate) async fn finish(self) -> Value {
        let Viewer {
            mut browser,
            mut stdin,
            mut lines,
        } = self;
        writeln!(stdin, "published").unwrap();
        drop(stdin);
        let mut last = String::new();
        while let Ok(Some(line)) = tokio::time::timeout(PATIENCE, lines.recv()).await {
            last = line;
        }
        let status = tokio::task::spawn_blocking(move || browser.wait().unwrap())
            .await
            .unwrap();
        assert!(status.success(), "the browser script failed");
        serde_json::from_str(&last).unwrap_or_else(|_| panic!("no summary: {last}"))
    }
}
