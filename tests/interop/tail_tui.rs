//! `toolview tail` as a terminal UI: under a real pseudo-terminal (tmux, with `script` logging
//! every byte tail writes) and through a pipe, a 1,000-chunk build log streamed live shows its
//! card once, and costs few bytes more than the output itself.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use support::sessions::*;

const CHUNKS: usize = 1_000;

fn line(i: usize) -> String {
    format!("line {i:04} of the build log\n")
}

/// The build starts: a terminal call.
async fn start_build(c: &mut Client, s: &str) {
    let args = r#"{"command":"make build","description":"Build it"}"#;
    publish(c, vec![start_call(s, "e0", "c1", "bash", args)])
        .await
        .unwrap();
}

/// One-line chunks `range` of its output, published live (50 at a time, over about a second
/// for all 1,000, as a build's would arrive). Returns their text.
async fn build_output(c: &mut Client, s: &str, range: std::ops::Range<usize>) -> String {
    let mut output = String::new();
    let numbers: Vec<usize> = range.collect();
    for batch in numbers.chunks(50) {
        let events = batch
            .iter()
            .map(|&n| {
                output.push_str(&line(n));
                support::sessions::output(s, &format!("o{n}"), "c1", &line(n))
            })
            .collect();
        publish(c, events).await.unwrap();
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    output
}

/// The build ends: its result (the same output, exit 0).
async fn finish_build(c: &mut Client, s: &str, output: &str) {
    publish(c, vec![finish(s, "e1", "c1", output, "")])
        .await
        .unwrap();
}

/// The whole build; returns the output's size.
async fn stream_build(c: &mut Client, s: &str) -> usize {
    start_build(c, s).await;
    let output = build_output(c, s, 0..CHUNKS).await;
    finish_build(c, s, &output).await;
    output.len()
}

fn tmux(socket: &Path, args: &[&str]) -> String {
    let out = Command::new("tmux")
        .arg("-S")
        .arg(socket)
        .args(args)
        .output()
        .expect("tmux runs (.ci/run installs it)");
    assert!(out.status.success(), "tmux {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A tmux server of the test's own (its socket in a temporary directory) running one command
/// in a pane; ended when dropped, pass or fail: the pane's process is killed (its terminal
/// closes, so `tail` in it gets a hangup) and the server with it.
struct Pane {
    socket: std::path::PathBuf,
    pid: String,
}

impl Pane {
    fn start(socket: &Path, rows: u16, cols: u16, command: &str) -> Pane {
        let (rows, cols) = (rows.to_string(), cols.to_string());
        tmux(
            socket,
            &["new-session", "-d", "-x", &cols, "-y", &rows, command],
        );
        let pid = tmux(socket, &["display-message", "-p", "#{pane_pid}"]);
        Pane {
            socket: socket.to_owned(),
            pid: pid.trim().to_owned(),
        }
    }

    /// The visible screen; with `history`, the scrollback above it too.
    fn capture(&self, history: bool) -> String {
        let mut args = vec!["capture-pane", "-p"];
        if history {
            args.extend(["-S", "-"]);
        }
        tmux(&self.socket, &args)
    }
}

impl Drop for Pane {
    fn drop(&mut self) {
        let _ = Command::new("kill").args(["-KILL", &self.pid]).status();
        let _ = Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .arg("kill-server")
            .status();
    }
}

/// A child process killed when dropped, pass or fail.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Polls `screen()` until it holds `want`.
async fn until_shown(what: &str, want: &str, screen: impl Fn() -> String) -> String {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let now = screen();
        if now.contains(want) {
            return now;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{what}: no {want:?} in\n{now}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_terminal_a_live_card_redraws_in_place_and_is_printed_once() {
    let server = support::server::Server::start().await;
    let mut c = client(&server.url).await;
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("tmux.sock");
    let log = dir.path().join("tty.bytes");
    // `script` gives tail a terminal of the pane's size and logs every byte tail writes.
    let tail = format!(
        "{} tail --session tui --server {} --from-beginning",
        support::toolview_bin().display(),
        server.url
    );
    let script = format!("script -q -f -c '{tail}' {}", log.display());
    let pane = Pane::start(&socket, 30, 100, &script);
    let screen = || pane.capture(false);
    // No session yet: tail says it waits, and takes that back once the session appears.
    until_shown("the waiting notice", "waiting for session tui", screen).await;

    start_build(&mut c, "tui").await;
    let mut output = build_output(&mut c, "tui", 0..CHUNKS / 2).await;
    // Mid-build: the running card, once, with its newest output lines.
    let running = until_shown("the running card", "line 0499", screen).await;
    assert_eq!(running.matches("$ make build").count(), 1, "{running}");
    assert_eq!(running.matches("line 0499").count(), 1, "{running}");
    assert!(
        !running.contains("line 0480"),
        "a window of the newest lines: {running}"
    );
    output.push_str(&build_output(&mut c, "tui", CHUNKS / 2..CHUNKS).await);
    finish_build(&mut c, "tui", &output).await;
    let size = output.len();
    let done = until_shown("the finished card", "[exit 0]", screen).await;
    let history = pane.capture(true);
    drop(pane);

    let artifacts = support::repo_dir().join("target/test-artifacts");
    std::fs::create_dir_all(&artifacts).unwrap();
    std::fs::write(artifacts.join("tail-terminal-running.txt"), &running).unwrap();
    std::fs::write(artifacts.join("tail-terminal.txt"), &done).unwrap();
    println!("the terminal mid-build:\n{}", running.trim_end());
    println!("the terminal after the build:\n{}", done.trim_end());
    // The card once, in its final state, with every output line once: the running card's
    // redraws were erased in place, never scrolled into the history.
    assert_eq!(history.matches("$ make build").count(), 1, "{history}");
    assert!(
        !history.contains("waiting for session"),
        "the notice is taken back: {history}"
    );
    for n in [0, 500, 999] {
        let l = line(n);
        assert_eq!(history.matches(l.trim_end()).count(), 1, "{l}");
    }
    let written = std::fs::read(&log).unwrap();
    let written = written.len();
    println!("output {size} bytes; tail wrote {written} bytes to the terminal");
    assert!(written < 3 * size, "{written} bytes for {size} of output");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn through_a_pipe_live_lines_then_each_card_once() {
    let server = support::server::Server::start().await;
    let mut c = client(&server.url).await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("piped.txt");
    let tail = support::cli::command(&[
        "tail",
        "--session",
        "pipe",
        "--server",
        &server.url,
        "--from-beginning",
    ])
    .stdout(Stdio::from(std::fs::File::create(&file).unwrap()))
    .spawn()
    .unwrap();
    let tail = Killed(tail);
    let size = stream_build(&mut c, "pipe").await;
    let text = until_shown("the finished card", "[exit 0]", || {
        std::fs::read_to_string(&file).unwrap_or_default()
    })
    .await;
    drop(tail);
    assert_eq!(text.matches("$ make build").count(), 1, "{text}");
    for n in 0..CHUNKS {
        let l = line(n);
        assert_eq!(text.matches(l.trim_end()).count(), 1, "{l}");
    }
    // Live lines before the card that closes them.
    assert!(text.find(line(999).trim_end()).unwrap() < text.find("$ make build").unwrap());
    println!(
        "output {size} bytes; tail wrote {} bytes to the pipe",
        text.len()
    );
    assert!(text.len() < 2 * size, "{} bytes for {size}", text.len());

    // What the session holds now, as a transcript: the card once (ANSI, then Markdown).
    for (target, heading) in [
        ("ansi", "Tool / bash"),
        ("markdown", "**Tool Call: make build**"),
    ] {
        let url = server.url.clone();
        let ran = tokio::task::spawn_blocking(move || {
            support::cli::run(&[
                "tail",
                "--session",
                "pipe",
                "--server",
                &url,
                "--no-follow",
                "--target",
                target,
            ])
        })
        .await
        .unwrap();
        assert!(ran.ok, "{}", ran.stderr);
        let out = ran.stdout;
        println!("tail --no-follow --target {target}: {} bytes", out.len());
        assert_eq!(out.matches(heading).count(), 1, "{out}");
        assert_eq!(out.matches(line(500).trim_end()).count(), 1);
        assert!(out.len() < 2 * size, "{} bytes for {size}", out.len());
    }
}

/// `tail --approve` on a terminal: a pending permission request shows its prompt and a key per
/// option; the key `3` (Reject) answers it (`via: tail`), and the decision shows as everyone
/// sees it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_terminal_a_key_answers_a_permission_request() {
    use support::permissions::{asking, requested, resolution};
    use toolview::grpc::pb::permission_resolved::Outcome;
    let server = support::server::Server::start().await;
    let mut c = client(&server.url).await;
    start_build(&mut c, "keys").await;
    let ask = asking("keys", requested("perm-1", "c1", "Run make build?"));
    publish(&mut c, vec![ask]).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("tmux.sock");
    let tail = format!(
        "{} tail --session keys --server {} --from-beginning --approve",
        support::toolview_bin().display(),
        server.url
    );
    let pane = Pane::start(&socket, 30, 120, &tail);
    let screen = || pane.capture(false);
    let shown = until_shown("the prompt", "press a key to answer", screen).await;
    assert!(
        shown.contains("Awaiting approval: Run make build?"),
        "{shown}"
    );
    assert!(
        shown.contains("1 Allow · 2 Always allow · 3 Reject"),
        "{shown}"
    );
    tmux(&socket, &["send-keys", "3"]);
    let resolution = resolution(&server.url, "keys", "perm-1").await;
    assert_eq!(
        resolution.outcome,
        Some(Outcome::SelectedOptionId("reject".into()))
    );
    assert_eq!(resolution.resolved_by.unwrap().via, "tail");
    let decided = until_shown("the decision", "via tail", screen).await;
    assert!(decided.contains("✘ Run make build?: Reject"), "{decided}");
}
